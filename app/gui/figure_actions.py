"""The window's *Save figure…*: a view (or a set of views) as a captioned figure file.

Each sky image view's "…" menu has *Save figure…*
(:attr:`~uvlab.widgets.image_view.SkyImageView.figure_requested`); the lecture
layout saves its six panels in one figure. The panels and caption are drawn by
:mod:`uvlab.app.gui.figure_export`; this module asks for the file and reports
a failure in one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PyQt6 import QtWidgets

from uvlab.app.gui.figure_export import (
    FILE_FILTER,
    Panel,
    caption_for,
    image_panel,
    render_figure,
)

if TYPE_CHECKING:
    from uvlab.app.gui.main_window import MainWindow


class FigureActions:
    """Save figures of ``window``'s views, captioned with the shown result's request."""

    def __init__(self, window: MainWindow):
        self._window = window
        v = window.views
        for name, view in (
            ("dirty", v.dirty_view),
            ("psf", v.psf_view),
            ("sky-model", v.sky_view),
            ("clean-restored", v.deconv_view.restored_view),
            ("clean-residual", v.deconv_view.residual_view),
            ("clean-model", v.deconv_view.model_view),
        ):
            view.figure_requested.connect(
                lambda view=view, name=name: self.ask_save([image_panel(view)], name)
            )

    def caption(self, panels: list[Panel] = ()) -> str:
        """What the shown pictures are, in which units, and whether they are out of date."""
        stale = self._window.stale
        units = tuple(p.units for p in panels)
        return caption_for(stale.shown_request, stale=stale.text("dirty_view"), units=units)

    def save(self, panels: list[Panel | None], path) -> Path:
        """Write the figure of ``panels`` (empty ones left out) to ``path``; raises on failure."""
        shown = [p for p in panels if p is not None]
        return render_figure(shown, self.caption(shown), path)

    def ask_save(self, panels: list[Panel | None], name: str = "figure") -> Path | None:
        """Ask for a file and save the figure there; a failure is one line in the status bar."""
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self._window, "Save figure", f"{name}.png", FILE_FILTER
        )
        if not path:
            return None
        try:
            saved = self.save(panels, path)
        except (OSError, ValueError) as exc:
            self._window.report_error(str(exc))
            return None
        self._window.statusBar().showMessage(f"Figure saved to {saved}")
        return saved
