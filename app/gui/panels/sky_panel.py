"""Sky model panel: a table editor of components, demo skies, sky files, image skies.

Each row is one :class:`~uvlab.app.skymodel.Component`; the headers carry the
units. Below the table, an image sky
(:class:`~uvlab.app.skymodel.image_sky.ImageSky`): a drawn picture, or a
picture (PNG, JPEG, …) or FITS image from a file; it replaces the components
(clicks still add points on top of it), and a demo sky or a sky file replaces
it. A picture is given a width (*auto*: half the image's field of view) and a
total flux; a FITS image sits where its WCS says. A file that cannot be read
as an image sky leaves the sky as it was, with one line on ``error``.

An edited row is rebuilt into a Component: if that fails (not a number,
minor > major, …) the row turns red, the reason goes to the status bar, and
the model keeps its previous value. Clicking on an image view adds a point
source there (:meth:`add_point_at`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from PyQt6 import QtCore, QtGui, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.app.gui.panels.picture_box import PictureBox
from uvlab.app.gui.panels.sky_cells import (
    BAD_ROW,
    BRIEF_COLUMNS,
    COLUMNS,
    component_cells,
    component_from_cells,
)
from uvlab.app.skymodel import DEMO_SKIES, Component, SkyModel, SkyModelError

if TYPE_CHECKING:
    from uvlab.app.lab.state import SkyRecord


class SkyPanel(QtWidgets.QWidget):
    """Edit the sky model.

    Attributes
    ----------
    placement : callable() -> (ra0_deg, dec0_deg, freq_hz)
        The phase centre and frequency new components are placed with (set by the window).

    Signals
    -------
    changed()
    error(str)
    demo_requested(str)
        The user chose a demo sky (the window places it over the field of view).

    Attributes
    ----------
    field_of_view : callable() -> float or None
        The image's width in radians (set by the window): an *auto* picture
        width is half of it.
    """

    changed = pyqtSignal()
    error = pyqtSignal(str)
    demo_requested = pyqtSignal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._model = SkyModel()
        self._image_sky = None
        self._image_source = None  # an ImageSkySource: how to read it again (sessions)
        self.field_of_view: Callable[[], float | None] = lambda: None
        self.placement: Callable[[], tuple[float, float, float]] = lambda: (0.0, -30.0, 1.4e9)
        self.table = QtWidgets.QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([h for _, h, _ in COLUMNS])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(
            QtWidgets.QHeaderView.ResizeMode.ResizeToContents
        )
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.name_label = QtWidgets.QLabel("")
        self.name_label.setWordWrap(True)
        self.add_button = QtWidgets.QPushButton("Add")
        self.add_button.setToolTip("Add a 1 Jy point at the phase centre")
        self.remove_button = QtWidgets.QPushButton("Remove")
        self.load_button = QtWidgets.QPushButton("Load…")
        self.save_button = QtWidgets.QPushButton("Save…")
        self.demo_combo = QtWidgets.QComboBox()
        for name, text in DEMO_SKIES.items():
            self.demo_combo.addItem(name, name)
            self.demo_combo.setItemData(
                self.demo_combo.count() - 1, text, QtCore.Qt.ItemDataRole.ToolTipRole
            )
        self.demo_button = QtWidgets.QPushButton("Use demo sky")
        self.click_check = QtWidgets.QCheckBox("Clicks on images add")
        self.click_check.setChecked(True)
        self.click_check.setToolTip("A click on the dirty or sky-model image adds a point there")
        self.click_flux = QtWidgets.QDoubleSpinBox()
        self.click_flux.setRange(-1e4, 1e4)
        self.click_flux.setDecimals(3)
        self.click_flux.setValue(0.5)
        self.click_flux.setSuffix(" Jy")
        self.all_columns_check = QtWidgets.QCheckBox("All columns")
        self.all_columns_check.setToolTip(
            "Show Q, U, V, spectral index, reference frequency and Gaussian shape too"
        )
        self.all_columns_check.toggled.connect(self.show_all_columns)

        grid = QtWidgets.QGridLayout()  # two columns: fits a narrow dock
        grid.addWidget(self.add_button, 0, 0)
        grid.addWidget(self.remove_button, 0, 1)
        grid.addWidget(self.load_button, 1, 0)
        grid.addWidget(self.save_button, 1, 1)
        grid.addWidget(self.demo_combo, 2, 0)
        grid.addWidget(self.demo_button, 2, 1)
        grid.addWidget(self.click_check, 3, 0)
        grid.addWidget(self.click_flux, 3, 1)
        grid.addWidget(self.all_columns_check, 4, 0)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.name_label)
        lay.addWidget(self.table, 1)
        lay.addLayout(grid)
        self.picture_box = PictureBox()
        lay.addWidget(self.picture_box)

        self.show_all_columns(False)
        self.table.itemChanged.connect(self._on_item_changed)
        self.add_button.clicked.connect(self._add_at_centre)
        self.remove_button.clicked.connect(self.remove_selected)
        self.load_button.clicked.connect(self._ask_load)
        self.save_button.clicked.connect(self._ask_save)
        self.demo_button.clicked.connect(
            lambda: self.demo_requested.emit(self.demo_combo.currentData())
        )
        box = self.picture_box
        box.picture_button.clicked.connect(
            lambda: self.use_picture(box.picture_combo.currentText())
        )
        box.open_image_button.clicked.connect(self._ask_image)
        box.clear_image_button.clicked.connect(lambda: self.set_image_sky(None, emit=True))

    def show_all_columns(self, on: bool) -> None:
        """Show every column, or only :data:`BRIEF_COLUMNS` (the narrow default)."""
        for k, (field, _, _) in enumerate(COLUMNS):
            self.table.setColumnHidden(k, not on and field not in BRIEF_COLUMNS)
        with QtCore.QSignalBlocker(self.all_columns_check):
            self.all_columns_check.setChecked(on)

    # ------------------------------------------------------------------ model
    def sky_model(self) -> SkyModel:
        return self._model

    def image_sky(self):
        """The image sky (an :class:`~uvlab.app.skymodel.image_sky.ImageSky`), or None."""
        return self._image_sky

    def image_source(self):
        """Where the image sky came from (an ImageSkySource), or None."""
        return self._image_source

    def record(self) -> SkyRecord:
        """The sky shown, as the lab's record: the components and the image sky's source."""
        from uvlab.app.lab.state import SkyRecord

        return SkyRecord(self._model, self._image_source)

    def set_image_sky(
        self, sky, *, emit: bool = False, source=None, replace_components: bool = True
    ) -> None:
        """Make ``sky`` (or None) the image sky; it replaces the components (if asked).

        ``source`` (an :class:`~uvlab.app.lab.session.ImageSkySource`) is what a
        saved session records of it.
        """
        self._image_sky = sky
        self._image_source = source if sky is not None else None
        if sky is not None and len(self._model) and replace_components:
            self.set_sky_model(SkyModel(name=sky.name), keep_image=True)
        self.picture_box.show_sky(sky)
        if emit:
            self.changed.emit()

    def use_picture(self, name: str) -> bool:
        """Make a drawn picture the sky (width and flux from the controls)."""
        return self.load_image_source(self._source(f"picture:{name}"))

    def load_image_file(self, path) -> bool:
        """Read a picture or FITS image as the sky; on error keep the sky and emit ``error``."""
        path = os.fspath(path)
        fits = path.lower().endswith((".fits", ".fit", ".fts"))
        return self.load_image_source(self._source(path, fits))

    def _source(self, source: str, fits: bool = False):
        from uvlab.app.lab.session import ImageSkySource

        width = None if fits else self.picture_box.width_arcmin(self.field_of_view())
        return ImageSkySource(source, width, self.picture_box.flux_jy())

    def load_image_source(
        self, source, *, emit: bool = True, replace_components: bool = True
    ) -> bool:
        """Read an ImageSkySource as the sky; on error keep the sky, emit ``error`` (one line)."""
        try:
            sky = source.load()
        except (SkyModelError, OSError, ValueError) as exc:
            self.error.emit(f"cannot use image sky: {' '.join(str(exc).split())}")
            return False
        self.set_image_sky(sky, emit=emit, source=source, replace_components=replace_components)
        return True

    def _ask_image(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self,
            "Open an image as the sky",
            "",
            "Images (*.png *.jpg *.jpeg *.gif *.bmp *.tif *.tiff *.fits *.fit *.fts);;All (*)",
        )
        if path:
            self.load_image_file(path)

    def set_sky_model(
        self, model: SkyModel, *, emit: bool = False, keep_image: bool = False
    ) -> None:
        """Show ``model`` in the table (emit ``changed`` only if asked).

        A sky of components replaces the image sky unless ``keep_image``.
        """
        if not keep_image and self._image_sky is not None and len(model):
            self.set_image_sky(None)
        self._model = model
        with QtCore.QSignalBlocker(self.table):
            self.table.setRowCount(len(model))
            for r, c in enumerate(model):
                self._fill_row(r, c)
        self._update_name()
        if emit:
            self.changed.emit()

    def _fill_row(self, r: int, c: Component) -> None:
        for k, text in enumerate(component_cells(c)):
            item = QtWidgets.QTableWidgetItem(text)
            if k >= 2:
                item.setTextAlignment(
                    QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter
                )
            self.table.setItem(r, k, item)

    def _update_name(self) -> None:
        m = self._model
        flux = m.total_flux() if len(m) else 0.0
        name = f"“{m.name}”: " if m.name else ""
        self.name_label.setText(f"{name}{len(m)} components, {flux:.4g} Jy total (Stokes I at ν₀)")

    def _row_cells(self, r: int) -> list[str]:
        return [
            (self.table.item(r, k).text() if self.table.item(r, k) else "")
            for k in range(len(COLUMNS))
        ]

    def _on_item_changed(self, item: QtWidgets.QTableWidgetItem) -> None:
        r = item.row()
        if r >= len(self._model):
            return
        try:
            comp = component_from_cells(self._row_cells(r))
            if any(c.name == comp.name for k, c in enumerate(self._model) if k != r):
                raise SkyModelError(f"a component named {comp.name!r} exists already")
        except ValueError as exc:
            self._mark_row(r, True)
            self.error.emit(f"sky row {r + 1} not accepted: {exc}")
            return
        self._mark_row(r, False)
        self._model = self._model.replace(r, comp)
        self._update_name()
        self.changed.emit()

    def _mark_row(self, r: int, bad: bool) -> None:
        with QtCore.QSignalBlocker(self.table):
            for k in range(len(COLUMNS)):
                item = self.table.item(r, k)
                if item is not None:
                    item.setBackground(BAD_ROW if bad else QtGui.QBrush())

    def row_is_invalid(self, r: int) -> bool:
        item = self.table.item(r, 0)
        return item is not None and item.background().color() == BAD_ROW

    # ---------------------------------------------------------------- editing
    def _unique_name(self, stem: str) -> str:
        names = {c.name for c in self._model}
        k = 1
        while f"{stem}{k}" in names:
            k += 1
        return f"{stem}{k}"

    def add_component(self, comp: Component) -> None:
        self.set_sky_model(self._model.with_component(comp), emit=True, keep_image=True)

    def _add_at_centre(self) -> None:
        ra0, dec0, freq = self.placement()
        self.add_component(
            Component(self._unique_name("src"), "point", ra0, dec0, (1.0, 0.0, 0.0, 0.0), freq)
        )

    def add_point_at(self, l: float, m: float, ra0_rad: float, dec0_rad: float) -> Component | None:
        """Add a point of the chosen flux at direction cosines (l, m) about (ra0, dec0)."""
        from uvlab.gpu.geometry import lmn_to_radec

        if not self.click_check.isChecked() or l * l + m * m >= 1.0:
            return None
        ra, dec = lmn_to_radec(l, m, ra0_rad, dec0_rad)
        comp = Component(
            self._unique_name("click"),
            "point",
            math.degrees(float(ra)),
            math.degrees(float(dec)),
            (self.click_flux.value(), 0.0, 0.0, 0.0),
            self.placement()[2],
        )
        self.add_component(comp)
        return comp

    def remove_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True)
        if not rows and len(self._model):
            rows = [len(self._model) - 1]
        model = self._model
        for r in rows:
            model = model.without(r)
        self.set_sky_model(model, emit=True, keep_image=True)

    # ------------------------------------------------------------------ files
    def load_file(self, path) -> bool:
        """Load a sky file (uvlab v1 or WSClean); on error keep the model and emit ``error``."""
        from uvlab.app.skymodel import load_sky

        try:
            model = load_sky(path)
        except (SkyModelError, OSError, ValueError) as exc:
            self.error.emit(f"cannot load sky model: {exc}")
            return False
        self.set_sky_model(model, emit=True)
        return True

    def save_file(self, path) -> bool:
        from uvlab.app.skymodel import write_sky

        try:
            write_sky(self._model, path)
        except (SkyModelError, OSError) as exc:
            self.error.emit(f"cannot save sky model: {exc}")
            return False
        return True

    def _ask_load(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Load sky model", "", "Sky models (*.txt *.skymodel);;All (*)"
        )
        if path:
            self.load_file(path)

    def _ask_save(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Save sky model", "sky.txt", "uvlab sky model (*.txt)"
        )
        if path:
            self.save_file(path)
