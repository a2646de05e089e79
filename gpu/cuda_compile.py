"""Compile uvlab's CUDA kernels once per template instance (memoised).

Used by the predict, the CUDA gridders and the sub-minor CLEAN loop.

The sources live in ``gpu/kernels/*.cu`` (package data). Each template
instance is named by a C++ name expression such as
``predict_direct<float, 1, false, true, true, 8, 0>`` and compiled with NVRTC
through ``cupy.RawModule``; a failed compile logs the source with line numbers.
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

KERNEL_DIR = Path(__file__).resolve().parent / "kernels"
OPTIONS = ("-std=c++17",)


def ctype(dtype) -> str:
    """C++ scalar type for a NumPy dtype (a complex one's real part)."""
    return {"f": "float", "d": "double"}[np.dtype(dtype).char.lower()]


@functools.cache
def _source(filename: str) -> str:
    return (KERNEL_DIR / filename).read_text()


@functools.cache
def get_kernel(filename: str, name_expression: str):
    """Return the ``cupy.RawKernel`` of one template instance in ``filename``."""
    import cupy

    code = _source(filename)
    try:
        module = cupy.RawModule(code=code, options=OPTIONS, name_expressions=(name_expression,))
        return module.get_function(name_expression)
    except Exception:
        numbered = "\n".join(f"{i + 1:4d} {line}" for i, line in enumerate(code.splitlines()))
        log.error("compiling %s from %s failed; source:\n%s", name_expression, filename, numbered)
        raise


def launch_1d(kernel, total: int, args, threads: int = 256, max_blocks: int = 65536 * 8) -> None:
    """Launch a grid-stride kernel over ``total`` elements."""
    if total <= 0:
        return
    blocks = int(min(max((total + threads - 1) // threads, 1), max_blocks))
    kernel((blocks,), (threads,), args)
