"""Start the GUI: build the QApplication and the main window, or take a screenshot."""

from __future__ import annotations

import os
import sys
from dataclasses import replace


def initial_state(scene: str | None = None, session: str | None = None, device: str | None = None):
    """The starting SessionState: a session file, a scene file, or the default state."""
    from uvlab.app.lab.session import default_session, load_session

    if session:
        state = load_session(session)
    elif scene:
        state = load_session(scene, what="scene")
    else:
        state = default_session()
    return replace(state, device=device) if device else state


#: The QApplication, alive until the process ends (set by :func:`launch`).
_APP = None


def _dispose(app, window) -> None:
    """Destroy the (closed) window now, while the QApplication lives.

    Left to the end of ``launch``, the frame's locals were released in no set
    order: when the QApplication went first, the window's widgets were
    destroyed without it, and the process crashed at exit (SIGSEGV after the
    screenshot was written, 3 runs in 8 on a loaded machine).
    """
    from PyQt6 import QtCore

    window.deleteLater()
    app.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete.value)
    app.processEvents()


def launch(
    *,
    scene: str | None = None,
    session: str | None = None,
    screenshot: str | None = None,
    device: str | None = None,
    timeout_s: float = 300.0,
    argv: list[str] | None = None,
    tab: str | None = None,
    compare: list[str] | None = None,
    image_sky: str | None = None,
    lecture: bool = False,
) -> int:
    """Open the window and run the event loop; returns the exit status.

    With ``screenshot``, waits for the first complete result, saves the window
    as a PNG and returns 0 (1 on error or timeout). Without a display (no
    ``DISPLAY``/``WAYLAND_DISPLAY``), screenshot mode renders offscreen.
    ``tab`` brings a view tab to the front (a name of
    :data:`~uvlab.app.gui.tabs.VIEW_TABS`); ``compare`` lists gridders
    to compare once the first image is shown (the screenshot then waits for
    the comparison). ``tab="deconvolution"`` runs a CLEAN, ``tab="aliasing"``
    computes the aliasing maps once the first image is shown (the screenshot
    waits for it). ``image_sky`` (a picture or FITS
    file, or a drawn picture's name) replaces the sky once the first image
    gives the field of view. ``lecture`` opens in the lecture layout
    (:mod:`uvlab.app.gui.lecture_layout`).
    """
    headless = not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if screenshot and headless and sys.platform.startswith("linux"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    state = initial_state(scene, session, device)  # errors before any window opens
    from uvlab.app.gui.qt_platform import check_xcb

    check_xcb()  # names the library really missing (Qt's own hint is always xcb-cursor)

    from PyQt6 import QtWidgets

    from uvlab.app.gui.main_window import MainWindow
    from uvlab.app.gui.settings import APPLICATION, ORGANISATION

    global _APP  # kept to the end of the process: see _dispose
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(argv or ["uvlab"])
    _APP = app
    app.setOrganizationName(ORGANISATION)
    app.setApplicationName(APPLICATION)
    _set_icon(app)
    window = MainWindow(state)
    if compare:
        window.compare.start(compare)  # an edit of the entries: the model's
    if tab:
        window.show_tab(tab)
    if lecture:
        window.lecture.set_on(True)
    follow_ups = []
    if image_sky:
        follow_ups.append(lambda: _use_image_sky(window, image_sky))
    computed = {"deconvolution": "clean", "aliasing": "aliasing"}.get(tab or "")
    if computed:  # the tab's own computation, once the first image is shown
        follow_ups.append(lambda: window.controller.submit(computed))
    _after_first_images(window, follow_ups)
    if screenshot and headless:  # the offscreen platform's screen is only 800 × 800
        window.resize(1800, 1050)
    window.show()
    if screenshot:
        from uvlab.app.gui.screenshot import screenshot_when_ready

        task = "compare" if compare else computed or "image"
        skip = 1 if image_sky and task == "image" else 0  # the image sky's result
        rc = screenshot_when_ready(window, screenshot, timeout_s, task=task, skip=skip)
        window.close()
        _dispose(app, window)
        return rc
    stopped = close_on_signals(window)
    rc = app.exec()
    _dispose(app, window)
    if stopped():
        from uvlab.app.runtime.signals import signal_name

        print(f"uvlab gui: interrupted ({signal_name(stopped())}); window closed", file=sys.stderr)
        return 128 + stopped()
    return int(rc)


def _use_image_sky(window, source: str) -> None:
    """Make ``source`` the sky: a drawn picture's name, else a file."""
    from uvlab.app.skymodel.demo_pictures import DEMO_PICTURES

    if source.strip().lower() in DEMO_PICTURES:
        window.sky_panel.use_picture(source.strip().lower())
    else:
        window.sky_panel.load_image_file(source)


def _after_first_images(window, steps: list) -> None:
    """Run ``steps`` one per image result, from the first (each may submit a job)."""
    if not steps:
        return
    pending = list(steps)

    def on_result(result) -> None:
        if result.task != "image":
            return
        step = pending.pop(0)
        if not pending:
            window.controller.result_ready.disconnect(on_result)
        step()

    window.controller.result_ready.connect(on_result)


def close_on_signals(window):
    """SIGINT and SIGTERM close ``window`` through its normal path (the worker is cancelled).

    Python runs signal handlers only between bytecodes, never inside Qt's
    event loop, so a timer gives it a chance every 200 ms; the handler only
    queues ``window.close()`` (an exception raised inside a Qt slot would abort
    the process). Returns a function giving the signal received, or 0.
    """
    import signal

    from PyQt6 import QtCore

    from uvlab.app.runtime.signals import CANCEL_SIGNALS

    got = {"signum": 0}

    def handler(signum, frame):
        got["signum"] = int(signum)
        QtCore.QTimer.singleShot(0, window.close)

    for sig in CANCEL_SIGNALS:
        signal.signal(sig, handler)
    timer = QtCore.QTimer(window)
    timer.timeout.connect(lambda: None)
    timer.start(200)
    return lambda: got["signum"]


def _set_icon(app) -> None:
    """The window icon, and the desktop-file name Wayland matches it by."""
    from PyQt6 import QtGui

    from uvlab.resources.icons import APP_ID, icon_files

    icon = QtGui.QIcon()
    for path in icon_files():
        icon.addFile(str(path))
    app.setWindowIcon(icon)
    app.setDesktopFileName(APP_ID)
