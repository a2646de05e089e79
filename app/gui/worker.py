"""The background worker: one QThread that runs jobs one at a time (STYLE §3).

The :class:`Worker` lives in its own QThread for its whole life, so every
casacore call it makes (through :class:`~uvlab.app.lab.samples.WorkCache`) happens
on that one I/O thread. :meth:`Worker.submit` is called on the GUI thread: it
marks the request as the wanted job — which cancels whatever runs — and queues
it to the worker thread. There the job's generator (:func:`live.iter_job`) is
iterated; between events the worker checks :meth:`cancel_requested`, as
superqt's ``GeneratorWorker`` checks ``abort_requested``.

Every submitted job ends with exactly one of ``finished``, ``errored`` or
``cancelled``. A cancelled job never emits ``finished`` (superqt:
``if not self.abort_requested: self.returned.emit(result)``); jobs superseded
before they start are reported ``cancelled`` without running. Partial results
are rate-limited to one per ``partial_interval_s`` (urgent ones — the MS
summary — always pass).
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from collections.abc import Callable

from PyQt6 import QtCore
from PyQt6.QtCore import pyqtSignal, pyqtSlot

from uvlab.app.lab.jobs import Done, JobRequest, JobResult, Partial, Progress
from uvlab.app.runtime.errors import Cancelled

#: Niceness added to the worker thread where the OS allows it (Linux threads have
#: their own): under load the scheduler then favours the GUI thread.
WORKER_NICE = 10

#: Exceptions whose message is enough (bad input or data); others get a traceback.
_EXPECTED = (ValueError, OSError, RuntimeError, MemoryError)


def lower_thread_priority(increment: int = WORKER_NICE) -> bool:
    """Raise the calling thread's niceness by ``increment`` (Linux); False if not possible."""
    if not sys.platform.startswith("linux") or increment <= 0:
        return False
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + increment)
    except (AttributeError, OSError):
        return False
    return True


def format_error(exc: BaseException) -> str:
    """One clear first line (the exception's message), then details for the log."""
    text = str(exc).strip() or exc.__class__.__name__
    if isinstance(exc, _EXPECTED) and type(exc).__module__.startswith(("uvlab", "builtins")):
        return text
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return f"{exc.__class__.__name__}: {text}\n{tb.rstrip()}"


class Worker(QtCore.QObject):
    """Runs :class:`JobRequest` s on a private QThread, newest wins.

    Parameters
    ----------
    run : callable(request, cache, cancelled, report) -> iterator of events
        Default :func:`uvlab.app.lab.live.iter_job`.
    partial_interval_s : float
        Minimum time between two emitted (non-urgent) partial results.
    nice : int
        Niceness added to the worker thread (Linux), so the GUI stays responsive.

    Signals
    -------
    progress(int, float, str)
        job_id, fraction in [0, 1], stage.
    partial(int, object)
        job_id, :class:`~uvlab.app.lab.jobs.Partial`.
    finished(int, object)
        job_id, :class:`~uvlab.app.lab.jobs.JobResult`.
    errored(int, str)
        job_id, message (first line: what went wrong).
    cancelled(int)
        job_id of a job stopped or skipped because another was wanted.
    """

    progress = pyqtSignal(int, float, str)
    partial = pyqtSignal(int, object)
    finished = pyqtSignal(int, object)
    errored = pyqtSignal(int, str)
    cancelled = pyqtSignal(int)
    _requested = pyqtSignal(object)

    def __init__(
        self,
        run: Callable | None = None,
        *,
        partial_interval_s: float = 0.1,
        nice: int = WORKER_NICE,
    ):
        super().__init__()
        if run is None:
            from uvlab.app.lab.live import iter_job

            run = iter_job
        from uvlab.app.lab.samples import WorkCache

        self._run = run
        self.partial_interval_s = float(partial_interval_s)
        self.cache = WorkCache()
        self._wanted: int | None = None
        self._lock = threading.Lock()
        self.nice = int(nice)
        self._niced = False
        self.thread = QtCore.QThread()
        self.thread.setObjectName("uvlab-worker")
        self.moveToThread(self.thread)
        self._requested.connect(self._execute, QtCore.Qt.ConnectionType.QueuedConnection)
        self.thread.start()

    # ------------------------------------------------------------ GUI thread
    def submit(self, request: JobRequest) -> None:
        """Make ``request`` the wanted job (cancelling any other) and queue it."""
        with self._lock:
            self._wanted = request.job_id
        self._requested.emit(request)

    def cancel(self) -> None:
        """Cancel the running and queued jobs."""
        with self._lock:
            self._wanted = None

    def cancel_requested(self, job_id: int) -> bool:
        """Whether job ``job_id`` should stop (another job, or none, is wanted)."""
        with self._lock:
            return self._wanted != job_id

    def stop(self, timeout_ms: int = 10_000) -> bool:
        """Cancel everything and end the thread; True if it ended in time."""
        self.cancel()
        if not self.thread.isRunning():
            return True
        self.thread.quit()
        return bool(self.thread.wait(timeout_ms))

    # --------------------------------------------------------- worker thread
    @pyqtSlot(object)
    def _execute(self, request: JobRequest) -> None:
        if not self._niced:
            self._niced = True
            lower_thread_priority(self.nice)
        jid = request.job_id
        if self.cancel_requested(jid):
            self.cancelled.emit(jid)
            return
        t0 = time.perf_counter()
        last_partial = -float("inf")
        gen = None
        try:
            gen = self._run(
                request,
                self.cache,
                lambda: self.cancel_requested(jid),
                lambda f, s: self._report(jid, f, s),
            )
            result = None
            for event in gen:
                if self.cancel_requested(jid):
                    raise Cancelled("job cancelled")
                if isinstance(event, Progress):
                    self.progress.emit(jid, float(event.fraction), event.stage)
                elif isinstance(event, Partial):
                    now = time.monotonic()
                    if event.urgent or now - last_partial >= self.partial_interval_s:
                        last_partial = now
                        self.partial.emit(jid, event)
                elif isinstance(event, Done):
                    elapsed = time.perf_counter() - t0
                    result = JobResult(jid, request.task, event.output, elapsed, request)
            if result is None:
                raise RuntimeError("the job ended without a result")
            if self.cancel_requested(jid):
                raise Cancelled("job cancelled")
            self.finished.emit(jid, result)
        except Cancelled:
            self.cancelled.emit(jid)
        except Exception as exc:  # reported, never swallowed
            if self.cancel_requested(jid):
                self.cancelled.emit(jid)
            else:
                self.errored.emit(jid, format_error(exc))
        finally:
            if gen is not None and hasattr(gen, "close"):
                gen.close()

    def _report(self, jid: int, fraction: float, stage: str) -> None:
        if not self.cancel_requested(jid):
            self.progress.emit(jid, float(fraction), stage)
