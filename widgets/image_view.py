"""SkyImageView: a sky image in (l, m) arcmin with East to the left.

uvlab images are ``img[j, i]`` with ``l = −(i − N/2)·cell`` and
``m = (j − N/2)·cell`` (DESIGN §1, :mod:`uvlab.gpu.image_spec`). The view
places the ImageItem with a QTransform so that each pixel centre sits at its
(l, m) in arcmin, and inverts the x axis so that l (East) increases to the
left, as on the sky. Public l, m arguments and signals are direction
cosines (dimensionless, ≈ radians); only the axes are in arcmin.

Zoom. Each new image is fitted to the view, or shown at its default zoom,
until the user zooms or pans; *Fit* starts that over (:mod:`uvlab.widgets.image_zoom`).

Deferred drawing. ``set_image(..., defer=True)`` only stores the image:
:meth:`~SkyImageView.image`, :meth:`~SkyImageView.spec` and the other data
accessors answer with it at once, and the stretch, levels, title and zoom are
drawn by :meth:`~SkyImageView.flush` (the main window calls it one view per
event-loop iteration, so that drawing a result never stalls the GUI), when
the view is next shown (a view in a hidden tab costs nothing until then), or
before anything that reads or changes the drawn state (levels, ticks, PNG).

Display. The default stretch is ``asinh`` with levels from the 0.5th
percentile to the peak; the colour bar is labelled in data units
(:mod:`uvlab.widgets.image_colour_scale`).

Size. The view asks for little room (a minimum size hint of about
210 × 115 px with a 9-pt font, whatever the title): the title is drawn in the
widget's font size and elided to the plot's width (the full title is its
tooltip), the tool row holds two combos that shrink to four characters, *Fit*
and a "…" menu (Auto levels, Save PNG…, Save figure…, Save FITS…), and the readout is
clipped instead of widening the view. Sizes that matter (title row, colour-bar
width) follow the font, so they scale with QT_SCALE_FACTOR.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PyQt6 import QtCore, QtGui, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.gpu.image_spec import ImageSpec
from uvlab.widgets._display import STRETCHES, make_stretch
from uvlab.widgets._pg import COLORMAPS, get_colormap, pg, plain_axes
from uvlab.widgets._save import save_image
from uvlab.widgets.image_colour_scale import ColourScaleMixin
from uvlab.widgets.image_geometry import ARCMIN, pixel_transform
from uvlab.widgets.image_readout import readout_at, readout_text
from uvlab.widgets.image_title import elide_title, show_title, shown_title
from uvlab.widgets.image_zoom import ZoomMixin

__all__ = [
    "ARCMIN",
    "SkyImageView",
    "pixel_transform",
]


class SkyImageView(ColourScaleMixin, ZoomMixin, QtWidgets.QWidget):
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
    figure_requested()
        The user asked for a captioned figure (the app draws it).
    zoom_reset()
        The user pressed *Fit* (the view has refitted; linked views may follow).
    """

    cursor_moved = pyqtSignal(dict)
    crosshair_moved = pyqtSignal(float, float)
    clicked = pyqtSignal(float, float)
    export_fits_requested = pyqtSignal()
    figure_requested = pyqtSignal()
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

    # ------------------------------------------------------------------ title
    def _set_title(self, title: str) -> None:
        self._title = title or ""
        show_title(self.plot_item, self._title, self._title_font())

    def _title_font(self) -> QtGui.QFont:
        return QtGui.QFont(self.font())

    def _elide_title(self) -> None:
        """Show the title elided to the label's width; it never asks for more room."""
        if self._title:
            elide_title(self.plot_item, self._title, self._title_font())

    def shown_title(self) -> str:
        """The title as drawn (elided), plain text."""
        self.flush()
        return shown_title(self.plot_item, self._title)

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
            See :func:`uvlab.widgets.image_readout.readout_at`.
        """
        return readout_at(
            l, m, data=self._data, spec=self._spec, radec0=self._radec0, units=self._units
        )

    def _on_mouse_moved(self, scene_pos: QtCore.QPointF) -> None:
        if self._data is None or not self.view_box.sceneBoundingRect().contains(scene_pos):
            return
        p = self.view_box.mapSceneToView(scene_pos)
        self._cursor_lm = (p.x() * ARCMIN, p.y() * ARCMIN)
        r = self.readout_at(*self._cursor_lm)
        self.readout_label.setText(readout_text(r))
        self.cursor_moved.emit(r)

    def _refresh_readout(self) -> None:
        """The readout of the last cursor position, for the image now shown (new RA/Dec, value)."""
        if self._cursor_lm is None or self._data is None:
            self.readout_label.setText(" ")
            return
        self.readout_label.setText(readout_text(self.readout_at(*self._cursor_lm)))

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
