"""The window's job clock (issue 28): a slow job is announced with its estimate as it
starts, the bar shows the time left, and each finished job teaches the clock.

Oracle: the jobs the window runs here (their measured elapsed time is what the next job of
the same kind is estimated from) and the run panel's and status bar's own text.
"""

from __future__ import annotations

import pytest

from uvlab.app.lab.job_time import job_kind


def test_a_slow_job_is_announced_and_shows_its_time_left(make_window, small_state, wait_result):
    w = make_window(small_state)
    w.run_panel.autorun_check.setChecked(False)
    first = wait_result(w)
    kind = job_kind(first.request)
    seconds, _ = w.clock.times.last[kind]  # learned from the job just run
    assert seconds == pytest.approx(first.elapsed_s)
    assert w.run_panel.time_left_text() is None  # nothing running: nothing left
    # a quick job: no notice
    w.statusBar().clearMessage()
    request = w.controller.submit()
    assert w.clock.estimate_s == pytest.approx(seconds)
    assert "will take" not in w.statusBar().currentMessage()
    wait_result(w)
    # the same kind once took a minute: the next is announced, and the bar counts down
    w.clock.times.last[kind] = (60.0, w.clock.times.last[kind][1])
    request = w.controller.submit()
    assert job_kind(request) == kind
    notice = w.statusBar().currentMessage()
    assert notice.startswith("imaging with ") and "will take about 60 s on this CPU" in notice
    assert "Cancel (Esc)" in notice
    assert "about 60 s left" in w.run_panel.time_left_text()  # before the worker has answered
    assert any("will take about 60 s" in line for line in w.views.log_view.lines())
    done = wait_result(w)
    assert w.run_panel.time_left_text() is None
    assert w.clock.times.last[kind][0] == pytest.approx(done.elapsed_s)  # 60 s forgotten
