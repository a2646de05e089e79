"""The tool row of a sky image view, and the PNG its menu saves.

Two combos (colour map, stretch) that shrink to four characters, *Fit*, and a "…" menu
(Auto levels, Save PNG…, Save figure…, Save FITS…): the view asks for little room. A
PNG is the plot as drawn without the crosshair.
"""

from __future__ import annotations

from pathlib import Path

from PyQt6 import QtGui, QtWidgets

from uvlab.widgets._display import STRETCHES
from uvlab.widgets._pg import COLORMAPS
from uvlab.widgets._save import save_image


class ToolsMixin:
    """Tool-row and export methods of :class:`~uvlab.widgets.image_view.SkyImageView`.

    The view provides ``plot_widget``, ``v_line``, ``h_line``, ``flush``, the slots the
    tools call (``set_colormap``, ``set_stretch``, ``auto_levels``, ``_on_fit_clicked``),
    the signals ``figure_requested`` and ``export_fits_requested``, and the state
    ``_cmap_name`` and ``_stretch``.
    """

    def _build_tools(self) -> QtWidgets.QHBoxLayout:
        """The tool row: ``cmap_combo``, ``stretch_combo``, ``fit_button``, ``menu_button``."""

        def combo(items, current, tip, slot) -> QtWidgets.QComboBox:
            box = QtWidgets.QComboBox()
            box.addItems(items)
            box.setCurrentText(current)
            box.setToolTip(tip)
            # as wide as its longest entry when there is room, four characters when not
            policies = QtWidgets.QComboBox.SizeAdjustPolicy
            box.setSizeAdjustPolicy(policies.AdjustToContents)
            box.setMaximumWidth(box.sizeHint().width())
            box.setSizeAdjustPolicy(policies.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(4)
            box.currentTextChanged.connect(slot)
            return box

        self.cmap_combo = combo(list(COLORMAPS), self._cmap_name, "Colour map", self.set_colormap)
        self.stretch_combo = combo(
            list(STRETCHES), self._stretch, "Stretch of the colour scale", self.set_stretch
        )
        self.fit_button = QtWidgets.QToolButton()
        self.fit_button.setText("Fit")
        self.fit_button.setToolTip(
            "Fit the image to the view. After a zoom or pan with the mouse, new images "
            "keep that range until Fit is pressed."
        )
        self.fit_button.clicked.connect(self._on_fit_clicked)
        menu = QtWidgets.QMenu(self)
        self.auto_levels_action = menu.addAction("Auto levels")
        self.auto_levels_action.triggered.connect(self.auto_levels)
        menu.addSeparator()
        self.png_action = menu.addAction("Save PNG…")
        self.png_action.triggered.connect(self._ask_png)
        self.figure_action = menu.addAction("Save figure…")
        self.figure_action.setToolTip("A captioned PNG, SVG or PDF for slides")
        self.figure_action.triggered.connect(self.figure_requested)
        self.fits_action = menu.addAction("Save FITS…")
        self.fits_action.setToolTip("Save the image as FITS")
        self.fits_action.triggered.connect(self.export_fits_requested)
        self.menu_button = QtWidgets.QToolButton()
        self.menu_button.setText("…")
        self.menu_button.setToolTip("Auto levels, save PNG, figure or FITS")
        self.menu_button.setMenu(menu)
        self.menu_button.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.InstantPopup)
        bar = QtWidgets.QHBoxLayout()
        bar.setSpacing(max(2, self.fontMetrics().averageCharWidth() // 2))
        bar.addWidget(self.cmap_combo, 1)
        bar.addWidget(self.stretch_combo, 1)
        bar.addStretch(1)
        bar.addWidget(self.fit_button)
        bar.addWidget(self.menu_button)
        return bar

    def export_png(self, path) -> Path:
        """Save the plot (image, axes, colour bar) as a PNG; returns the path.

        The crosshair is left out (a cursor overlay is no part of the
        picture); a stale-picture banner on the plot is kept. Saved through
        :func:`uvlab.widgets._save.save_image` (atomic in the desktop lab);
        raises :class:`OSError` naming the file on failure.
        """
        self.flush()
        return save_image(self.grab_plot(), path, "PNG")

    def grab_plot(self) -> QtGui.QPixmap:
        """The plot as drawn (image, axes, colour bar), without the crosshair."""
        self.flush()
        shown = [line.isVisible() for line in (self.v_line, self.h_line)]
        for line in (self.v_line, self.h_line):
            line.hide()
        try:
            return self.plot_widget.grab()
        finally:
            for line, visible in zip((self.v_line, self.h_line), shown, strict=True):
                line.setVisible(visible)

    def _ask_png(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Save PNG", "", "PNG (*.png)")
        if path:
            try:
                self.export_png(path)
            except OSError as exc:
                QtWidgets.QMessageBox.warning(self, "Save PNG", str(exc))
