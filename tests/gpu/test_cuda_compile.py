"""The CUDA compile helper finds every kernel source its users name (no GPU needed)."""

from __future__ import annotations

import ast

import numpy as np

from tests.support.import_graph import modules
from uvlab.gpu.cuda_compile import KERNEL_DIR, ctype


def _kernel_files() -> dict[str, set[str]]:
    """``get_kernel("FILE.cu", ...)`` calls in uvlab.gpu: file name → calling modules."""
    found: dict[str, set[str]] = {}
    for name, path in modules("uvlab.gpu").items():
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "get_kernel"
                and isinstance(node.args[0], ast.Constant)
            ):
                found.setdefault(node.args[0].value, set()).add(name)
    return found


def test_every_kernel_source_named_is_shipped():
    files = _kernel_files()
    users = set().union(*files.values())
    # the predict, the CUDA gridders and the sub-minor CLEAN loop share the helper
    assert {"uvlab.gpu.predict.cuda_direct", "uvlab.gpu.deconvolution.subminor"} <= users
    assert any(u.startswith("uvlab.gpu.gridders.") for u in users)
    missing = sorted(f for f in files if not (KERNEL_DIR / f).is_file())
    assert not missing, f"not in {KERNEL_DIR}: {missing}"


def test_ctype_names_the_real_part():
    assert [ctype(t) for t in (np.float32, np.complex64, np.float64, np.complex128)] == [
        "float",
        "float",
        "double",
        "double",
    ]
