"""uvlab.gpu imports with NumPy alone: no Qt, astropy, casacore, app or widgets.

The layers are enforced by the import-linter contracts in ``pyproject.toml``
(``lint-imports``, run by ``make test``); grimp reads every ``import``
statement, inside functions too. These tests cover what a static reading
cannot: importing every module of ``uvlab.gpu`` really runs with the forbidden
packages blocked (a dynamic ``importlib.import_module`` included), and the
contracts' root packages hold the modules the project ships (a root that finds
no modules makes every contract pass vacuously).
"""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.paths import REPO

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

PYPROJECT = REPO / "pyproject.toml"


def test_gpu_package_imports_without_forbidden_modules():
    code = textwrap.dedent(
        """
        import importlib, pkgutil, sys
        class Block:
            banned = ("PyQt6", "pyqtgraph", "astropy", "casacore", "uvlab.app", "uvlab.widgets")
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in self.banned or name.startswith(self.banned):
                    raise ImportError(f"forbidden import of {name} from uvlab.gpu")
        sys.meta_path.insert(0, Block())
        import uvlab.gpu
        for m in pkgutil.walk_packages(uvlab.gpu.__path__, "uvlab.gpu."):
            importlib.import_module(m.name)
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_import_linter_roots_see_every_shipped_package():
    grimp = pytest.importorskip("grimp")
    tool = tomllib.loads(PYPROJECT.read_text())["tool"]
    roots = tool["importlinter"]["root_packages"]
    graph = grimp.build_graph(*roots, cache_dir=None)
    for root in roots:
        assert graph.find_descendants(root), f"import-linter finds no modules under {root}"
    dirs = tool["setuptools"]["package-dir"]  # {"uvlab.app": "app", ...}
    python = []  # the shipped packages that hold Python code (gpu.kernels holds .cu files)
    for package in tool["setuptools"]["packages"]:
        top = ".".join(package.split(".")[:2])
        folder = PYPROJECT.parent / dirs[top] / Path(*package.split(".")[2:])
        if any(folder.glob("*.py")):
            python.append(package)
    assert "uvlab.gpu.gridders" in python
    missing = [p for p in python if p not in graph.modules]
    assert not missing, f"not under the import-linter roots: {missing}"


def test_the_gpu_tests_import_without_the_app_stack():
    """The GPU machine has CuPy but no Qt, astropy or casacore: tests/gpu must import there.

    pyerfa (a dependency of the layouts' geodesy, one small wheel) is installed there.
    """
    code = textwrap.dedent(
        """
        import importlib, pathlib, sys
        class Block:
            banned = ("PyQt6", "pyqtgraph", "astropy", "casacore")
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in self.banned or name.startswith(self.banned):
                    raise ImportError(f"forbidden import of {name} from a GPU test")
        sys.meta_path.insert(0, Block())
        root = pathlib.Path("tests/gpu")
        for f in sorted(root.rglob("test_*.py")):
            importlib.import_module(".".join(f.with_suffix("").parts))
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "ok"
