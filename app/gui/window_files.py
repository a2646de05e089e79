"""File actions of the main window: MeasurementSets, sessions, FITS and PNG export.

:class:`FileActions` is an object the :class:`~uvlab.app.gui.main_window.MainWindow`
holds (``window.files``); what it uses of the window is :class:`FileHost`.
File dialogs open only in the ``ask_*`` methods; the others take a path, for
tests and scripts.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Protocol

from PyQt6 import QtGui, QtWidgets

from uvlab.app.lab.jobs import MSSelection

if TYPE_CHECKING:
    from uvlab.app.gui.settings import AppSettings
    from uvlab.app.gui.views import ViewTabs
    from uvlab.app.lab.session import SessionState
    from uvlab.app.lab.state import LabModel


class FileHost(Protocol):
    """What :class:`FileActions` uses of the window that holds it (a QMainWindow).

    The window is also the parent of the file dialogs.
    """

    settings: AppSettings
    views: ViewTabs  # the dirty view (default FITS export) and the last result (its WCS)
    model: LabModel  # the lab's state: what a session file holds

    def apply_session(self, state: SessionState, *, run: bool = True) -> None: ...

    def select_ms(self, selection: MSSelection) -> None:
        """Show ``selection`` (a path checked to be an MS) in the Observation panel and read it."""

    def report_error(self, message: str) -> None:
        """Show a one-line problem in the status bar and the log."""

    def statusBar(self) -> QtWidgets.QStatusBar: ...

    def grab(self) -> QtGui.QPixmap: ...


class FileActions:
    """Open and save: MeasurementSets (and their recent list), sessions, FITS, PNG.

    Parameters
    ----------
    window : FileHost
        The main window.
    """

    def __init__(self, window: FileHost) -> None:
        self._window = window
        self._settings = window.settings
        self.recent_menu: QtWidgets.QMenu | None = None

    # ------------------------------------------------------- MeasurementSets
    def add_recent_menu(self, menu: QtWidgets.QMenu) -> QtWidgets.QMenu:
        """Add the *Recent MeasurementSets* submenu to ``menu``; it stays up to date."""
        self.recent_menu = menu.addMenu("Recent MeasurementSets")
        self._fill_recent_menu()
        return self.recent_menu

    def _fill_recent_menu(self) -> None:
        if self.recent_menu is None:
            return
        self.recent_menu.clear()
        for path in self._settings.recent_ms():
            self.recent_menu.addAction(path).triggered.connect(
                lambda _=False, p=path: self.open_ms(p)
            )
        self.recent_menu.setEnabled(bool(self._settings.recent_ms()))

    def ask_open_ms(self) -> None:
        """Ask for a MeasurementSet folder and open it."""
        path = QtWidgets.QFileDialog.getExistingDirectory(
            self._window, "Open MeasurementSet (a folder)", self._settings.last_dir("ms")
        )
        if path:
            self.open_ms(path)

    def open_ms(self, path: str) -> bool:
        """Remember ``path`` as recent and let the window select and read it (summary first).

        A path that is not a MeasurementSet is refused with one line in the
        status bar, and neither the window nor the recent list changes; returns False.
        """
        from uvlab.app.ms.errors import MSError
        from uvlab.app.ms.tables import check_path

        try:
            check_path(path)
        except MSError as exc:
            self._window.report_error(f"cannot open MeasurementSet: {exc}")
            return False
        self._settings.add_recent_ms(path)
        self._settings.set_last_dir("ms", path)
        self._fill_recent_menu()
        self._window.select_ms(MSSelection(os.fspath(path)))
        return True

    # -------------------------------------------------------------- sessions
    def save_session(self, path) -> bool:
        """Save the lab's state (the model's) as a session JSON; False (and a message) if not."""
        from uvlab.app.lab.session import save_session

        try:
            save_session(self._window.model.state.session(), path)
        except (ValueError, OSError) as exc:
            self._window.report_error(f"cannot save session: {exc}")
            return False
        self._settings.add_recent("session", path)
        self._window.statusBar().showMessage(f"Session saved to {path}")
        return True

    def load_session(self, path) -> bool:
        """Load a session JSON into the window and run it; False (and a message) if not."""
        from uvlab.app.lab.session import load_session

        try:
            state = load_session(path)
        except ValueError as exc:
            self._window.report_error(str(exc))
            return False
        self._settings.add_recent("session", path)
        self._window.apply_session(state)
        return True

    def ask_save_session(self) -> None:
        """Ask for a path and save the session there."""
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self._window, "Save session", "session.uvlab.json", "uvlab session (*.json)"
        )
        if path:
            self.save_session(path)

    def ask_load_session(self) -> None:
        """Ask for a session file and load it."""
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self._window, "Open session", "", "uvlab session (*.json);;All (*)"
        )
        if path:
            self.load_session(path)

    # ---------------------------------------------------------------- export
    def ask_export_fits(self, view=None, name: str = "dirty") -> None:
        """Ask for a path and save ``view``'s image (the dirty image by default) as FITS."""
        view = view or self._window.views.dirty_view
        if view.image() is None or view.spec() is None:
            self._window.report_error(f"nothing to save: the {name} view is empty")
            return
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self._window, "Save FITS", f"{name}.fits", "FITS (*.fits)"
        )
        if path:
            self.export_view_fits(view, path)

    def export_view_fits(self, view, path) -> None:
        """Write what ``view`` shows (unstretched) as FITS with the result's WCS."""
        from uvlab.app.outputs.fits_io import write_image_fits

        out = self._window.views.last_image
        if out is None:
            self._window.report_error("nothing to save yet: no result")
            return
        try:
            write_image_fits(
                path,
                view.image(),
                view.spec(),
                math.degrees(out.ra0_rad),
                math.degrees(out.dec0_rad),
                freq_hz=float(out.freq_hz.mean()),
                bunit=view.units() if view.units() in ("Jy/beam", "Jy/pixel") else "",
            )
        except (ValueError, OSError) as exc:
            self._window.report_error(f"cannot write FITS: {exc}")

    def ask_screenshot(self) -> None:
        """Ask for a path and save the window there as PNG."""
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self._window, "Save PNG", "uvlab.png", "PNG (*.png)"
        )
        if path:
            self.save_screenshot(path)

    def save_screenshot(self, path) -> bool:
        """Save the window as PNG, atomically after a space check; False (and a message) if not."""
        from uvlab.app.outputs.atomic import save_qimage

        try:
            save_qimage(self._window.grab(), path, "PNG")
        except OSError as exc:
            self._window.report_error(f"cannot save screenshot: {exc}")
            return False
        return True
