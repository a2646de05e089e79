"""The catalogue owns behaviour: no module but the registry branches on an algorithm's name.

What an algorithm does differently (its w-correction, degridder, analytic
bound, PSF co-gridding, host-only path …) is a field of its
:class:`~uvlab.gpu.gridders.registry.Algorithm` record; elsewhere the code
reads the field. This test reads the source of app/, gpu/ and widgets/ and
fails on any comparison of a value with a catalogue name written as a
literal (``== "conv"``, ``!= "dft"``, ``in ("hybrid", …)``, ``case "nn":``)
outside ``gpu/gridders/registry.py``.
"""

import re

from tests.support.paths import REPO as ROOT
from uvlab.gpu.gridders.registry import NAMES

PACKAGES = ("app", "gpu", "widgets")
REGISTRY = ROOT / "gpu" / "gridders" / "registry.py"


def _pattern() -> re.Pattern:
    name = "|".join(re.escape(n) for n in sorted(NAMES, key=len, reverse=True))
    lit = rf"""["'](?:{name})["']"""
    compare = rf"(?:==|!=)\s*{lit}|{lit}\s*(?:==|!=)"
    member = rf"(?<!for )\b[\w.()\[\]]+\s+(?:not\s+)?in\s*[(\[{{][^)\]}}]*{lit}"
    return re.compile(rf"{compare}|{member}|\bcase\s+{lit}")


def branches_on_names(text: str) -> list[str]:
    """The lines of ``text`` that compare something with a catalogue name literal."""
    pattern = _pattern()
    return [line.strip() for line in text.splitlines() if pattern.search(line)]


def test_the_pattern_finds_what_it_looks_for():
    bad = 'if a == "conv":\n x = b != "dft"\n if name in ("hybrid", "nn"):\n case "nn":'
    assert len(branches_on_names(bad)) == 4
    good = 'for a in ("nn", "conv"):\n algorithm="conv"\n if grids(name):\n d = {"dft": 1}'
    assert branches_on_names(good) == []


def test_no_module_outside_the_registry_branches_on_an_algorithm_name():
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == REGISTRY:
                continue
            found += [
                f"{path.relative_to(ROOT)}: {line}" for line in branches_on_names(path.read_text())
            ]
    assert found == [], "\n".join(found)
