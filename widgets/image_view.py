"""SkyImageView: a sky image in (l, m) arcmin with East to the left.

uvlab images are ``img[j, i]`` with ``l = −(i − N/2)·cell`` and
``m = (j − N/2)·cell`` (DESIGN §1, :mod:`uvlab.gpu.imaging.spec`). The view
places the ImageItem with a QTransform so that each pixel centre sits at its
(l, m) in arcmin, and inverts the x axis so that l (East) increases to the
left, as on the sky. Public l, m arguments and signals are direction
cosines (dimensionless, ≈ radians); only the axes are in arcmin.

Zoom. Every :meth:`~SkyImageView.set_image` shows the image fitted to the
view (exactly: the image's pixel-edge extent fills the limiting axis, pixels
stay square), or the view's default zoom (:meth:`~SkyImageView.set_default_zoom`,
:meth:`~SkyImageView.zoom_to`), until the user zooms or pans with the mouse
(the ViewBox's ``sigRangeChangedManually``). From then on new images keep the
user's range, until *Fit* (:meth:`~SkyImageView.fit_to_image`) is pressed.
Programmatic ranges never count as a user zoom, except through
:meth:`~SkyImageView.set_view_range` with ``by_user=True`` (for views that
follow a user's zoom in another view).

Deferred drawing. ``set_image(..., defer=True)`` only stores the image:
:meth:`~SkyImageView.image`, :meth:`~SkyImageView.spec` and the other data
accessors answer with it at once, and the stretch, levels, title and zoom are
drawn by :meth:`~SkyImageView.flush` (the main window calls it one view per
event-loop iteration, so that drawing a result never stalls the GUI), when
the view is next shown (a view in a hidden tab costs nothing until then), or
before anything that reads or changes the drawn state (levels, ticks, PNG).

Display. The default stretch is ``asinh`` and levels run from the 0.5th
percentile to the peak (:mod:`uvlab.widgets._display`), so sidelobes and faint
sources show at once. The colour bar is labelled with the units and the
stretch; for log and asinh its ticks are in data units.

Size. The view asks for little room (a minimum size hint of about
210 × 115 px with a 9-pt font, whatever the title): the title is drawn in the
widget's font size and elided to the plot's width (the full title is its
tooltip), the tool row holds two combos that shrink to four characters, *Fit*
and a "…" menu (Auto levels, Save PNG…, Save FITS…), and the readout is
clipped instead of widening the view. Sizes that matter (title row, colour-bar
width) follow the font, so they scale with QT_SCALE_FACTOR.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
from PyQt6 import QtCore, QtGui, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.gpu.geometry import lmn_to_radec
from uvlab.gpu.imaging.spec import ImageSpec
from uvlab.widgets._display import (
    STRETCHES,
    abs_peak,
    auto_levels,
    data_ticks,
    finite_range,
    format_dms,
    format_hms,
    make_stretch,
    stretch_for_peak,
)
from uvlab.widgets._pg import COLORMAPS, DIVERGING, get_colormap, pg, plain_axes
from uvlab.widgets._save import save_image

ARCMIN = np.pi / (180.0 * 60.0)


def pixel_transform(spec: ImageSpec) -> QtGui.QTransform:
    """Map ImageItem pixel corners to (l, m) arcmin: centre of (j, i) → (l_i, m_j)."""
    c = spec.cell_rad / ARCMIN
    off = c * (spec.npix // 2 + 0.5)
    return QtGui.QTransform(-c, 0.0, 0.0, c, off, -off)


def image_extent(spec: ImageSpec) -> tuple[tuple[float, float], tuple[float, float]]:
    """((l_lo, l_hi), (m_lo, m_hi)) arcmin of the image's outer pixel edges."""
    r = pixel_transform(spec).mapRect(QtCore.QRectF(0.0, 0.0, spec.npix, spec.npix))
    return (r.left(), r.right()), (r.top(), r.bottom())


class SkyImageView(QtWidgets.QWidget):
    """Show one sky image with a colour bar, stretch, crosshair and readout.

    Parameters
    ----------
    colormap : str
        A name from ``uvlab.widgets._pg.COLORMAPS``.
    stretch : {"asinh", "linear", "log"}
        The stretch new images are shown with (the user can change it).

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
    zoom_reset()
        The user pressed *Fit* (the view has refitted; linked views may follow).
    """

    cursor_moved = pyqtSignal(dict)
    crosshair_moved = pyqtSignal(float, float)
    clicked = pyqtSignal(float, float)
    export_fits_requested = pyqtSignal()
    zoom_reset = pyqtSignal()

    def __init__(self, parent=None, *, colormap: str = "inferno", stretch: str = "asinh"):
        super().__init__(parent)
        if stretch not in STRETCHES:
            raise ValueError(f"unknown stretch {stretch!r}; choose from {STRETCHES}")
        self._data: np.ndarray | None = None
        self._spec: ImageSpec | None = None
        self._radec0: tuple[float, float] | None = None
        self._units = "Jy/beam"
        self._stretch = stretch
        self._cmap_name = colormap
        self._setting_crosshair = False
        self._cursor_lm: tuple[float, float] | None = None  # where the readout was last taken
        self._title = ""
        self._user_zoomed = False
        self._zoom_fraction: float | None = None
        self._zoom_half_rad: float | None = None
        self._stretch_fn = make_stretch(np.zeros(1), stretch)
        self._ticks: list[tuple[float, str]] = []
        self._data_range: tuple[float, float] | None = None
        #: Not None while an image set with defer=True waits to be drawn: keep its levels?
        self._pending_keep_levels: bool | None = None

        self.plot_widget = pg.GraphicsLayoutWidget()
        self.plot_widget.ci.setContentsMargins(1, 1, 1, 1)  # pyqtgraph's ~9 px: room for the image
        self.plot_item = self.plot_widget.addPlot()
        self.view_box = self.plot_item.getViewBox()
        self.view_box.setAspectLocked(True)
        self.view_box.invertX(True)
        self.view_box.sigRangeChangedManually.connect(self._on_user_range)
        plain_axes(self.plot_item)
        self.plot_item.setLabel("bottom", "l (arcmin), East ←")
        self.plot_item.setLabel("left", "m (arcmin), North ↑")
        self.plot_item.titleLabel.geometryChanged.connect(self._elide_title)
        self.image_item = pg.ImageItem(axisOrder="row-major")
        self.plot_item.addItem(self.image_item)
        bar_width = max(8, round(0.7 * self.fontMetrics().height()))
        self.color_bar = pg.ColorBarItem(
            colorMap=get_colormap(colormap), interactive=True, colorMapMenu=False, width=bar_width
        )
        self.color_bar.setImageItem(self.image_item, insert_in=self.plot_item)
        for column in (2, 3, 4):  # the hidden right axis and empty columns: no spacing
            self.plot_item.layout.setColumnFixedWidth(column, 0)
        self.color_bar.axis.geometryChanged.connect(self._update_ticks)
        self.color_bar.sigLevelsChangeFinished.connect(self._update_ticks)

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
        # long readouts are clipped instead of widening the view
        self.readout_label.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred
        )
        self._build_layout()
        scene = self.plot_widget.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(self._on_mouse_clicked)

    def _build_layout(self) -> None:
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
        self.fits_action = menu.addAction("Save FITS…")
        self.fits_action.setToolTip("Save the image as FITS")
        self.fits_action.triggered.connect(self.export_fits_requested)
        self.menu_button = QtWidgets.QToolButton()
        self.menu_button.setText("…")
        self.menu_button.setToolTip("Auto levels, save PNG or FITS")
        self.menu_button.setMenu(menu)
        self.menu_button.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.InstantPopup)
        bar = QtWidgets.QHBoxLayout()
        bar.setSpacing(max(2, self.fontMetrics().averageCharWidth() // 2))
        bar.addWidget(self.cmap_combo, 1)
        bar.addWidget(self.stretch_combo, 1)
        bar.addStretch(1)
        bar.addWidget(self.fit_button)
        bar.addWidget(self.menu_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
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
        defer: bool = False,
    ) -> None:
        """Show an image, fitted to the view unless the user has zoomed.

        Parameters
        ----------
        img : (N, N) float
            ``img[j, i]`` in ``units``; NaN pixels are shown transparent.
        spec : ImageSpec
            Its geometry (``N = spec.npix``, cell size).
        ra0_rad, dec0_rad : float, optional
            Phase centre, radians; enables the RA/Dec readout.
        title, units : str
            Plot title (elided to the plot's width; the full title is the
            tooltip) and colour-bar units.
        keep_levels : bool
            Keep the current colour levels instead of fitting them to the data.
        defer : bool
            Store the image now (the data accessors return it) and draw it at
            :meth:`flush`, or when the view is next shown if it is hidden.
        """
        img = np.asarray(img)
        if img.ndim != 2 or img.shape != (spec.npix, spec.npix):
            raise ValueError(f"image shape {img.shape} does not match npix={spec.npix}")
        self._data = np.array(img, dtype=np.result_type(img.dtype, np.float32), copy=True)
        self._spec = spec
        has_centre = ra0_rad is not None and dec0_rad is not None
        self._radec0 = (float(ra0_rad), float(dec0_rad)) if has_centre else None
        self._units = units
        self._title = title or ""
        # two deferred images in a row keep the levels only if both asked to
        pending = self._pending_keep_levels
        self._pending_keep_levels = keep_levels and (pending is None or pending)
        if not defer:
            self.flush()

    def needs_drawing(self) -> bool:
        """Whether an image set with ``defer=True`` waits for :meth:`flush`."""
        return self._pending_keep_levels is not None

    def flush(self) -> bool:
        """Draw the image set with ``defer=True``, if any; returns whether it drew."""
        keep_levels = self._pending_keep_levels
        if keep_levels is None:
            return False
        self._pending_keep_levels = None
        self._set_title(self._title)
        self.image_item.setTransform(pixel_transform(self._spec))
        self._refresh(keep_levels=keep_levels)
        self._refresh_readout()  # a new scene's phase centre: the old RA/Dec must not stay
        if not self._user_zoomed:
            self._apply_zoom()
        return True

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        self.flush()  # an image set while the view was hidden

    def clear(self) -> None:
        """Show nothing (e.g. before a new data set's first image); the zoom is fitted anew."""
        self._data = self._spec = self._radec0 = self._data_range = None
        self._pending_keep_levels = None
        self.image_item.clear()
        self._set_title("")
        self._ticks = []
        self.color_bar.axis.setTicks(None)
        self.readout_label.setText(" ")
        self._user_zoomed = False

    def image(self) -> np.ndarray | None:
        """The data currently shown, before the stretch (None before set_image)."""
        return self._data

    def spec(self) -> ImageSpec | None:
        return self._spec

    def units(self) -> str:
        """Units of the image shown (as given to :meth:`set_image`)."""
        return self._units

    def title(self) -> str:
        """The full title (the plot shows it elided to its width)."""
        return self._title

    def levels(self) -> tuple[float, float]:
        """Colour-scale limits, in displayed (stretched) units."""
        self.flush()
        lo, hi = self.color_bar.levels()
        return float(lo), float(hi)

    def set_levels(self, lo: float, hi: float) -> None:
        """Set the colour-scale limits, in displayed (stretched) units."""
        self.flush()
        self.color_bar.setLevels((float(lo), float(hi)))

    def auto_levels(self) -> None:
        """Fit the colour scale to the displayed image: 0.5th percentile to the peak."""
        if self.needs_drawing():
            self._pending_keep_levels = False  # drawn with its levels fitted
            self.flush()
            return
        shown = self.image_item.image
        if shown is not None:
            symmetric = self._cmap_name in DIVERGING and self._stretch != "log"
            lo, hi = auto_levels(shown, symmetric=symmetric)
            self.color_bar.rounding = (hi - lo) / 1000.0
            self.color_bar.setLevels((lo, hi))
            self._update_ticks()

    def _refresh(self, keep_levels: bool = False) -> None:
        if self._data is None:
            return
        self._data_range = finite_range(self._data)
        self._stretch_fn = stretch_for_peak(self._stretch, abs_peak(self._data_range))
        self.image_item.setImage(self._stretch_fn(self._data), autoLevels=False)
        self.color_bar.getAxis("left").setLabel(self._stretch_fn.label(self._units))
        if keep_levels:
            self.color_bar.setLevels(self.color_bar.levels())
            self._update_ticks()
        else:
            self.auto_levels()

    def _update_ticks(self) -> None:
        """Label a log or asinh colour bar in data units (linear: pyqtgraph's own ticks)."""
        ticks: list[tuple[float, str]] = []
        if self._stretch != "linear" and self._data_range is not None:
            lo, hi = self.color_bar.levels()  # as drawn: never a flush from a resize
            vmin, vmax = self._data_range
            if self._stretch == "log":  # only values above the floor have a place on the bar
                vmin = max(vmin, self._stretch_fn.scale)
            # labels at least 1.3 lines apart on the bar as drawn (8 % of it before layout)
            bar_px = self.color_bar.axis.geometry().height()
            line = QtGui.QFontMetricsF(self.font()).height()
            gap = max(0.08, 1.3 * line / bar_px) if bar_px > 0 else 0.08
            ticks = data_ticks(self._stretch_fn, vmin, vmax, hi - lo, min_gap=gap)
        if ticks != self._ticks or not ticks:
            self._ticks = ticks
            self.color_bar.axis.setTicks([ticks] if ticks else None)

    def colorbar_ticks(self) -> list[tuple[float, str]]:
        """The colour bar's (stretched position, data-unit label) ticks; [] when linear."""
        self.flush()
        return list(self._ticks)

    # ------------------------------------------------------------------ title
    def _set_title(self, title: str) -> None:
        self._title = title or ""
        label = self.plot_item.titleLabel
        label.setToolTip(self._title)
        if not self._title:
            self.plot_item.setTitle(None)
            return
        self.plot_item.setTitle(" ")
        self._elide_title()

    def _title_font(self) -> QtGui.QFont:
        return QtGui.QFont(self.font())

    def _elide_title(self) -> None:
        """Show the title elided to the label's width; it never asks for more room."""
        label = self.plot_item.titleLabel
        if not self._title:
            return
        font = self._title_font()
        fm = QtGui.QFontMetricsF(font)
        width = label.geometry().width() - fm.averageCharWidth()
        text = fm.elidedText(self._title, QtCore.Qt.TextElideMode.ElideRight, max(width, 0.0))
        size = f"{font.pointSizeF():g}pt" if font.pointSizeF() > 0 else f"{font.pixelSize()}px"
        shown = html.escape(text or "…")
        if getattr(label, "_uvlab_shown", None) != (shown, size):
            label._uvlab_shown = (shown, size)
            label.setText(shown, size=size)
        # LabelItem asks for its text's width; ask for none, the plot's column decides
        label.setMinimumWidth(0)
        label.setPreferredWidth(0)
        # pyqtgraph gives the title row 30 px; one line of this font is enough
        height = label.item.boundingRect().height()
        label.setMaximumHeight(height)
        self.plot_item.layout.setRowFixedHeight(0, height)

    def shown_title(self) -> str:
        """The title as drawn (elided), plain text."""
        self.flush()
        shown = getattr(self.plot_item.titleLabel, "_uvlab_shown", None)
        return html.unescape(shown[0]) if shown and self._title else ""

    # ------------------------------------------------------------------- zoom
    def user_zoomed(self) -> bool:
        """Whether the user zoomed or panned since the last fit (new images keep the range)."""
        return self._user_zoomed

    def fit_to_image(self) -> None:
        """Show the whole image, exactly, and let new images be fitted again."""
        self._user_zoomed = False
        if self._spec is not None:
            xr, yr = image_extent(self._spec)
            self.view_box.setRange(xRange=xr, yRange=yr, padding=0)

    def zoom_to(self, half_width_rad: float) -> None:
        """Centre on (0, 0) and show ±``half_width_rad`` along the limiting axis.

        This becomes the view's default zoom: later images are shown at it
        too, until the user zooms (e.g. a PSF's inner sidelobes).
        """
        self.set_default_zoom(half_width_rad=half_width_rad)
        self._user_zoomed = False
        self._apply_zoom()

    def set_default_zoom(
        self, fraction: float | None = None, *, half_width_rad: float | None = None
    ) -> None:
        """How each new image is shown until the user zooms.

        Parameters
        ----------
        fraction : float, optional
            Show ±``fraction`` of the image's half-width around (0, 0).
        half_width_rad : float, optional
            Show ±``half_width_rad`` around (0, 0) (direction cosines).
            With neither, the whole image is fitted (the default).
        """
        if fraction is not None and half_width_rad is not None:
            raise ValueError("give a fraction or a half-width, not both")
        for name, val in (("fraction", fraction), ("half_width_rad", half_width_rad)):
            if val is not None and not (np.isfinite(val) and val > 0):
                raise ValueError(f"{name} must be positive, got {val!r}")
        self._zoom_fraction = None if fraction is None else float(fraction)
        self._zoom_half_rad = None if half_width_rad is None else float(half_width_rad)
        if not self._user_zoomed:
            self._apply_zoom()

    def set_view_range(self, x_range, y_range, *, by_user: bool = False) -> None:
        """Show (l, m) arcmin ranges; ``by_user`` counts it as the user's zoom.

        A view that follows a user's zoom in a linked view should pass
        ``by_user=True`` so that its next image keeps the range too.
        """
        self.view_box.setRange(xRange=tuple(x_range), yRange=tuple(y_range), padding=0)
        if by_user:
            self._user_zoomed = True

    def _apply_zoom(self) -> None:
        if self._spec is None:
            return
        half = None
        if self._zoom_half_rad is not None:
            half = self._zoom_half_rad / ARCMIN
        elif self._zoom_fraction is not None:
            half = self._zoom_fraction * self._spec.npix / 2 * self._spec.cell_rad / ARCMIN
        if half is None:
            xr, yr = image_extent(self._spec)
        else:
            xr = yr = (-half, half)
        self.view_box.setRange(xRange=xr, yRange=yr, padding=0)

    def _on_user_range(self, _mask) -> None:
        self._user_zoomed = True

    def _on_fit_clicked(self) -> None:
        self.fit_to_image()
        self.zoom_reset.emit()

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
        """Choose ``asinh``, ``linear`` or ``log``; refits the colour levels."""
        if name not in STRETCHES:
            raise ValueError(f"unknown stretch {name!r}; choose from {STRETCHES}")
        self._stretch = name
        with QtCore.QSignalBlocker(self.stretch_combo):
            self.stretch_combo.setCurrentText(name)
        if self.needs_drawing():
            self._pending_keep_levels = False  # a new stretch always refits the levels
            self.flush()
        else:
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
        self._cursor_lm = (p.x() * ARCMIN, p.y() * ARCMIN)
        r = self.readout_at(*self._cursor_lm)
        self.readout_label.setText(self._readout_text(r))
        self.cursor_moved.emit(r)

    def _refresh_readout(self) -> None:
        """The readout of the last cursor position, for the image now shown (new RA/Dec, value)."""
        if self._cursor_lm is None or self._data is None:
            self.readout_label.setText(" ")
            return
        self.readout_label.setText(self._readout_text(self.readout_at(*self._cursor_lm)))

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
        self.flush()
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


def follow_zoom(view: SkyImageView, peers: Callable[[], Iterable[SkyImageView]]) -> None:
    """A zoom or pan by the user in ``view`` gives ``peers()`` its centre and extent.

    For views of different sizes, where pyqtgraph's ``setXLink``/``setYLink``
    fight with the locked aspect ratios: each peer keeps its own aspect ratio
    and counts as zoomed by the user (it stops refitting to new images). The
    view's *Fit* fits the peers too. ``peers`` is called each time, so the set
    may change (compare mode's columns).
    """

    def follow(_mask) -> None:
        (x0, x1), (y0, y1) = view.view_box.viewRange()
        for dst in peers():
            if dst is not view and dst.image() is not None:
                dst.set_view_range((x0, x1), (y0, y1), by_user=True)

    def fit() -> None:
        for dst in peers():
            if dst is not view:
                dst.fit_to_image()

    view.view_box.sigRangeChangedManually.connect(follow)
    view.zoom_reset.connect(fit)


def link_zoom(*views: SkyImageView) -> None:
    """Share zoom, pan and *Fit* between image views of different sizes (:func:`follow_zoom`)."""
    for v in views:
        follow_zoom(v, lambda: views)


def link_crosshairs(*views: SkyImageView) -> None:
    """Make moving the crosshair in any view move it in all the others."""
    for a in views:
        for b in views:
            if a is not b:
                a.crosshair_moved.connect(b.set_crosshair)
