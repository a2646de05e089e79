"""The tests mirror the package, and share code only through tests/support.

- A test of a subpackage sits in its folder: ``tests/app/ms/test_reader.py``, not
  ``tests/app/test_ms_reader.py``. Each folder under tests/app and tests/gpu is a
  subpackage of app/ or gpu/; a module left flat there may not start with a
  subpackage's name (``cmd`` counts as ``commands``).
- No test module imports another test module or a conftest: what they share
  (oracles, scenes, MS factories, CLI helpers) lives in ``tests.support``. Read
  from the source with :mod:`ast`, imports inside functions and relative imports
  included, and the Python in string constants (``python -c`` blocks) too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.support.paths import REPO

TESTS = REPO / "tests"
#: tests/<top> mirrors the source folder of uvlab.<top>.
MIRRORS = {"app": REPO / "app", "gpu": REPO / "gpu"}
#: Other words a flat module's name may use for a subpackage.
ALIASES = {"app": {"cmd": "commands"}}
SUPPORT = "tests.support"
#: An import statement inside a string (a ``python -c`` block).
QUOTED_IMPORT = re.compile(r"^\s*(?:from|import)\s+([\w.]+)", re.MULTILINE)


def subpackages(top: str) -> set[str]:
    return {p.parent.name for p in MIRRORS[top].glob("*/__init__.py")}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, package: str) -> set[str]:
    """Every module ``source`` imports (absolute names), and those imported in its strings.

    ``package``: the package the module lies in, against which relative imports resolve.
    ``from A import b`` counts as importing ``A`` and ``A.b`` (b may be a module).
    """
    here = package.split(".")
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.update(QUOTED_IMPORT.findall(node.value))
    return found


def is_test_code(module: str) -> bool:
    """A test module or conftest (by any name), or a module file of tests/ outside tests/support.

    Packages (``tests.app.ms``: an empty ``__init__``) are not test code; their modules are.
    """
    parts = module.split(".")
    if any(p.startswith("test_") or p == "conftest" for p in parts):
        return True
    if parts[0] != "tests" or len(parts) == 1:
        return False
    if module == SUPPORT or module.startswith(SUPPORT + "."):
        return False
    return TESTS.joinpath(*parts[1:]).with_suffix(".py").is_file()


@pytest.mark.parametrize("top", sorted(MIRRORS))
def test_each_test_folder_mirrors_a_subpackage(top):
    folders = {p.name for p in (TESTS / top).iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders <= subpackages(top), f"tests/{top} folders without a subpackage"
    for folder in folders:
        assert (TESTS / top / folder / "__init__.py").is_file(), f"tests/{top}/{folder}"


@pytest.mark.parametrize("top", sorted(MIRRORS))
def test_no_test_of_a_subpackage_is_left_flat(top):
    names = {name: name for name in subpackages(top)} | ALIASES.get(top, {})
    misplaced = {
        f"tests/{top}/{p.name}": f"tests/{top}/{names[word]}/"
        for p in sorted((TESTS / top).glob("test_*.py"))
        if (word := p.stem.removeprefix("test_").split("_")[0]) in names
    }
    assert not misplaced, f"move these into their subpackage's folder: {misplaced}"


def test_the_mirror_covers_the_subpackages_the_issue_names():
    assert {"ms", "commands", "skymodel", "lab", "gui"} <= subpackages("app")
    assert {"scale", "instrument", "observing", "outputs", "runtime"} <= subpackages("app")
    assert {"gridders", "predict", "imaging", "bench"} <= subpackages("gpu")


def test_no_test_module_imports_another():
    offences = {}
    for path in sorted(TESTS.rglob("*.py")):
        if "data" in path.relative_to(TESTS).parts or path == Path(__file__).resolve():
            continue  # this module's own samples below are imports only in strings
        name = module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        bad = sorted(m for m in imported_modules(path.read_text(), package) if is_test_code(m))
        if bad:
            offences[str(path.relative_to(REPO))] = bad
    assert not offences, f"share code through {SUPPORT} instead: {offences}"


def test_the_import_check_sees_relative_bare_nested_and_quoted_imports():
    source = "\n".join(
        [
            "from .test_conv import x",
            "from test_oracle import y",
            "from . import test_registry",
            "def f():",
            "    from TESTS.app.lab import conftest",
            "    import TESTS.app.ms.test_commit",
            "    from TESTS.app.ms import fault_writer",
            "BLOCK = '''",
            "import os",
            "from TESTS.app.gui.conftest import Z",
            "'''",
            "from TESTS.support.oracles import dft_image",
            "from TESTS.support import scenes",
            "import numpy",
            "import uvlab.gpu",
        ]
    ).replace("TESTS.", "tests.")  # so that a grep for test imports finds none here
    found = imported_modules(source, "tests.gpu.gridders")
    assert sorted(m for m in found if is_test_code(m)) == [
        "test_oracle",
        "test_oracle.y",
        "tests.app.gui.conftest",
        "tests.app.lab.conftest",
        "tests.app.ms.fault_writer",
        "tests.app.ms.test_commit",
        "tests.gpu.gridders.test_conv",
        "tests.gpu.gridders.test_conv.x",
        "tests.gpu.gridders.test_registry",
    ]
    assert {"tests.support.oracles", "tests.support.scenes", "os", "uvlab.gpu"} <= found
