"""UvCoverageView: the sampled (u, v) points, both Hermitian halves.

Each visibility measured at (u, v) also samples (−u, −v), so the view draws
both. Points are coloured by time or baseline in a few colour groups, one
``ScatterPlotItem(pen=None, pxMode=True)`` per group. pyqtgraph spends a few
µs per point setting a scatter up (its per-point symbol-atlas lookup), so past
``max_points`` displayed points (default 100 000, about 0.5 s) the view shows
a seeded random subset and its label says so.
"""

from __future__ import annotations

import numpy as np
from PyQt6 import QtWidgets

from uvlab.gpu.constants import C_LIGHT
from uvlab.widgets._pg import PALETTE, get_colormap, pg, plain_axes

#: Unit name → (axis label, description).
UNITS = {"klambda": "kλ", "lambda": "λ", "m": "m"}
COLOR_BY = ("time", "baseline", "none")


class UvCoverageView(QtWidgets.QWidget):
    """Scatter plot of uv coverage in kλ, λ or metres."""

    def __init__(self, parent=None, *, max_points: int = 100_000, n_groups: int = 12):
        super().__init__(parent)
        self.max_points = int(max_points)
        self.n_groups = int(n_groups)
        self._u_m = self._v_m = None
        self._freq_hz = np.ones(1)
        self._time = self._baseline = None
        self._units = "klambda"
        self._color_by = "time"
        self.plot_widget = pg.PlotWidget()
        self.plot_item = self.plot_widget.getPlotItem()
        self.plot_item.setAspectLocked(True)
        plain_axes(self.plot_item)
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        self.scatter_items: list[pg.ScatterPlotItem] = []
        self.info_label = QtWidgets.QLabel(" ")
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.plot_widget, 1)
        layout.addWidget(self.info_label)
        self._update_labels()

    def set_uv(self, u_m, v_m, *, freq_hz, time=None, baseline=None) -> None:
        """Show uv coverage.

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
        """
        u_m = np.asarray(u_m, dtype=np.float64).ravel()
        v_m = np.asarray(v_m, dtype=np.float64).ravel()
        if u_m.shape != v_m.shape:
            raise ValueError(f"u and v differ in shape: {u_m.shape} vs {v_m.shape}")
        for name, arr in (("time", time), ("baseline", baseline)):
            if arr is not None and np.shape(arr) != u_m.shape:
                raise ValueError(f"{name} must have one entry per row ({u_m.size})")
        self._u_m, self._v_m = u_m, v_m
        self._freq_hz = np.atleast_1d(np.asarray(freq_hz, dtype=np.float64))
        self._time = None if time is None else np.asarray(time, dtype=np.float64)
        self._baseline = None if baseline is None else np.asarray(baseline)
        self._redraw()

    def set_units(self, units: str) -> None:
        """``"klambda"``, ``"lambda"`` or ``"m"``."""
        if units not in UNITS:
            raise ValueError(f"unknown units {units!r}; choose from {list(UNITS)}")
        self._units = units
        self._redraw()

    def set_color_by(self, what: str) -> None:
        """Colour points by ``"time"``, ``"baseline"`` or ``"none"``."""
        if what not in COLOR_BY:
            raise ValueError(f"unknown colouring {what!r}; choose from {COLOR_BY}")
        self._color_by = what
        self._redraw()

    def units(self) -> str:
        return self._units

    def points(self) -> tuple[np.ndarray, np.ndarray]:
        """All displayed (x, y) points, in the current units, concatenated."""
        xs = [it.data["x"] for it in self.scatter_items]
        ys = [it.data["y"] for it in self.scatter_items]
        if not xs:
            return np.empty(0), np.empty(0)
        return np.concatenate(xs), np.concatenate(ys)

    def _display_points(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """(u, v, row) of the points to draw in display units, and the full point count.

        One point per row and channel (per row in metres, where channels
        coincide); a seeded random subset when both halves exceed max_points.
        """
        nchan = 1 if self._units == "m" else self._freq_hz.size
        n = self._u_m.size * nchan
        if 2 * n > self.max_points:  # random, as a stride could alias with the baseline order
            flat = np.random.default_rng(0).choice(n, self.max_points // 2, replace=False)
            flat.sort()
        else:
            flat = np.arange(n)
        rows, chans = np.divmod(flat, nchan)
        if self._units == "m":
            return self._u_m[rows], self._v_m[rows], rows, 2 * n
        scale = self._freq_hz[chans] / C_LIGHT / (1e3 if self._units == "klambda" else 1.0)
        return self._u_m[rows] * scale, self._v_m[rows] * scale, rows, 2 * n

    def _groups(self, rows: np.ndarray) -> tuple[np.ndarray, list]:
        """Colour group of each point, and the brush of each group."""
        if self._color_by == "time" and self._time is not None:
            t = self._time[rows]
            span = np.ptp(t) if t.size else 0.0
            frac = (t - t.min()) / span if span > 0 else np.zeros_like(t)
            g = np.minimum((frac * self.n_groups).astype(int), self.n_groups - 1)
            colors = get_colormap("viridis").getLookupTable(0.0, 1.0, nPts=self.n_groups)
            return g, [pg.mkBrush(*c) for c in colors]
        if self._color_by == "baseline" and self._baseline is not None:
            _, ids = np.unique(self._baseline, return_inverse=True)
            n = min(self.n_groups, len(PALETTE))
            return ids.ravel()[rows] % n, [pg.mkBrush(c) for c in PALETTE[:n]]
        return np.zeros(rows.size, dtype=int), [pg.mkBrush(PALETTE[0])]

    def _redraw(self) -> None:
        for it in self.scatter_items:
            self.plot_item.removeItem(it)
        self.scatter_items = []
        self._update_labels()
        if self._u_m is None:
            return
        u, v, rows, n_total = self._display_points()
        decimated = n_total > self.max_points
        groups, brushes = self._groups(rows)
        for g, brush in enumerate(brushes):
            sel = groups == g
            if not sel.any():
                continue
            x = np.concatenate([u[sel], -u[sel]])
            y = np.concatenate([v[sel], -v[sel]])
            item = pg.ScatterPlotItem(x=x, y=y, pen=None, brush=brush, size=2, pxMode=True)
            self.plot_item.addItem(item)
            self.scatter_items.append(item)
        shown = sum(len(it.data) for it in self.scatter_items)
        text = f"{shown:,} points (both halves)"
        if decimated:
            text = f"showing {shown:,} of {n_total:,} points (decimated: random subset)"
        how = {"time": "time (dark → light: early → late)", "baseline": "baseline"}
        colored = how.get(self._color_by, "") if len(brushes) > 1 else ""
        self.info_label.setText(text + (f"; coloured by {colored}" if colored else ""))

    def _update_labels(self) -> None:
        unit = UNITS[self._units]
        self.plot_item.setLabel("bottom", f"u ({unit})")
        self.plot_item.setLabel("left", f"v ({unit})")
