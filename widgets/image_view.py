"""SkyImageView: a sky image in (l, m) arcmin with East to the left.

uvlab images are ``img[j, i]`` with ``l = −(i − N/2)·cell`` and
``m = (j − N/2)·cell`` (DESIGN §1, :mod:`uvlab.gpu.imaging.spec`). The view
places the ImageItem with a QTransform so that each pixel centre sits at its
(l, m) in arcmin, and inverts the x axis so that l (East) increases to the
left, as on the sky. Public l, m arguments and signals are direction
cosines (dimensionless, ≈ radians); only the axes are in arcmin.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PyQt6 import QtCore, QtGui, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.gpu.geometry import lmn_to_radec
from uvlab.gpu.imaging.spec import ImageSpec
from uvlab.widgets._display import (
    STRETCHES,
    apply_stretch,
    auto_levels,
    format_dms,
    format_hms,
)
from uvlab.widgets._pg import COLORMAPS, DIVERGING, get_colormap, pg, plain_axes
from uvlab.widgets._save import save_image

ARCMIN = np.pi / (180.0 * 60.0)


def pixel_transform(spec: ImageSpec) -> QtGui.QTransform:
    """Map ImageItem pixel corners to (l, m) arcmin: centre of (j, i) → (l_i, m_j)."""
    c = spec.cell_rad / ARCMIN
    off = c * (spec.npix // 2 + 0.5)
    return QtGui.QTransform(-c, 0.0, 0.0, c, off, -off)


class SkyImageView(QtWidgets.QWidget):
    """Show one sky image with a colour bar, stretch, crosshair and readout.

    Signals
    -------
    cursor_moved(dict)
        The readout under the mouse (see :meth:`readout_at`).
    crosshair_moved(float, float)
        (l, m) after the user dragged the crosshair or clicked.
    clicked(float, float)
        (l, m) of a left click in the plot, e.g. to add a source.
    export_fits_requested()
        The user asked for a FITS file (the app writes it).
    """

    cursor_moved = pyqtSignal(dict)
    crosshair_moved = pyqtSignal(float, float)
    clicked = pyqtSignal(float, float)
    export_fits_requested = pyqtSignal()

    def __init__(self, parent=None, *, colormap: str = "inferno", stretch: str = "linear"):
        super().__init__(parent)
        self._data: np.ndarray | None = None
        self._spec: ImageSpec | None = None
        self._radec0: tuple[float, float] | None = None
        self._units = "Jy/beam"
        self._stretch = stretch
        self._cmap_name = colormap
        self._setting_crosshair = False

        self.plot_widget = pg.GraphicsLayoutWidget()
        self.plot_item = self.plot_widget.addPlot()
        self.view_box = self.plot_item.getViewBox()
        self.view_box.setAspectLocked(True)
        self.view_box.invertX(True)
        plain_axes(self.plot_item)
        self.plot_item.setLabel("bottom", "l (arcmin), East ←")
        self.plot_item.setLabel("left", "m (arcmin), North ↑")
        self.image_item = pg.ImageItem(axisOrder="row-major")
        self.plot_item.addItem(self.image_item)
        self.color_bar = pg.ColorBarItem(
            colorMap=get_colormap(colormap), interactive=True, colorMapMenu=False, width=15
        )
        self.color_bar.setImageItem(self.image_item, insert_in=self.plot_item)

        pen = pg.mkPen((0, 220, 255, 160), width=1)
        self.v_line = pg.InfiniteLine(0.0, angle=90, movable=True, pen=pen)
        self.h_line = pg.InfiniteLine(0.0, angle=0, movable=True, pen=pen)
        for line in (self.v_line, self.h_line):
            line.setZValue(10)
            self.plot_item.addItem(line, ignoreBounds=True)
            line.sigPositionChanged.connect(self._on_line_moved)

        fits_action = self.view_box.menu.addAction("Export FITS…")
        fits_action.triggered.connect(self.export_fits_requested)
        self.readout_label = QtWidgets.QLabel(" ")
        self.readout_label.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse
        )
        self._build_layout()
        scene = self.plot_widget.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(self._on_mouse_clicked)

    def _build_layout(self) -> None:
        self.cmap_combo = QtWidgets.QComboBox()
        self.cmap_combo.addItems(list(COLORMAPS))
        self.cmap_combo.setCurrentText(self._cmap_name)
        self.cmap_combo.currentTextChanged.connect(self.set_colormap)
        self.stretch_combo = QtWidgets.QComboBox()
        self.stretch_combo.addItems(list(STRETCHES))
        self.stretch_combo.setCurrentText(self._stretch)
        self.stretch_combo.currentTextChanged.connect(self.set_stretch)
        auto = QtWidgets.QPushButton("Auto levels")
        auto.clicked.connect(self.auto_levels)
        png = QtWidgets.QPushButton("PNG…")
        png.clicked.connect(self._ask_png)
        self.fits_button = fits = QtWidgets.QPushButton("FITS…")
        fits.setToolTip("Save the image as FITS")
        fits.clicked.connect(self.export_fits_requested)
        bar = QtWidgets.QHBoxLayout()
        for label, w in (("Colour map", self.cmap_combo), ("Stretch", self.stretch_combo)):
            bar.addWidget(QtWidgets.QLabel(label))
            bar.addWidget(w)
        bar.addStretch(1)
        for w in (auto, png, fits):
            bar.addWidget(w)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(bar)
        layout.addWidget(self.plot_widget, 1)
        layout.addWidget(self.readout_label)

    # ----------------------------------------------------------------- data
    def set_image(
        self,
        img,
        spec: ImageSpec,
        ra0_rad: float | None = None,
        dec0_rad: float | None = None,
        *,
        title: str = "",
        units: str = "Jy/beam",
        keep_levels: bool = False,
    ) -> None:
        """Show an image.

        Parameters
        ----------
        img : (N, N) float
            ``img[j, i]`` in ``units``; NaN pixels are shown transparent.
        spec : ImageSpec
            Its geometry (``N = spec.npix``, cell size).
        ra0_rad, dec0_rad : float, optional
            Phase centre, radians; enables the RA/Dec readout.
        title, units : str
            Plot title and colour-bar units.
        keep_levels : bool
            Keep the current colour levels instead of fitting them to the data.
        """
        img = np.asarray(img)
        if img.ndim != 2 or img.shape != (spec.npix, spec.npix):
            raise ValueError(f"image shape {img.shape} does not match npix={spec.npix}")
        new_geometry = spec != self._spec
        self._data = np.array(img, dtype=np.result_type(img.dtype, np.float32), copy=True)
        self._spec = spec
        has_centre = ra0_rad is not None and dec0_rad is not None
        self._radec0 = (float(ra0_rad), float(dec0_rad)) if has_centre else None
        self._units = units
        self.plot_item.setTitle(title or None)
        self.image_item.setTransform(pixel_transform(spec))
        self._refresh(keep_levels=keep_levels)
        if new_geometry:
            half = spec.npix / 2 * spec.cell_rad / ARCMIN
            self.view_box.setRange(xRange=(-half, half), yRange=(-half, half), padding=0)

    def image(self) -> np.ndarray | None:
        """The data currently shown, before the stretch (None before set_image)."""
        return self._data

    def spec(self) -> ImageSpec | None:
        return self._spec

    def units(self) -> str:
        """Units of the image shown (as given to :meth:`set_image`)."""
        return self._units

    def levels(self) -> tuple[float, float]:
        """Colour-scale limits, in displayed (stretched) units."""
        lo, hi = self.color_bar.levels()
        return float(lo), float(hi)

    def set_levels(self, lo: float, hi: float) -> None:
        """Set the colour-scale limits, in displayed (stretched) units."""
        self.color_bar.setLevels((float(lo), float(hi)))

    def auto_levels(self) -> None:
        """Fit the colour scale to the displayed image."""
        shown = self.image_item.image
        if shown is not None:
            symmetric = self._cmap_name in DIVERGING and self._stretch != "log"
            lo, hi = auto_levels(shown, symmetric=symmetric)
            self.color_bar.rounding = (hi - lo) / 1000.0
            self.color_bar.setLevels((lo, hi))

    def _refresh(self, keep_levels: bool = False) -> None:
        if self._data is None:
            return
        self.image_item.setImage(apply_stretch(self._data, self._stretch), autoLevels=False)
        label = {"linear": "{}", "log": "log10({})", "asinh": "asinh({})"}[self._stretch]
        self.color_bar.getAxis("left").setLabel(label.format(self._units))
        if keep_levels:
            self.color_bar.setLevels(self.color_bar.levels())
        else:
            self.auto_levels()

    # --------------------------------------------------------------- display
    def set_colormap(self, name: str) -> None:
        """Choose a colour map by name (see ``uvlab.widgets._pg.COLORMAPS``)."""
        cmap = get_colormap(name)
        self._cmap_name = name
        self.color_bar.setColorMap(cmap)
        with QtCore.QSignalBlocker(self.cmap_combo):
            self.cmap_combo.setCurrentText(name)
        if name in DIVERGING:
            self.auto_levels()

    def colormap(self) -> str:
        return self._cmap_name

    def set_stretch(self, name: str) -> None:
        """Choose ``linear``, ``log`` or ``asinh``; refits the colour levels."""
        if name not in STRETCHES:
            raise ValueError(f"unknown stretch {name!r}; choose from {STRETCHES}")
        self._stretch = name
        with QtCore.QSignalBlocker(self.stretch_combo):
            self.stretch_combo.setCurrentText(name)
        self._refresh(keep_levels=False)

    def stretch(self) -> str:
        return self._stretch

    # -------------------------------------------------------------- crosshair
    def set_crosshair(self, l: float, m: float) -> None:
        """Move the crosshair to direction cosines (l, m) without emitting."""
        self._setting_crosshair = True
        try:
            self.v_line.setValue(l / ARCMIN)
            self.h_line.setValue(m / ARCMIN)
        finally:
            self._setting_crosshair = False

    def crosshair(self) -> tuple[float, float]:
        """(l, m) of the crosshair, direction cosines."""
        return self.v_line.value() * ARCMIN, self.h_line.value() * ARCMIN

    def _on_line_moved(self) -> None:
        if not self._setting_crosshair:
            self.crosshair_moved.emit(*self.crosshair())

    # ---------------------------------------------------------------- readout
    def readout_at(self, l: float, m: float) -> dict:
        """Everything the cursor readout shows at direction cosines (l, m).

        Returns
        -------
        dict
            ``l``, ``m`` (direction cosines), ``l_arcmin``, ``m_arcmin``;
            ``j``, ``i`` (nearest pixel, None outside the image) and
            ``value`` (None outside); ``ra_rad``, ``dec_rad``, ``ra_hms``,
            ``dec_dms`` (None without a phase centre); ``units``.
        """
        out = {"l": l, "m": m, "l_arcmin": l / ARCMIN, "m_arcmin": m / ARCMIN}
        out.update(j=None, i=None, value=None, units=self._units)
        out.update(ra_rad=None, dec_rad=None, ra_hms=None, dec_dms=None)
        if self._spec is not None:
            jf, if_ = self._spec.pixel_of(l, m)
            j, i = int(np.floor(jf + 0.5)), int(np.floor(if_ + 0.5))
            if 0 <= j < self._spec.npix and 0 <= i < self._spec.npix:
                out.update(j=j, i=i, value=float(self._data[j, i]))
        if self._radec0 is not None and l * l + m * m < 1.0:
            ra, dec = lmn_to_radec(l, m, *self._radec0)
            out.update(ra_rad=float(ra), dec_rad=float(dec))
            out.update(ra_hms=format_hms(ra), dec_dms=format_dms(dec))
        return out

    def _readout_text(self, r: dict) -> str:
        parts = []
        if r["j"] is not None:
            parts.append(f"j={r['j']} i={r['i']}")
        parts.append(f"l={r['l_arcmin']:+.3f}′ m={r['m_arcmin']:+.3f}′")
        if r["ra_hms"] is not None:
            parts.append(f"RA {r['ra_hms']} Dec {r['dec_dms']}")
        if r["value"] is not None:
            parts.append(f"{r['value']:.4g} {r['units']}")
        return "   ".join(parts)

    def _on_mouse_moved(self, scene_pos: QtCore.QPointF) -> None:
        if self._data is None or not self.view_box.sceneBoundingRect().contains(scene_pos):
            return
        p = self.view_box.mapSceneToView(scene_pos)
        r = self.readout_at(p.x() * ARCMIN, p.y() * ARCMIN)
        self.readout_label.setText(self._readout_text(r))
        self.cursor_moved.emit(r)

    def _on_mouse_clicked(self, ev) -> None:
        if ev.button() != QtCore.Qt.MouseButton.LeftButton or ev.double():
            return
        if not self.view_box.sceneBoundingRect().contains(ev.scenePos()):
            return
        p = self.view_box.mapSceneToView(ev.scenePos())
        l, m = p.x() * ARCMIN, p.y() * ARCMIN
        self.set_crosshair(l, m)
        self.crosshair_moved.emit(l, m)
        self.clicked.emit(l, m)

    # ----------------------------------------------------------------- export
    def export_png(self, path) -> Path:
        """Save the plot (image, axes, colour bar) as a PNG; returns the path.

        Saved through :func:`uvlab.widgets._save.save_image` (atomic in the
        desktop lab); raises :class:`OSError` naming the file on failure.
        """
        return save_image(self.plot_widget.grab(), path, "PNG")

    def _ask_png(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Save PNG", "", "PNG (*.png)")
        if path:
            try:
                self.export_png(path)
            except OSError as exc:
                QtWidgets.QMessageBox.warning(self, "Save PNG", str(exc))


def link_views(*views: SkyImageView) -> None:
    """Link zoom and pan of several image views (all share (l, m) arcmin axes)."""
    for v in views[1:]:
        v.plot_item.setXLink(views[0].plot_item)
        v.plot_item.setYLink(views[0].plot_item)


def link_crosshairs(*views: SkyImageView) -> None:
    """Make moving the crosshair in any view move it in all the others."""
    for a in views:
        for b in views:
            if a is not b:
                a.crosshair_moved.connect(b.set_crosshair)
