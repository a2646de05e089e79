"""The controller: freeze → submit → keep only the newest result (STYLE §3).

It knows nothing of widgets. It is given a ``freeze(task)`` callable that
builds a :class:`~uvlab.app.lab.jobs.JobRequest` from the current model on
the GUI thread (the window's is a :class:`~uvlab.app.lab.model_requests.ModelRequests`:
the request of the lab model's state, no panel read back), and re-emits the worker's
signals only for the newest job (napari's ``if job_id != self._latest_job_id:
return``). Parameter edits go through :meth:`schedule`: the first edit after a
quiet spell, with no job running, is submitted at once (a click answers without waiting for the
debounce); the edits of a burst (a slider dragged, a number typed) restart a
single-shot QTimer debounce, and when it fires the running job is cancelled
and a new one submitted.

Partial results arriving faster than the GUI draws them are coalesced: only
the newest pending partial is delivered, from a zero-delay timer (urgent ones,
such as an MS summary, are delivered at once).

A new job type needs only a task name understood by ``freeze`` and
``live.iter_job``: ``submit("compare")``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PyQt6 import QtCore
from PyQt6.QtCore import pyqtSignal

from uvlab.app.gui.worker import Worker
from uvlab.app.lab.jobs import JobRequest, JobResult

#: Debounce of parameter edits, ms.
DEBOUNCE_MS = 150


class Controller(QtCore.QObject):
    """Owns the worker; turns edits into jobs and the newest job's output into signals.

    Parameters
    ----------
    freeze : callable(task: str) -> JobRequest
        Builds the request from the current model (raises ValueError for bad input).
    worker : Worker, optional
        Default: a new :class:`Worker` (its thread starts at once).
    debounce_ms : int
        Quiet time that ends a burst of edits.
    leading : bool
        Submit the first edit of a burst at once when idle (default True).

    Signals
    -------
    submitted(object)
        The JobRequest just submitted.
    progress_changed(float, str)
    partial_ready(object)
        A :class:`~uvlab.app.lab.jobs.Partial` of the newest job.
    result_ready(object)
        The :class:`~uvlab.app.lab.jobs.JobResult` of the newest job.
    job_failed(str)
        An error message (bad input, or the newest job raised).
    job_cancelled(int)
    busy_changed(bool)
    cancelling_changed(bool)
        True when Cancel is pressed while a job runs; False once the job has
        stopped (cancelled, or it ended first) or another job was submitted.
    """

    submitted = pyqtSignal(object)
    progress_changed = pyqtSignal(float, str)
    partial_ready = pyqtSignal(object)
    result_ready = pyqtSignal(object)
    job_failed = pyqtSignal(str)
    job_cancelled = pyqtSignal(int)
    busy_changed = pyqtSignal(bool)
    cancelling_changed = pyqtSignal(bool)

    def __init__(
        self,
        freeze: Callable[[str], JobRequest],
        worker: Worker | None = None,
        *,
        debounce_ms: int = DEBOUNCE_MS,
        leading: bool = True,
        parent: QtCore.QObject | None = None,
    ):
        super().__init__(parent)
        self._freeze = freeze
        self.worker = worker or Worker()
        self._latest_job_id: int | None = None
        self._latest_request: JobRequest | None = None
        self._busy = False
        self._cancelling = False
        self._pending_partial = None
        self.debounce = QtCore.QTimer(self)
        self.debounce.setSingleShot(True)
        self.debounce.setInterval(int(debounce_ms))
        self.debounce.timeout.connect(self.submit)
        self.leading = leading
        self._last_edit = -float("inf")  # time.monotonic() of the last schedule()
        self._partial_timer = QtCore.QTimer(self)
        self._partial_timer.setSingleShot(True)
        self._partial_timer.setInterval(0)
        self._partial_timer.timeout.connect(self._flush_partial)
        w = self.worker
        w.progress.connect(self._on_progress)
        w.partial.connect(self._on_partial)
        w.finished.connect(self._on_finished)
        w.errored.connect(self._on_errored)
        w.cancelled.connect(self._on_cancelled)

    # ----------------------------------------------------------------- state
    @property
    def latest_job_id(self) -> int | None:
        """Id of the newest submitted job (the only one whose output is shown)."""
        return self._latest_job_id

    @property
    def latest_request(self) -> JobRequest | None:
        return self._latest_request

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def cancelling(self) -> bool:
        """Cancel was pressed and the job has not stopped yet."""
        return self._cancelling

    def _set_cancelling(self, cancelling: bool) -> None:
        if cancelling != self._cancelling:
            self._cancelling = cancelling
            self.cancelling_changed.emit(cancelling)

    def _set_busy(self, busy: bool) -> None:
        if not busy:
            self._set_cancelling(False)
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)

    # --------------------------------------------------------------- actions
    def schedule(self) -> None:
        """An edit: submit now when idle and quiet, else (re)start the debounce timer.

        "Quiet": no edit in the last debounce interval and none pending, so a
        burst's later edits always wait for the burst to end.
        """
        now = time.monotonic()
        quiet = now - self._last_edit >= self.debounce.interval() / 1e3
        self._last_edit = now
        if self.leading and quiet and not self._busy and not self.debounce.isActive():
            self.submit()
        else:
            self.debounce.start()

    def submit(self, task: str = "image") -> JobRequest | None:
        """Freeze the model and submit it now; returns the request (None if invalid)."""
        self.debounce.stop()
        try:
            request = self._freeze(task)
        except ValueError as exc:  # invalid input: say so, keep the last result
            self.job_failed.emit(str(exc))
            return None
        self._latest_job_id = request.job_id
        self._latest_request = request
        self._pending_partial = None
        self.worker.submit(request)
        self._set_cancelling(False)
        self._set_busy(True)
        self.submitted.emit(request)
        return request

    def cancel(self) -> None:
        """Cancel the pending edit and the running job (its result will not be shown).

        While a job runs, the controller is ``cancelling`` until the worker reports
        it stopped (the CPU gridders check between blocks: well under a second).
        """
        self.debounce.stop()
        self._pending_partial = None
        self.worker.cancel()
        if self._busy:
            self._set_cancelling(True)

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Cancel and stop the worker thread (call before the window goes away)."""
        self.debounce.stop()
        self._partial_timer.stop()
        ok = self.worker.stop(timeout_ms)
        self._set_busy(False)
        return ok

    # ----------------------------------------------------------------- slots
    def _is_latest(self, job_id: int) -> bool:
        return job_id == self._latest_job_id

    def _on_progress(self, job_id: int, fraction: float, stage: str) -> None:
        if self._is_latest(job_id) and not self._cancelling:
            self.progress_changed.emit(fraction, stage)

    def _on_partial(self, job_id: int, payload) -> None:
        if not self._is_latest(job_id):
            return
        if getattr(payload, "urgent", False):  # e.g. the MS summary: never coalesced away
            self.partial_ready.emit(payload)
        else:
            self._pending_partial = (job_id, payload)
            if not self._partial_timer.isActive():
                self._partial_timer.start()

    def _flush_partial(self) -> None:
        pending, self._pending_partial = self._pending_partial, None
        if pending is not None and self._is_latest(pending[0]):
            self.partial_ready.emit(pending[1])

    def _on_finished(self, job_id: int, result: JobResult) -> None:
        if not self._is_latest(job_id):
            return  # stale: a newer job was submitted meanwhile
        self._pending_partial = None
        self._set_busy(False)
        self.result_ready.emit(result)

    def _on_errored(self, job_id: int, message: str) -> None:
        if not self._is_latest(job_id):
            return
        self._pending_partial = None
        self._set_busy(False)
        self.job_failed.emit(message)

    def _on_cancelled(self, job_id: int) -> None:
        if self._is_latest(job_id):
            self._pending_partial = None
            self._set_busy(False)
            self.job_cancelled.emit(job_id)
