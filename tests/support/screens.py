"""A window sized as on a given screen, with its Controls dock as wide as it gets there.

What :mod:`tests.support.window_probe`'s ``--also`` does for its shots, for the GUI
tests that run in the test process (offscreen, on the platform's default screen):
:func:`window_size` is the window's size on a screen (``screen_fit``'s preferred size,
inside it), :func:`size_as_on` resizes a window and its dock to it.
"""

from __future__ import annotations

from PyQt6 import QtCore, QtWidgets

from uvlab.app.gui.screen_fit import FRAME_ALLOWANCE, PREFERRED_SIZE, dock_width


def window_size(screen: tuple[int, int]) -> tuple[int, int]:
    """The window's size on that screen (screen_fit: the preferred size, inside it)."""
    return tuple(min(p, s - a) for p, s, a in zip(PREFERRED_SIZE, screen, FRAME_ALLOWANCE))


def size_as_on(window, screen: tuple[int, int]) -> None:
    """Resize ``window`` and its Controls dock as on ``screen`` (logical px), and lay out."""
    window.resize(*window_size(screen))
    tabs = window.panel_tabs.tabBar().sizeHint().width()
    window.resizeDocks(
        [window.dock], [dock_width(window, screen[0]) + tabs], QtCore.Qt.Orientation.Horizontal
    )
    QtWidgets.QApplication.processEvents()
