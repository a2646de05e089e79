"""Fixtures for the GUI tests: a small scene, private settings, no dangling QThreads."""

from __future__ import annotations

import traceback
import weakref

import pytest
from PyQt6 import QtCore

from tests.support.observations import SMALL_OBS
from uvlab.app.gui.settings import AppSettings
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.placement import demo_sky_for


@pytest.fixture(autouse=True)
def no_dangling_qthreads(monkeypatch):
    """Fail a test that leaves a QThread running (napari's ``dangling_qthreads``)."""
    started: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
    base_start = QtCore.QThread.start

    def start(self, *args):
        started[self] = "".join(traceback.format_stack(limit=6)[:-1])
        base_start(self, *args)

    monkeypatch.setattr(QtCore.QThread, "start", start)
    yield
    running = []
    for thread, where in list(started.items()):
        try:
            if thread.isRunning():
                running.append(where)
        except RuntimeError:  # the C++ object is gone: not running
            pass
    if running:
        for thread in list(started):
            try:
                thread.quit()
                thread.wait(5000)
            except RuntimeError:
                pass
        pytest.fail(f"{len(running)} QThread(s) left running, started at:\n" + "\n".join(running))


@pytest.fixture
def settings(tmp_path):
    """AppSettings in a private INI file."""
    q = QtCore.QSettings(str(tmp_path / "uvlab-test.ini"), QtCore.QSettings.Format.IniFormat)
    return AppSettings(q)


@pytest.fixture
def small_state():
    """A SessionState on SMALL_OBS with the teaching sky at 128² pixels."""
    from uvlab.app.lab.session import SessionState

    imaging = ImagingOptions(npix=128)
    return SessionState(
        observation=SMALL_OBS,
        sky=demo_sky_for("teaching", SMALL_OBS, imaging),
        imaging=imaging,
        device="cpu",
    )


@pytest.fixture
def make_window(qtbot, settings):
    """Factory: a MainWindow on a state, registered with qtbot, shut down after the test."""
    from uvlab.app.gui.main_window import MainWindow

    windows = []

    def make(state, *, run_on_start: bool = True):
        w = MainWindow(state, settings=settings, run_on_start=run_on_start)
        qtbot.addWidget(w)
        windows.append(w)
        w.resize(1400, 900)
        w.show()
        return w

    yield make
    for w in windows:
        w.controller.shutdown()


@pytest.fixture
def wait_result(qtbot):
    """``wait_result(window)``: wait for the window's next result and its drawing; the JobResult.

    The views draw a result in steps after ``result_ready`` (so that drawing never stalls
    the GUI); on a busy machine those steps come later, so the wait includes them.
    """

    def wait(window, timeout=30_000):
        with qtbot.waitSignal(window.controller.result_ready, timeout=timeout) as blocker:
            pass
        qtbot.waitUntil(lambda: not window.views.is_drawing(), timeout=timeout)
        return blocker.args[0]

    return wait
