"""UvCoverageView: every sampled (u, v), both Hermitian halves.

Each visibility measured at (u, v) also samples (−u, −v), so the view draws
both. In wavelengths every row counts once per channel (u·ν/c); in metres the
channels coincide and every row counts once.

Two looks, chosen by the number of points to draw (both halves):

- **Density** (more than ``max_points``, default 20 000; and always for the
  live look of a running job): a 2-D histogram of *all* samples on square
  cells spanning ±max(|u|, |v|), drawn as one RGBA ``ImageItem``. Brightness
  (opacity) is the log of the samples per cell, with a floor so that a cell
  holding one sample still shows; colour by time, baseline or none
  (:mod:`uvlab.widgets.uv_colours`). The cell count across follows the plot's
  size in device pixels (:func:`~uvlab.widgets.uv_density.auto_bins`; ``bins=``
  fixes it), so that earth-rotation tracks read as lines; the view rebins when
  it is resized. Binning: :func:`~uvlab.widgets.uv_density.uv_density`, about
  0.2 s for 1e7 samples on one core.
- **Scatter** (few points): ``ScatterPlotItem(pen=None, pxMode=True)`` dots,
  one item per colour group (pyqtgraph spends a few µs per point setting a
  scatter up, which is why many points become a density image instead).

Either way the label says how many samples are shown: all of them, never a
subset, unless the caller gave a subsample (``set_uv(..., of_rows=N)``: an MS streamed
in row chunks), which the label then names. :meth:`UvCoverageView.set_live_uv` draws
growing tracks in one colour during a run; :meth:`UvCoverageView.set_uv` replaces them
with the final look.
With ``defer=True`` both only store the samples (:meth:`~UvCoverageView.points`
answers with them at once); the binning and drawing wait for
:meth:`~UvCoverageView.flush`, for the view to be shown if it is hidden, or for
a query of the drawn state (:meth:`~UvCoverageView.mode`, ...).
"""

from __future__ import annotations

import numpy as np
from PyQt6 import QtCore, QtWidgets

from uvlab.widgets._pg import pg, plain_axes
from uvlab.widgets.uv_colours import (
    TIME_COLORMAP,
    colormap_rgb,
    colour_sources,
    density_colours,
    scatter_groups,
)
from uvlab.widgets.uv_density import UvDensity, auto_bins, density_rgba, uv_density
from uvlab.widgets.uv_samples import UvSamples

#: Unit name → axis label.
UNITS = {"klambda": "kλ", "lambda": "λ", "m": "m"}
COLOR_BY = ("time", "baseline", "none")


class UvCoverageView(QtWidgets.QWidget):
    """uv coverage in kλ, λ or metres: a density image of all samples, or dots for few.

    Parameters
    ----------
    max_points : int
        Up to this many points (both halves) are drawn as scatter dots; more
        become a density image.
    n_groups : int
        Colour groups of the scatter look when coloured by time.
    bins : int, optional
        Density cells across; by default from the plot's size (63–1023).
    """

    def __init__(
        self, parent=None, *, max_points: int = 20_000, n_groups: int = 12, bins: int | None = None
    ):
        super().__init__(parent)
        self.max_points = int(max_points)
        self.n_groups = int(n_groups)
        self.bins = None if bins is None else int(bins)
        self._final: UvSamples | None = None  # a complete result's
        self._of_rows: int | None = None  # the rows the final look is a subsample of
        self._live: UvSamples | None = None  # a running job's tracks so far
        self._units = "klambda"
        self._color_by = "time"
        self._density: UvDensity | None = None
        self._half_width = 1.0
        self._user_zoomed = False
        #: What flush() owes: None, "live" (refit unless zoomed) or "fit" (a final look, refitted).
        self._pending: str | None = None
        self.plot_widget = pg.PlotWidget()
        self.plot_item = self.plot_widget.getPlotItem()
        self.plot_item.setAspectLocked(True)
        plain_axes(self.plot_item)
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        self.density_item = pg.ImageItem(axisOrder="row-major")
        self.density_item.hide()
        self.plot_item.addItem(self.density_item)
        self._scatter: list[pg.ScatterPlotItem] = []
        view_box = self.plot_item.getViewBox()
        view_box.sigRangeChangedManually.connect(self._on_user_range)
        self._rebin_timer = QtCore.QTimer(self, singleShot=True, interval=200)
        self._rebin_timer.timeout.connect(self._rebin_if_resized)
        view_box.sigResized.connect(self._rebin_timer.start)
        self.info_label = QtWidgets.QLabel(" ")
        self.info_label.setWordWrap(True)  # never widens the view
        self.fit_button = QtWidgets.QToolButton()
        self.fit_button.setText("Fit")
        self.fit_button.setToolTip("Show the whole coverage")
        self.fit_button.clicked.connect(self.fit)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.info_label, 1)
        row.addWidget(self.fit_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.plot_widget, 1)
        layout.addLayout(row)
        self._update_labels()

    # ------------------------------------------------------------------ input
    def set_uv(
        self, u_m, v_m, *, freq_hz, time=None, baseline=None, defer=False, of_rows=None
    ) -> None:
        """Show the uv coverage of a complete result (ends the live look), fitted.

        Parameters
        ----------
        u_m, v_m : (nrow,) float
            Baseline coordinates, metres.
        freq_hz : float or (nchan,) float
            Channel frequencies; each row is drawn once per channel when
            the units are wavelengths.
        time : (nrow,) float, optional
            Time of each row (any unit), for ``color_by="time"``.
        baseline : (nrow,) int, optional
            Baseline id of each row, for ``color_by="baseline"``.
        defer : bool
            Store the samples now and draw them at :meth:`flush` (or when shown).
        of_rows : int, optional
            The rows these are a subsample of (the label says so); None: every row.
        """
        self._final = UvSamples.checked(u_m, v_m, freq_hz, time, baseline)
        self._of_rows = None if of_rows is None else int(of_rows)
        self._live = None
        self._pending = "fit"
        if not defer:
            self.flush()

    def set_live_uv(self, u_m, v_m, freq_hz, *, defer: bool = False) -> None:
        """Show the tracks so far (a running job): all samples, density, one colour.

        Cheap enough to call a few times a second (pass ``freq_hz[:1]`` to
        bin one channel only). Refits unless the user has zoomed;
        :meth:`set_uv` ends the live look. ``defer`` as for :meth:`set_uv`.
        """
        self._live = UvSamples.checked(u_m, v_m, freq_hz)
        if self._pending is None:  # a final look still owed keeps its refit
            self._pending = "live"
        if not defer:
            self.flush()

    def needs_drawing(self) -> bool:
        """Whether samples given with ``defer=True`` wait for :meth:`flush`."""
        return self._pending is not None

    def flush(self) -> bool:
        """Bin and draw the samples given with ``defer=True``, if any; returns whether it drew."""
        pending, self._pending = self._pending, None
        if pending is None:
            return False
        self._redraw()
        if pending == "fit":
            self.fit()
        else:
            colormap_rgb(TIME_COLORMAP)  # read from a file once (~10 ms): now, not with the result
            if not self._user_zoomed:
                self._fit_range()
        return True

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.flush()  # samples given while the view was hidden

    def is_live(self) -> bool:
        """Whether the live look (:meth:`set_live_uv`) is shown."""
        return self._live is not None

    def clear(self) -> None:
        """Show no coverage (e.g. before a new data set's first result)."""
        self._final = self._live = None
        self._pending = None
        self._redraw()
        self._user_zoomed = False

    def set_units(self, units: str) -> None:
        """``"klambda"``, ``"lambda"`` or ``"m"`` (refits)."""
        if units not in UNITS:
            raise ValueError(f"unknown units {units!r}; choose from {list(UNITS)}")
        self._units = units
        self._pending = None  # drawn and refitted here
        self._redraw()
        self.fit()

    def set_color_by(self, what: str) -> None:
        """Colour by ``"time"``, ``"baseline"`` or ``"none"``."""
        if what not in COLOR_BY:
            raise ValueError(f"unknown colouring {what!r}; choose from {COLOR_BY}")
        self._color_by = what
        if not self.flush():
            self._redraw()

    # ---------------------------------------------------------------- queries
    def units(self) -> str:
        return self._units

    def mode(self) -> str:
        """``"density"``, ``"scatter"`` or ``"empty"``: how the coverage is drawn."""
        self.flush()
        if self._density is not None:
            return "density"
        return "scatter" if self._scatter else "empty"

    def density(self) -> UvDensity | None:
        """The histogram drawn (None unless :meth:`mode` is ``"density"``)."""
        self.flush()
        return self._density

    @property
    def coverage_items(self) -> list:
        """The graphics items drawing the coverage: the density image or the scatter items."""
        self.flush()
        return [self.density_item] if self._density is not None else list(self._scatter)

    @property
    def scatter_items(self) -> list:
        """Alias of :attr:`coverage_items` (callers hide these while drawing an overlay)."""
        return self.coverage_items

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        """Every displayed sample (x, y) in the current units, both halves.

        The samples of the live look while :meth:`is_live`. In wavelengths
        one per row and channel, in metres one per row.
        """
        shown = self._shown()
        return (np.empty(0), np.empty(0)) if shown is None else shown.points(self._units)

    def _shown(self) -> UvSamples | None:
        """The samples drawn: the live look's while there is one, else the result's."""
        return self._live if self._live is not None else self._final

    # ------------------------------------------------------------------- zoom
    def fit(self) -> None:
        """Show the whole coverage; later live updates refit too, until the user zooms."""
        self.flush()  # the extent of samples given with defer=True
        self._user_zoomed = False
        self._fit_range()

    def user_zoomed(self) -> bool:
        return self._user_zoomed

    def _fit_range(self) -> None:
        r = self._half_width * 1.02
        self.plot_item.getViewBox().setRange(xRange=(-r, r), yRange=(-r, r), padding=0)

    def _on_user_range(self, _mask) -> None:
        self._user_zoomed = True

    # ------------------------------------------------------------------ draw
    def _auto_bins(self) -> int:
        if self.bins is not None:
            return self.bins
        vb = self.plot_item.getViewBox()
        return auto_bins(min(vb.width(), vb.height()) * self.devicePixelRatioF())

    def _rebin_if_resized(self) -> None:
        if self._density is None or self.bins is not None or self._pending is not None:
            return
        n = self._auto_bins()
        if abs(n - self._density.nbins) > 0.2 * self._density.nbins:
            self._redraw()

    def _redraw(self) -> None:
        for it in self._scatter:
            self.plot_item.removeItem(it)
        self._scatter = []
        self._density = None
        self.density_item.hide()
        self._update_labels()
        shown = self._shown()
        if shown is None:
            self.info_label.setText(" ")
            return
        u_m, v_m, scale = shown.u_m, shown.v_m, shown.scale(self._units)
        n_points = 2 * u_m.size * scale.size
        big = max(float(np.abs(u_m).max(initial=0.0)), float(np.abs(v_m).max(initial=0.0)))
        self._half_width = big * float(scale.max()) or 1.0
        live = self._live is not None  # one colour
        weight, label, label_rgb, (how, detail) = colour_sources(
            "none" if live else self._color_by, shown.time, shown.baseline
        )
        if self._live is None and n_points <= self.max_points:
            self._draw_scatter(u_m, v_m, scale, weight, label, label_rgb)
            look = "one dot per sample"
        else:
            self._draw_density(u_m, v_m, scale, weight, label, label_rgb)
            nb = self._density.nbins
            look = f"density on {nb}×{nb} cells; brightness: log(samples per cell)"
        what = "so far: all" if self._live is not None else "all"
        text = f"{what} {n_points:,} samples (both halves)"
        if self._live is None and self._of_rows is not None:
            text = (
                f"a subsample: {u_m.size:,} of {self._of_rows:,} rows, "
                f"{n_points:,} samples (both halves)"
            )
        self.info_label.setText(f"{text}; {how}" if how else text)
        self.info_label.setToolTip("\n".join(p for p in (text, look, detail) if p))

    def _draw_density(self, u_m, v_m, scale, weight, label, label_rgb) -> None:
        d = uv_density(
            u_m, v_m, scale, self._auto_bins(), half_width=self._half_width,
            row_weight=weight, row_label=label,
        )  # fmt: skip
        self._density = d
        self.density_item.setImage(density_rgba(d, density_colours(d, label_rgb)), autoLevels=False)
        r = d.half_width
        self.density_item.setRect(QtCore.QRectF(-r, -r, 2 * r, 2 * r))
        self.density_item.show()

    def _draw_scatter(self, u_m, v_m, scale, weight, label, label_rgb) -> None:
        x, y = np.outer(u_m, scale), np.outer(v_m, scale)  # (nrow, nchan)
        g, rgb = scatter_groups(u_m.size, weight, label, label_rgb, self.n_groups)
        for k, colour in enumerate(rgb):
            sel = g == k
            if not sel.any():
                continue
            xs, ys = x[sel].ravel(), y[sel].ravel()
            item = pg.ScatterPlotItem(
                x=np.concatenate([xs, -xs]), y=np.concatenate([ys, -ys]),
                pen=None, brush=pg.mkBrush(*colour), size=2, pxMode=True,
            )  # fmt: skip
            self.plot_item.addItem(item)
            self._scatter.append(item)

    def _update_labels(self) -> None:
        unit = UNITS[self._units]
        self.plot_item.setLabel("bottom", f"u ({unit})")
        self.plot_item.setLabel("left", f"v ({unit})")
