"""The window's job clock: a slow job announced as it starts, every job's time left.

A helper beside the controller, as :class:`~uvlab.app.gui.stale.StaleViews` is: it
listens to the controller's signals and writes to the run panel. The estimates are
the Qt-free :mod:`uvlab.app.lab.job_time`'s; each finished job teaches it this
machine's times.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PyQt6 import QtCore

from uvlab.app.lab.job_time import SLOW_S, JobTimes, format_seconds, slow_notice, time_left

#: How often the time left is shown again between progress reports, ms.
TICK_MS = 250


class JobClock(QtCore.QObject):
    """Estimates each job as it is submitted and shows its time left while it runs.

    Parameters
    ----------
    controller : Controller
    run_panel : RunPanel
        Shows the time left in its bar (its ``set_time_left``).
    say : callable(str)
        Where a slow job's notice goes (the window's status bar and log).
    """

    def __init__(self, controller, run_panel, say: Callable[[str], None], parent=None):
        super().__init__(parent)
        self.times = JobTimes()
        self.run_panel = run_panel
        self._say = say
        self._request = None
        self._start = 0.0
        self._fraction = 0.0
        self.estimate_s: float | None = None  # the running job's, as it was submitted
        self._tick = QtCore.QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self._show)
        controller.submitted.connect(self._on_submitted)
        controller.progress_changed.connect(self._on_progress)
        controller.result_ready.connect(self._on_result)
        controller.busy_changed.connect(self._on_busy)

    def _on_submitted(self, request) -> None:
        self._request, self._start, self._fraction = request, time.monotonic(), 0.0
        try:
            self.estimate_s = self.times.estimate(request)
        except (ValueError, OSError):  # e.g. a layout that cannot be read: the job says so
            self.estimate_s = None
        if self.estimate_s is not None and self.estimate_s > SLOW_S:
            self._say(slow_notice(request, self.estimate_s))
        self._tick.start()
        self._show()

    def _on_progress(self, fraction: float, _stage: str) -> None:
        self._fraction = fraction
        self._show()

    def _show(self) -> None:
        if self._request is None:
            return
        left = time_left(time.monotonic() - self._start, self._fraction, self.estimate_s)
        self.run_panel.set_time_left(None if left is None else format_seconds(left))

    def _on_result(self, result) -> None:
        timing = getattr(result.output, "timing", None)  # the worker's results carry their request
        stages = timing if isinstance(timing, dict) else None
        self.times.record(result.request, result.elapsed_s, stages)

    def _on_busy(self, busy: bool) -> None:
        if not busy:
            self._tick.stop()
            self._request = None
            self.run_panel.set_time_left(None)
