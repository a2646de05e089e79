"""Start-up latency of the commands a class meets first (``uvlab bench startup``).

Each run is a fresh process, as a user starts it:

- ``demo``: ``uvlab demo`` into a temporary folder, wall time to exit (the
  default scene, two FITS files, the overview PNG);
- ``gui``: ``uvlab gui --screenshot`` on the default scene, the seconds from
  the process's start to the first image on screen and to the first complete
  image, as the window measures them (:mod:`uvlab.app.runtime.process_clock`). Without
  a display it renders offscreen (``QT_QPA_PLATFORM=offscreen``).

Medians over ``repeats`` runs; every run is kept in the report.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_GUI_LINE = re.compile(r"first image ([\d.]+) s, complete image ([\d.]+) s")


def _uvlab(args: list[str], env=None, timeout_s: float = 300.0) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "uvlab.app", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout_s,
    )
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"uvlab {args[0]} exited with {out.returncode}: {last}")
    return wall, out.stdout


def _median(values: list[float]) -> float:
    return float(sorted(values)[len(values) // 2])


def bench_startup(repeats: int = 3, gui: bool = True) -> dict:
    """Time ``uvlab demo`` and (with ``gui``) the window's first image; JSON-ready dict."""
    runs: dict[str, list] = {"demo_wall_s": []}
    with tempfile.TemporaryDirectory(prefix="uvlab-bench-startup-") as tmp:
        for k in range(repeats):
            runs["demo_wall_s"].append(_uvlab(["demo", "--out", str(Path(tmp) / f"demo{k}")])[0])
        if gui:
            env = dict(os.environ)
            if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
                env["QT_QPA_PLATFORM"] = "offscreen"
            runs.update(gui_first_image_s=[], gui_complete_s=[], gui_wall_s=[])
            for k in range(repeats):
                shot = str(Path(tmp) / f"gui{k}.png")
                wall, stdout = _uvlab(["gui", "--screenshot", shot], env=env)
                m = _GUI_LINE.search(stdout)
                if m is None:
                    raise RuntimeError(f"uvlab gui printed no start-up line: {stdout.strip()!r}")
                runs["gui_first_image_s"].append(float(m.group(1)))
                runs["gui_complete_s"].append(float(m.group(2)))
                runs["gui_wall_s"].append(wall)  # includes the screenshot's settle and save
    return {
        "repeats": int(repeats),
        "platform": os.environ.get("QT_QPA_PLATFORM")
        or ("xcb" if os.environ.get("DISPLAY") else "offscreen"),
        "median_s": {name: _median(v) for name, v in runs.items()},
        "runs_s": runs,
    }


def format_startup_bench(result: dict) -> str:
    """A plain-text table: median and every run, per measurement."""
    lines = [f"start-up, median of {result['repeats']} fresh processes"]
    for name, med in result["median_s"].items():
        every = ", ".join(f"{v:.2f}" for v in result["runs_s"][name])
        lines.append(f"{name:<20} {med:6.2f} s   ({every})")
    return "\n".join(lines)
