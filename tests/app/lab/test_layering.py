"""The lab runs without Qt: none of its modules imports PyQt6, pyqtgraph or uvlab.widgets."""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import REPO

BLOCK = """
import importlib, pkgutil, sys

class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PyQt6", "pyqtgraph") or name.startswith("uvlab.widgets"):
            raise ImportError(f"the lab imported {name}")

sys.meta_path.insert(0, Refuse())
import uvlab.app.lab as lab
names = [m.name for m in pkgutil.iter_modules(lab.__path__, "uvlab.app.lab.")]
for name in names:
    importlib.import_module(name)
from uvlab.app.lab.live import run_job
from uvlab.app.lab.session import DEFAULT_SESSION
from uvlab.app.lab.imaging import ImagingOptions
from dataclasses import replace
from tests.support.observations import SMALL_OBS
state = replace(DEFAULT_SESSION, observation=SMALL_OBS, imaging=ImagingOptions(npix=32))
for task in ("image", "aliasing"):
    out = run_job(state.job_request(task, device="cpu", preview=False))
print(len(names), type(out).__name__)
"""


def test_the_lab_imports_and_runs_without_qt():
    done = subprocess.run(
        [sys.executable, "-c", BLOCK], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    assert done.returncode == 0, done.stderr
    count, kind = done.stdout.split()
    assert int(count) >= 10 and kind == "AliasingOutput"
