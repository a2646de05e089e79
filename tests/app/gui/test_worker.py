"""Worker and controller with scripted jobs: newest wins, cancel, errors, throttling."""

from __future__ import annotations

import time

import pytest

from tests.support.observations import SMALL_OBS
from uvlab.app.gui.controller import Controller
from uvlab.app.gui.worker import Worker
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import Done, JobRequest, Partial, Progress


def request(**kw) -> JobRequest:
    return JobRequest("synthetic", ImagingOptions(npix=64), "cpu", SMALL_OBS, **kw)


def scripted(
    steps: int = 5, delay: float = 0.0, fail: BaseException | None = None, partials: bool = False
):
    """A run function: ``steps`` events ``delay`` apart, then Done(job_id) or raise ``fail``."""

    def run(req, cache, cancelled, report):
        for k in range(steps):
            time.sleep(delay)
            if partials:
                yield Partial("work", k / steps)
            else:
                yield Progress(k / steps, "work")
        if fail is not None:
            raise fail
        yield Done(("output of", req.job_id))

    return run


@pytest.fixture
def make_worker():
    workers = []

    def make(run, **kw):
        w = Worker(run, **kw)
        workers.append(w)
        return w

    yield make
    for w in workers:
        assert w.stop(5000)


class Recorder:
    """Collects every signal of a worker: (name, job_id, payload)."""

    def __init__(self, worker: Worker):
        self.events = []
        worker.progress.connect(lambda j, f, s: self.events.append(("progress", j, f)))
        worker.partial.connect(lambda j, p: self.events.append(("partial", j, p)))
        worker.finished.connect(lambda j, r: self.events.append(("finished", j, r)))
        worker.errored.connect(lambda j, m: self.events.append(("errored", j, m)))
        worker.cancelled.connect(lambda j: self.events.append(("cancelled", j, None)))

    def of(self, name):
        return [e for e in self.events if e[0] == name]

    def ends(self, job_id):
        return [
            e[0]
            for e in self.events
            if e[1] == job_id and e[0] in ("finished", "errored", "cancelled")
        ]


def test_result_travels_with_its_job_id(qtbot, make_worker):
    w = make_worker(scripted(3))
    rec = Recorder(w)
    req = request()
    with qtbot.waitSignal(w.finished, timeout=5000) as blocker:
        w.submit(req)
    job_id, result = blocker.args
    assert job_id == req.job_id == result.job_id
    assert result.output == ("output of", req.job_id) and result.request is req
    assert [e[2] for e in rec.of("progress")] == [0.0, 1 / 3, 2 / 3]


def test_abort_does_not_return(qtbot, make_worker):
    w = make_worker(scripted(200, delay=0.01))
    rec = Recorder(w)
    req = request()
    with qtbot.waitSignal(w.progress, timeout=5000):
        w.submit(req)
    with qtbot.waitSignal(w.cancelled, timeout=5000) as blocker:
        w.cancel()
    assert blocker.args == [req.job_id]
    qtbot.wait(100)
    assert rec.ends(req.job_id) == ["cancelled"]
    assert not rec.of("finished")


def test_newest_wins_and_stale_results_are_dropped(qtbot, make_worker):
    from uvlab.app.skymodel import SkyModel

    runs = {"slow": scripted(100, delay=0.01), "fast": scripted(2)}
    w = make_worker(lambda req, *a: runs[req.sky.name](req, *a))

    names = iter(["slow", "fast"])
    c = Controller(lambda task: request(sky=SkyModel(name=next(names))), w)
    rec = Recorder(w)
    shown = []
    c.result_ready.connect(shown.append)
    first = c.submit()
    qtbot.waitUntil(lambda: bool(rec.of("progress")), timeout=5000)
    with qtbot.waitSignal(c.result_ready, timeout=5000):
        second = c.submit()
    assert [r.job_id for r in shown] == [second.job_id]
    qtbot.waitUntil(lambda: bool(rec.ends(first.job_id)), timeout=5000)
    assert rec.ends(first.job_id) == ["cancelled"]
    # a result that arrives for an older job is dropped by the controller
    c._on_finished(first.job_id, shown[0])
    c._on_errored(first.job_id, "old failure")
    assert len(shown) == 1 and not c.busy


def test_every_job_ends_exactly_once(qtbot, make_worker):
    w = make_worker(scripted(3, delay=0.005))
    rec = Recorder(w)
    reqs = [request() for _ in range(6)]
    for r in reqs:
        w.submit(r)
    qtbot.waitUntil(lambda: bool(rec.ends(reqs[-1].job_id)), timeout=5000)
    qtbot.wait(50)
    assert rec.ends(reqs[-1].job_id) == ["finished"]
    for r in reqs[:-1]:
        assert rec.ends(r.job_id) == ["cancelled"]  # superseded before or while running


def test_errors_are_reported_not_swallowed(qtbot, make_worker):
    w = make_worker(scripted(1, fail=ValueError("bad data: nothing to image")))
    c = Controller(lambda task: request(), w)
    with qtbot.waitSignal(c.job_failed, timeout=5000) as blocker:
        c.submit()
    assert blocker.args == ["bad data: nothing to image"] and not c.busy
    w2 = make_worker(scripted(1, fail=ZeroDivisionError("division by zero")))
    with qtbot.waitSignal(w2.errored, timeout=5000) as blocker:
        w2.submit(request())
    first, *rest = blocker.args[1].splitlines()
    assert first == "ZeroDivisionError: division by zero"
    assert any("Traceback" in line for line in rest)


def test_invalid_model_is_an_error_not_a_job(qtbot, make_worker):
    w = make_worker(scripted(1))
    rec = Recorder(w)

    def freeze(task):
        raise ValueError("need ha_start_h < ha_stop_h")

    c = Controller(freeze, w)
    with qtbot.waitSignal(c.job_failed, timeout=1000) as blocker:
        assert c.submit() is None
    assert "ha_start_h" in blocker.args[0]
    qtbot.wait(50)
    assert rec.events == [] and c.latest_job_id is None


def test_partials_are_rate_limited(qtbot, make_worker):
    w = make_worker(scripted(60, delay=0.005, partials=True), partial_interval_s=0.1)
    rec = Recorder(w)
    t0 = time.monotonic()
    with qtbot.waitSignal(w.finished, timeout=5000):
        w.submit(request())
    elapsed = time.monotonic() - t0
    n = len(rec.of("partial"))
    assert 1 <= n <= elapsed / 0.1 + 1.5


def test_edits_are_debounced_into_one_job(qtbot, make_worker):
    w = make_worker(scripted(1))
    submitted = []
    c = Controller(lambda task: request(), w, debounce_ms=80, leading=False)
    c.submitted.connect(submitted.append)
    for _ in range(5):
        c.schedule()
        qtbot.wait(20)
    assert submitted == []
    with qtbot.waitSignal(c.result_ready, timeout=5000):
        pass
    assert len(submitted) == 1


def test_first_edit_when_idle_runs_at_once_and_a_burst_ends_in_one_more(qtbot, make_worker):
    w = make_worker(scripted(1))
    submitted = []
    c = Controller(lambda task: request(), w, debounce_ms=80)
    c.submitted.connect(submitted.append)
    shown = []
    c.result_ready.connect(lambda r: shown.append(r.job_id))
    c.schedule()  # idle and quiet: no debounce wait
    assert len(submitted) == 1 and not c.debounce.isActive()
    for _ in range(4):  # the rest of the burst: one job when it ends
        qtbot.wait(20)
        c.schedule()
        assert len(submitted) == 1 and c.debounce.isActive()
    qtbot.waitUntil(lambda: len(submitted) == 2, timeout=2000)
    qtbot.waitUntil(lambda: not c.busy, timeout=5000)
    assert shown[-1] == submitted[-1].job_id == c.latest_job_id
    qtbot.wait(100)  # quiet again: the next edit runs at once
    c.schedule()
    assert len(submitted) == 3
