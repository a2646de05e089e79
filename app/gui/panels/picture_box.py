"""The sky panel's *Image sky* group: a drawn picture or an image file as the sky.

The controls (a drawn picture and its button, *Open image…*, *Clear image*, a picture's
width and total flux) and the line that says what the image sky is. The group only
holds the controls; :class:`~uvlab.app.gui.panels.sky_panel.SkyPanel` reads the sky
and connects the buttons.
"""

from __future__ import annotations

import math

from PyQt6 import QtWidgets


class PictureBox(QtWidgets.QGroupBox):
    """The *Image sky* controls and the description of the image sky shown."""

    def __init__(self, parent=None):
        from uvlab.app.skymodel.demo_pictures import DEMO_PICTURES

        super().__init__("Image sky", parent)
        self.picture_combo = QtWidgets.QComboBox()
        self.picture_combo.addItems(DEMO_PICTURES)
        self.picture_combo.setToolTip("Pictures uvlab draws: a radio galaxy, a spiral, a ring")
        self.picture_button = QtWidgets.QPushButton("Use picture")
        self.open_image_button = QtWidgets.QPushButton("Open image…")
        self.open_image_button.setToolTip("A picture (PNG, JPEG, …) or a FITS image as the sky")
        self.clear_image_button = QtWidgets.QPushButton("Clear image")
        self.width_spin = QtWidgets.QDoubleSpinBox()
        self.width_spin.setRange(0.0, 6000.0)
        self.width_spin.setDecimals(2)
        self.width_spin.setSpecialValueText("width auto")
        self.width_spin.setSuffix("′ wide")
        self.width_spin.setToolTip("A picture's angular width; auto: half the image's field")
        self.image_flux_spin = QtWidgets.QDoubleSpinBox()
        self.image_flux_spin.setRange(1e-6, 1e6)
        self.image_flux_spin.setDecimals(3)
        self.image_flux_spin.setValue(1.0)
        self.image_flux_spin.setSuffix(" Jy")
        self.image_flux_spin.setToolTip("A picture's total flux")
        self.image_label = QtWidgets.QLabel("none")
        self.image_label.setWordWrap(True)
        grid = QtWidgets.QGridLayout(self)
        grid.setContentsMargins(4, 4, 4, 4)
        grid.addWidget(self.picture_combo, 0, 0)
        grid.addWidget(self.picture_button, 0, 1)
        grid.addWidget(self.width_spin, 1, 0)
        grid.addWidget(self.image_flux_spin, 1, 1)
        grid.addWidget(self.open_image_button, 2, 0)
        grid.addWidget(self.clear_image_button, 2, 1)
        grid.addWidget(self.image_label, 3, 0, 1, 2)
        self.show_sky(None)

    def width_arcmin(self, field_of_view_rad: float | None) -> float:
        """A picture's width, arcmin: the control's, or (*auto*) half the field of view
        (4′ when the field is not known)."""
        if self.width_spin.value() > 0:
            return self.width_spin.value()
        if field_of_view_rad:
            return 0.5 * math.degrees(field_of_view_rad) * 60.0
        return 4.0

    def flux_jy(self) -> float:
        """A picture's total flux, Jy."""
        return self.image_flux_spin.value()

    def show_sky(self, sky) -> None:
        """Describe ``sky`` (an :class:`~uvlab.app.skymodel.image_sky.ImageSky`, or None)."""
        self.clear_image_button.setEnabled(sky is not None)
        if sky is None:
            self.image_label.setText("none")
            return
        where = "at its WCS position" if not sky.relative else (
            f"{math.degrees(sky.pixel_rad * sky.image.shape[1]) * 60:.3g}′ wide, "
            "centred on the phase centre"
        )  # fmt: skip
        notes = "; ".join(sky.notes)
        self.image_label.setText(
            f"“{sky.name}”: {sky.image.shape[1]}×{sky.image.shape[0]} pixels, "
            f"{sky.total_jy:.4g} Jy, {where}" + (f" ({notes})" if notes else "")
        )
