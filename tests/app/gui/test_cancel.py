"""Cancel in the window: every job kind stops within one block, with a "cancelling…" state.

The job kinds run on scenes big enough that they take seconds (``slow``): the test
cancels once the job's long step has polled its cancel check a few times, waits by
condition until the worker reports it cancelled, and checks that the job asked no
more than once after the cancel (the engine checks between blocks and stops at the
first check). The "cancelling…" state is tested with a scripted job whose block
ends when the test says so.
"""

from __future__ import annotations

import threading

import pytest

from tests.support import cancel_jobs
from tests.support.observations import SMALL_OBS
from uvlab.app.gui.controller import Controller
from uvlab.app.gui.panels.run_panel import CANCELLING, RunPanel
from uvlab.app.gui.worker import Worker
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import Done, JobRequest, Progress
from uvlab.app.runtime.errors import Cancelled

#: Generous: the condition, not the time, decides (a busy 2-core machine is slow).
WAIT_MS = 600_000


def blocked_job(release: threading.Event):
    """A job whose one long block ends when ``release`` is set, then checks cancel."""

    def run(req, cache, cancelled, report):
        yield Progress(0.5, "long block")
        release.wait()
        if cancelled():
            raise Cancelled("job cancelled")
        yield Done("never shown")

    return run


def test_cancelling_shows_from_cancel_until_the_job_has_stopped(qtbot):
    release = threading.Event()
    worker = Worker(blocked_job(release))
    request = JobRequest("synthetic", ImagingOptions(npix=64), "cpu", SMALL_OBS)
    c = Controller(lambda task: request, worker)
    panel = RunPanel()
    qtbot.addWidget(panel)
    c.busy_changed.connect(panel.set_busy)
    c.progress_changed.connect(panel.set_progress)
    c.cancelling_changed.connect(panel.set_cancelling)
    try:
        c.submit()
        qtbot.waitUntil(lambda: "long block" in panel.status.text(), timeout=WAIT_MS)
        assert not panel.is_cancelling() and panel.cancel_button.isEnabled()
        c.cancel()
        assert c.cancelling and panel.is_cancelling()
        assert panel.status.text() == CANCELLING and panel.progress.text() == CANCELLING
        assert not panel.cancel_button.isEnabled()  # pressed once is enough
        with qtbot.waitSignal(c.job_cancelled, timeout=WAIT_MS):
            release.set()
        assert not c.cancelling and not c.busy
        assert not panel.is_cancelling() and not panel.progress.isTextVisible()
    finally:
        release.set()
        assert c.shutdown(10_000)


def test_cancel_when_idle_is_not_cancelling(qtbot):
    worker = Worker(blocked_job(threading.Event()))
    c = Controller(lambda task: None, worker)
    try:
        c.cancel()
        assert not c.cancelling
    finally:
        assert c.shutdown(10_000)


JOBS = {
    "pruned-nn": (lambda tmp: cancel_jobs.image_request("pruned-nn"), "imaging"),
    "hybrid-lm": (
        lambda tmp: cancel_jobs.image_request(
            "hybrid", kernel="lm", kernel_size="support", support=8
        ),
        "imaging",
    ),
    "pruned-nn-1024": (lambda tmp: cancel_jobs.image_request("pruned-nn", 1024), "imaging"),
    "compare": (lambda tmp: cancel_jobs.compare_request(), "compare:"),
    "clean": (lambda tmp: cancel_jobs.clean_request(), "clean"),
    "ms": (
        lambda tmp: cancel_jobs.ms_request(cancel_jobs.big_ms(tmp / "big.ms").path),
        "read MS",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(JOBS))
def test_each_job_kind_stops_at_its_next_check(kind, qtbot, tmp_path):
    make, stage = JOBS[kind]
    request = make(tmp_path)
    polls, stages = [], []
    worker = Worker(cancel_jobs.counting_run(polls, stages))
    ends = []
    worker.finished.connect(lambda j, r: ends.append("finished"))
    worker.errored.connect(lambda j, m: ends.append(f"errored: {m}"))
    worker.cancelled.connect(lambda j: ends.append("cancelled"))
    try:
        worker.submit(request)
        # inside the long step: it has asked several times whether to stop
        qtbot.waitUntil(lambda: sum(stage in s for s in polls) >= 3 or bool(ends), timeout=WAIT_MS)
        assert not ends, ends
        asked = len(polls)
        worker.cancel()
        qtbot.waitUntil(lambda: bool(ends), timeout=WAIT_MS)
        assert ends == ["cancelled"]
        assert len(polls) - asked <= 1  # stopped at the first check after the cancel
    finally:
        assert worker.stop(WAIT_MS)


def test_the_window_shows_cancelling_after_cancel_and_cancelled_once_stopped(
    qtbot, make_window, small_state, monkeypatch
):
    import uvlab.app.lab.live as live

    release = threading.Event()
    monkeypatch.setattr(live, "iter_job", blocked_job(release))
    window = make_window(small_state, run_on_start=False)
    panel = window.run_panel
    try:
        window.controller.submit()
        qtbot.waitUntil(lambda: "long block" in panel.status.text(), timeout=WAIT_MS)
        panel.cancel_button.click()
        assert panel.is_cancelling() and panel.status.text() == CANCELLING
        with qtbot.waitSignal(window.controller.job_cancelled, timeout=WAIT_MS):
            release.set()
        assert not panel.is_cancelling() and panel.status.text() == "Cancelled"
    finally:
        release.set()
