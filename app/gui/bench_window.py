"""The window's responsiveness, measured in this process (``uvlab bench gui``'s worker).

Run as ``python -m uvlab.app.gui.bench_window DEVICE NPIX REPEATS``: prints one JSON
object (:func:`bench_window`'s). :mod:`uvlab.app.commands.bench.gui` starts it as a fresh process,
as ``uvlab bench startup`` starts the window, so that nothing outside ``app/gui`` imports Qt.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import tempfile
import time
from dataclasses import replace

#: Targets (seconds): the worst GUI stall while a job runs and draws, and cancel latency.
STALL_TARGET_S = 0.1
CANCEL_TARGET_S = 0.5


class _Ticks:
    """A 10 ms timer on the GUI thread; its longest gap is the worst stall."""

    def __init__(self, QtCore):
        self.times: list[float] = []
        self.timer = QtCore.QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(lambda: self.times.append(time.perf_counter()))

    def __enter__(self):
        self.times.clear()
        self.timer.start()
        return self

    def __exit__(self, *exc):
        self.timer.stop()

    def worst_gap(self) -> float:
        t = self.times
        return max((b - a for a, b in itertools.pairwise(t)), default=float("nan"))


def _wait(app, cond, timeout_s: float, what: str) -> None:
    """Run the event loop until ``cond()``; RuntimeError naming ``what`` after ``timeout_s``."""
    from PyQt6 import QtCore

    end = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > end:
            raise RuntimeError(f"bench gui: gave up waiting for {what} after {timeout_s:.0f} s")
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
        time.sleep(0.001)


def bench_window(device: str = "cpu", npix: int = 512, repeats: int = 3) -> dict:
    """Stall and cancel latency of the real window on the default scene; JSON-ready dict."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PyQt6 import QtCore, QtWidgets

    from uvlab.app.gui.main_window import MainWindow
    from uvlab.app.gui.settings import AppSettings
    from uvlab.app.lab.session import default_session

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(["uvlab-bench"])
    state = default_session()
    state = replace(state, device=device, imaging=replace(state.imaging, npix=npix))
    runs: dict[str, list[float]] = {"stall_s": [], "cancel_s": [], "cancel_stall_s": []}
    with tempfile.TemporaryDirectory(prefix="uvlab-bench-gui-") as tmp:
        ini = QtCore.QSettings(os.path.join(tmp, "bench.ini"), QtCore.QSettings.Format.IniFormat)
        w = MainWindow(state, settings=AppSettings(ini))
        w.resize(1366, 768)
        w.show()
        c = w.controller
        try:
            _wait(app, lambda: w.views.last_image is not None, 600, "the first image")
            _wait(app, lambda: not w.views.is_drawing(), 60, "the first drawing")
            ticks = _Ticks(QtCore)
            results, cancelled = [], []
            c.result_ready.connect(results.append)
            c.job_cancelled.connect(cancelled.append)
            for k in range(repeats):
                stop = 3.0 + 0.25 * (k + 1)
                results.clear()
                with ticks:
                    w.obs_panel.set_ha_range(-2.5, stop)
                    w.binding.commit("observation")  # an edit, as a user makes it
                    c.submit()
                    _wait(app, lambda: bool(results), 600, "a result")
                    _wait(app, lambda: not w.views.is_drawing(), 60, "its drawing")
                runs["stall_s"].append(ticks.worst_gap())
                cancelled.clear()
                with ticks:
                    w.obs_panel.set_ha_range(-2.0, stop)
                    w.binding.commit("observation")
                    job = c.submit()
                    _wait(app, lambda: w.run_panel.progress.value() > 0, 600, "a running job")
                    t0 = time.perf_counter()
                    w.run_panel.cancel_button.click()
                    _wait(app, lambda j=job.job_id: j in cancelled, 60, "the cancel")
                    runs["cancel_s"].append(time.perf_counter() - t0)
                runs["cancel_stall_s"].append(ticks.worst_gap())
        finally:
            c.shutdown()
            w.close()
    med = {k: sorted(v)[len(v) // 2] for k, v in runs.items()}
    return {
        "device": device,
        "npix": npix,
        "repeats": repeats,
        "runs": runs,
        "median": med,
        "targets": {"stall_s": STALL_TARGET_S, "cancel_s": CANCEL_TARGET_S},
    }


if __name__ == "__main__":
    device, npix, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    print(json.dumps(bench_window(device, npix, repeats)))
