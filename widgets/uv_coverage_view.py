"""UvCoverageView: every sampled (u, v), both Hermitian halves.

Each visibility measured at (u, v) also samples (−u, −v), so the view draws
both. In wavelengths every row counts once per channel (u·ν/c); in metres the
channels coincide and every row counts once.

Two looks, chosen by the number of points to draw (both halves):

- **Density** (more than ``max_points``, default 20 000; and always for the
  live look of a running job): a 2-D histogram of *all* samples on square
  cells spanning ±max(|u|, |v|), drawn as one RGBA ``ImageItem``. Brightness
  (opacity) is the log of the samples per cell, with a floor so that a cell
  holding one sample still shows; colour is the mean time of the cell's
  samples (an isoluminant map, so colour never fights brightness), or the
  colour of one of the cell's baselines, or one colour. The cell count across
  follows the plot's size in device pixels (63–1023, odd so that u = 0 is a
  cell centre; ``bins=`` fixes it), about one cell per screen pixel, so that
  earth-rotation tracks read as lines; the view rebins when it is resized.
  Binning is one ``np.bincount`` per chunk of samples in float32 and the
  (−u, −v) half is the point mirror of the (u, v) histogram: about 0.2 s for
  1e7 samples on one core (:func:`uv_density`).
- **Scatter** (few points): ``ScatterPlotItem(pen=None, pxMode=True)`` dots,
  one item per colour group (pyqtgraph spends a few µs per point setting a
  scatter up, which is why many points become a density image instead).

Either way the label says how many samples are shown: all of them, never a
subset. :meth:`UvCoverageView.set_live_uv` draws growing tracks in one colour
during a run; :meth:`UvCoverageView.set_uv` replaces them with the final look.
With ``defer=True`` both only store the samples (:meth:`~UvCoverageView.points`
answers with them at once); the binning and drawing wait for
:meth:`~UvCoverageView.flush`, for the view to be shown if it is hidden, or for
a query of the drawn state (:meth:`~UvCoverageView.mode`, ...).
"""

from __future__ import annotations

import functools

import numpy as np
from PyQt6 import QtCore, QtWidgets

from uvlab.widgets._pg import PALETTE, get_colormap, pg, plain_axes
from uvlab.widgets.uv_density import (
    PLAIN_COLOUR,
    UvDensity,
    density_rgba,
    uv_density,
    uv_scale,
)

#: Unit name → axis label.
UNITS = {"klambda": "kλ", "lambda": "λ", "m": "m"}
COLOR_BY = ("time", "baseline", "none")

#: Colour map of mean time per cell (isoluminant: blue → green → orange).
TIME_COLORMAP = "CET-I1"
#: Cells across when the plot's size is not known yet, and the automatic range.
DEFAULT_BINS, MIN_BINS, MAX_BINS = 511, 63, 1023


@functools.cache
def colormap_rgb(name: str) -> np.ndarray:
    """(256, 3) uint8 lookup table of a pyqtgraph colour map (``CET-*`` or a uvlab name)."""
    cmap = pg.colormap.get(name) if name.startswith("CET") else get_colormap(name)
    lut = np.asarray(cmap.getLookupTable(0.0, 1.0, nPts=256, alpha=False), np.uint8)[:, :3]
    lut.flags.writeable = False
    return lut


def _dense_ids(labels: np.ndarray) -> np.ndarray:
    """Labels → 0..n−1 in sorted order (np.unique's inverse, O(n) for small ints)."""
    labels = np.asarray(labels).ravel()
    if labels.dtype.kind in "iu" and labels.size and 0 <= labels.min() and labels.max() < 1 << 24:
        present = np.zeros(int(labels.max()) + 1, bool)
        present[labels] = True
        return (np.cumsum(present) - 1)[labels]
    return np.unique(labels, return_inverse=True)[1].ravel()


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
        self._u_m = self._v_m = None
        self._freq_hz = np.ones(1)
        self._time = self._baseline = None
        self._live: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
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
    def set_uv(self, u_m, v_m, *, freq_hz, time=None, baseline=None, defer=False) -> None:
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
        """
        u_m, v_m = self._check_uv(u_m, v_m)
        for name, arr in (("time", time), ("baseline", baseline)):
            if arr is not None and np.shape(arr) != u_m.shape:
                raise ValueError(f"{name} must have one entry per row ({u_m.size})")
        self._u_m, self._v_m = u_m, v_m
        self._freq_hz = np.atleast_1d(np.asarray(freq_hz, dtype=np.float64))
        self._time = None if time is None else np.asarray(time, dtype=np.float64)
        self._baseline = None if baseline is None else np.asarray(baseline)
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
        u_m, v_m = self._check_uv(u_m, v_m)
        self._live = (u_m, v_m, np.atleast_1d(np.asarray(freq_hz, dtype=np.float64)))
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
        self._u_m = self._v_m = self._time = self._baseline = self._live = None
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

    @staticmethod
    def _check_uv(u_m, v_m) -> tuple[np.ndarray, np.ndarray]:
        u_m = np.asarray(u_m, dtype=np.float64).ravel()
        v_m = np.asarray(v_m, dtype=np.float64).ravel()
        if u_m.shape != v_m.shape:
            raise ValueError(f"u and v differ in shape: {u_m.shape} vs {v_m.shape}")
        return u_m, v_m

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
        if self._live is not None:
            u_m, v_m, freq = self._live
        elif self._u_m is not None:
            u_m, v_m, freq = self._u_m, self._v_m, self._freq_hz
        else:
            return np.empty(0), np.empty(0)
        s = uv_scale(self._units, freq)
        x, y = np.outer(u_m, s).ravel(), np.outer(v_m, s).ravel()
        return np.concatenate([x, -x]), np.concatenate([y, -y])

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
        px = min(vb.width(), vb.height()) * self.devicePixelRatioF()
        n = DEFAULT_BINS if px < 64 else int(np.clip(px, MIN_BINS, MAX_BINS))
        return n if n % 2 else n - 1

    def _rebin_if_resized(self) -> None:
        if self._density is None or self.bins is not None or self._pending is not None:
            return
        n = self._auto_bins()
        if abs(n - self._density.nbins) > 0.2 * self._density.nbins:
            self._redraw()

    def _colour_sources(self):
        """(row weight, row label, label colours, (caption, tooltip)) of the current colouring."""
        if self._live is None and self._color_by == "time" and self._time is not None:
            t = self._time
            span = float(np.ptp(t)) if t.size else 0.0
            frac = (t - t.min()) / span if span > 0 else np.zeros_like(t)
            how = "colour = time (blue → orange)"
            return frac, None, None, (how, "colour: mean time of the cell's samples (early → late)")
        if self._live is None and self._color_by == "baseline" and self._baseline is not None:
            ids = _dense_ids(self._baseline)
            n = len(PALETTE)
            rgb = np.array([pg.mkColor(c).getRgb()[:3] for c in PALETTE], np.uint8)
            how = ("colour = baseline", "colour: the baseline of one of the cell's samples")
            return None, (ids % n).astype(np.int32), rgb, how
        return None, None, None, ("", "")

    def _redraw(self) -> None:
        for it in self._scatter:
            self.plot_item.removeItem(it)
        self._scatter = []
        self._density = None
        self.density_item.hide()
        self._update_labels()
        if self._live is not None:
            u_m, v_m, freq = self._live
        elif self._u_m is not None:
            u_m, v_m, freq = self._u_m, self._v_m, self._freq_hz
        else:
            self.info_label.setText(" ")
            return
        scale = uv_scale(self._units, freq)
        n_points = 2 * u_m.size * scale.size
        big = max(float(np.abs(u_m).max(initial=0.0)), float(np.abs(v_m).max(initial=0.0)))
        self._half_width = big * float(scale.max()) or 1.0
        weight, label, label_rgb, (how, detail) = self._colour_sources()
        if self._live is None and n_points <= self.max_points:
            self._draw_scatter(u_m, v_m, scale, weight, label, label_rgb)
            look = "one dot per sample"
        else:
            self._draw_density(u_m, v_m, scale, weight, label, label_rgb)
            nb = self._density.nbins
            look = f"density on {nb}×{nb} cells; brightness: log(samples per cell)"
        what = "so far: all" if self._live is not None else "all"
        text = f"{what} {n_points:,} samples (both halves)"
        self.info_label.setText(f"{text}; {how}" if how else text)
        self.info_label.setToolTip("\n".join(p for p in (text, look, detail) if p))

    def _draw_density(self, u_m, v_m, scale, weight, label, label_rgb) -> None:
        d = uv_density(
            u_m, v_m, scale, self._auto_bins(), half_width=self._half_width,
            row_weight=weight, row_label=label,
        )  # fmt: skip
        colours = None
        if d.mean_weight is not None:
            lut = colormap_rgb(TIME_COLORMAP)
            idx = np.clip(np.nan_to_num(d.mean_weight) * 255 + 0.5, 0, 255).astype(np.intp)
            colours = lut[idx]
        elif d.label is not None:
            colours = label_rgb[np.maximum(d.label, 0)]
        self._density = d
        self.density_item.setImage(density_rgba(d, colours), autoLevels=False)
        r = d.half_width
        self.density_item.setRect(QtCore.QRectF(-r, -r, 2 * r, 2 * r))
        self.density_item.show()

    def _draw_scatter(self, u_m, v_m, scale, weight, label, label_rgb) -> None:
        x, y = np.outer(u_m, scale), np.outer(v_m, scale)  # (nrow, nchan)
        if weight is not None:
            g = np.minimum((weight * self.n_groups).astype(int), self.n_groups - 1)
            rgb = colormap_rgb(TIME_COLORMAP)[
                ((np.arange(self.n_groups) + 0.5) / self.n_groups * 255).astype(int)
            ]
        elif label is not None:
            g, rgb = label, label_rgb
        else:
            g, rgb = np.zeros(u_m.size, int), np.array([PLAIN_COLOUR], np.uint8)
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
