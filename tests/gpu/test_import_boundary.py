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


#: One process imports every module of uvlab.gpu with Qt, astropy, casacore, uvlab.app
#: and uvlab.widgets blocked, then (uvlab.app allowed) every test module of tests/gpu with
#: Qt, astropy and casacore still blocked; it prints what each step raised, or ok.
PROBE = textwrap.dedent(
    """
    import importlib, pathlib, pkgutil, sys, traceback
    class Block:
        banned = ("PyQt6", "pyqtgraph", "astropy", "casacore", "uvlab.app", "uvlab.widgets")
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in self.banned or name.startswith(self.banned):
                raise ImportError(f"forbidden import of {name} from {self.where}")
    block = Block()
    sys.meta_path.insert(0, block)
    def step(name, where, run):
        block.where = where
        try:
            run()
            print(f"{name}: ok")
        except BaseException:
            print(f"{name}: " + traceback.format_exc()[-3000:].replace("\\n", " | "))
    def gpu_package():
        import uvlab.gpu
        for m in pkgutil.walk_packages(uvlab.gpu.__path__, "uvlab.gpu."):
            importlib.import_module(m.name)
    def gpu_tests():
        for f in sorted(pathlib.Path("tests/gpu").rglob("test_*.py")):
            importlib.import_module(".".join(f.with_suffix("").parts))
    step("package", "uvlab.gpu", gpu_package)
    Block.banned = ("PyQt6", "pyqtgraph", "astropy", "casacore")
    step("tests", "a GPU test", gpu_tests)
    """
)


@pytest.fixture(scope="module")
def probe() -> dict[str, str]:
    """What each step of :data:`PROBE` printed, by step."""
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stderr[-3000:]
    return dict(line.split(": ", 1) for line in out.stdout.splitlines() if ": " in line)


def test_gpu_package_imports_without_forbidden_modules(probe):
    assert probe["package"] == "ok"


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


def test_the_gpu_tests_import_without_the_app_stack(probe):
    """The GPU machine has CuPy but no Qt, astropy or casacore: tests/gpu must import there.

    pyerfa (a dependency of the layouts' geodesy, one small wheel) is installed there.
    """
    assert probe["tests"] == "ok"
