"""``uvlab bench gui``: the window's responsiveness while it works (issues 13 and 28).

The timing targets that unit tests must not hold (they fail on a busy machine)
live here, measured on the real window in a fresh process (offscreen without a
display; :mod:`uvlab.app.gui.bench_window`):

- **stall**: the longest gap between the ticks of a 10 ms timer on the GUI
  thread while a new prediction runs and its result is drawn (target < 0.1 s);
- **cancel**: seconds from a click on *Cancel* during a running job to the
  controller's ``job_cancelled`` (target ≤ 0.5 s), and the longest stall
  meanwhile.

The scene is the default one (MeerKAT, the teaching sky) at ``npix``; each
repeat changes the hour-angle range, so every job predicts anew. Medians over
``repeats``, every run kept.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys


def bench_gui(device: str = "cpu", npix: int = 512, repeats: int = 3) -> dict:
    """Stall and cancel latency of the real window, in a fresh process; JSON-ready dict."""
    env = dict(os.environ)
    if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        env["QT_QPA_PLATFORM"] = "offscreen"
    args = [sys.executable, "-m", "uvlab.app.gui.bench_window", device, str(npix), str(repeats)]
    out = subprocess.run(args, capture_output=True, text=True, env=env, timeout=3600)
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"the window exited with {out.returncode}: {last}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def format_gui_bench(report: dict) -> str:
    """The report as a few aligned lines, each median against its target."""
    med, tgt = report["median"], report["targets"]
    lines = [f"uvlab bench gui: {report['device']}, {report['npix']}², {report['repeats']} runs"]
    rows = (
        ("worst GUI stall during a job and its drawing", "stall_s", tgt["stall_s"]),
        ("cancel latency (click → cancelled)", "cancel_s", tgt["cancel_s"]),
        ("worst GUI stall around the cancel", "cancel_stall_s", tgt["stall_s"]),
    )
    for label, key, target in rows:
        ok = "met" if med[key] <= target else "MISSED"
        lines.append(
            f"  {label:<46} {med[key] * 1e3:8.1f} ms  (target {target * 1e3:.0f} ms, {ok})"
        )
    return "\n".join(lines)
