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

import numpy as np
from PyQt6 import QtGui, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.gpu.image_spec import ImageSpec
from uvlab.widgets._display import STRETCHES, make_stretch
from uvlab.widgets._pg import get_colormap, pg, plain_axes
from uvlab.widgets.image_colour_scale import ColourScaleMixin
from uvlab.widgets.image_cursor import CursorMixin
from uvlab.widgets.image_geometry import ARCMIN, pixel_transform
from uvlab.widgets.image_title import elide_title, show_title, shown_title
from uvlab.widgets.image_tools import ToolsMixin
from uvlab.widgets.image_zoom import ZoomMixin

__all__ = [
    "ARCMIN",
    "SkyImageView",
    "pixel_transform",
]


class SkyImageView(ColourScaleMixin, ZoomMixin, CursorMixin, ToolsMixin, QtWidgets.QWidget):
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

        fits_action = self.view_box.menu.addAction("Export FITS…")
        fits_action.triggered.connect(self.export_fits_requested)
        self._build_cursor()
        self._build_layout()

    def _build_layout(self) -> None:
        bar = self._build_tools()
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
