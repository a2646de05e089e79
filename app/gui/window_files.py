"""File actions of the main window: MeasurementSets, sessions, FITS and PNG export.

A mixin of :class:`~uvlab.app.gui.main_window.MainWindow`; it uses the
window's panels, settings, controller and views.
"""

from __future__ import annotations

import math
import os

from PyQt6 import QtWidgets

from uvlab.app.gui.jobs import MSSelection


class FileActions:
    """Open/save actions; file dialogs only in the ``_ask_*`` methods."""

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.recent_ms():
            self.recent_menu.addAction(path).triggered.connect(
                lambda _=False, p=path: self.open_ms(p)
            )
        self.recent_menu.setEnabled(bool(self.settings.recent_ms()))

    def _ask_open_ms(self) -> None:
        path = QtWidgets.QFileDialog.getExistingDirectory(
            self, "Open MeasurementSet (a folder)", self.settings.last_dir("ms")
        )
        if path:
            self.open_ms(path)

    def open_ms(self, path: str) -> None:
        """Select a MeasurementSet and read it in the worker (summary first)."""
        self.settings.add_recent_ms(path)
        self.settings.set_last_dir("ms", path)
        self.obs_panel.set_recent(self.settings.recent_ms())
        self._fill_recent_menu()
        self.obs_panel.set_ms_selection(MSSelection(os.fspath(path)))
        self.panel_tabs.setCurrentIndex(0)
        self.set_playing(False)
        self.controller.submit()

    def save_session(self, path) -> bool:
        from uvlab.app.gui.session import save_session

        try:
            save_session(self.session_state(), path)
        except (ValueError, OSError) as exc:
            self._on_panel_error(f"cannot save session: {exc}")
            return False
        self.settings.add_recent("session", path)
        self.statusBar().showMessage(f"Session saved to {path}")
        return True

    def load_session(self, path) -> bool:
        from uvlab.app.gui.session import load_session

        try:
            state = load_session(path)
        except ValueError as exc:
            self._on_panel_error(str(exc))
            return False
        self.settings.add_recent("session", path)
        self.apply_session(state)
        return True

    def _ask_save_session(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Save session", "session.uvlab.json", "uvlab session (*.json)"
        )
        if path:
            self.save_session(path)

    def _ask_load_session(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Open session", "", "uvlab session (*.json);;All (*)"
        )
        if path:
            self.load_session(path)

    def _ask_export_fits(self, view=None, name: str = "dirty") -> None:
        """Ask for a path and save ``view``'s image (the dirty image by default) as FITS."""
        view = view or self.views.dirty_view
        if view.image() is None or view.spec() is None:
            self._on_panel_error(f"nothing to save: the {name} view is empty")
            return
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Save FITS", f"{name}.fits", "FITS (*.fits)"
        )
        if path:
            self.export_view_fits(view, path)

    def export_view_fits(self, view, path) -> None:
        """Write what ``view`` shows (unstretched) as FITS with the result's WCS."""
        from uvlab.app.fits_io import write_image_fits

        out = self.views.last_image
        if out is None:
            self._on_panel_error("nothing to save yet: no result")
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
            self._on_panel_error(f"cannot write FITS: {exc}")

    def _ask_screenshot(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Save PNG", "uvlab.png", "PNG (*.png)"
        )
        if path:
            self.save_screenshot(path)

    def save_screenshot(self, path) -> bool:
        """Save the window as PNG, atomically after a space check; False (and a message) if not."""
        from uvlab.app.atomic import save_qimage

        try:
            save_qimage(self.grab(), path, "PNG")
        except OSError as exc:
            self._on_panel_error(f"cannot save screenshot: {exc}")
            return False
        return True
