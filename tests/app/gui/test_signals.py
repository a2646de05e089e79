"""SIGINT and SIGTERM close the window through its normal path: the running job is cancelled."""

from __future__ import annotations

import os
import signal

import pytest

from uvlab.app.gui.launch import close_on_signals


@pytest.fixture
def restore_handlers():
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    for s, h in saved.items():
        signal.signal(s, h)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_closes_the_window_and_stops_its_worker(
    make_window, small_state, qtbot, restore_handlers, sig
):
    w = make_window(small_state)  # its first job starts at once
    qtbot.waitUntil(lambda: w.controller.worker.thread.isRunning(), timeout=5000)
    received = close_on_signals(w)
    os.kill(os.getpid(), sig)
    qtbot.waitUntil(lambda: not w.isVisible(), timeout=10_000)
    assert received() == sig
    assert not w.controller.worker.thread.isRunning()  # closeEvent shut the worker down
