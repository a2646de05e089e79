"""ArrayLayoutView: antennas in east/north metres, draggable to new positions.

Antenna names are drawn beside the points, the outermost first, each only where it
lies inside the plot clear of the names already drawn and of the other antennas
(:mod:`~uvlab.widgets.label_declutter`): a dense core's names come back as the view
zooms in, and every point tells its name in its tooltip.
"""

from __future__ import annotations

import time

import numpy as np
from PyQt6 import QtCore, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.widgets._pg import PALETTE, pg, plain_axes
from uvlab.widgets.label_declutter import declutter, marker_rects

#: Antenna names are made for arrays of up to this many antennas (shown where they fit).
MAX_LABELS = 256
#: The antennas' markers, pixels across.
MARKER_PX = 10
#: Where a name may sit, in order of preference: above right of its point, above left,
#: below right, below left (TextItem anchors).
LABEL_ANCHORS = ((-0.15, 1.0), (1.15, 1.0), (-0.15, 0.0), (1.15, 0.0))


class _AntennaScatter(pg.ScatterPlotItem):
    """A scatter whose points can be dragged with the left mouse button."""

    def __init__(self, owner: ArrayLayoutView, **kwargs):
        super().__init__(**kwargs)
        self._owner = owner
        self._drag_index: int | None = None
        self._drag_offset = QtCore.QPointF(0.0, 0.0)

    def mouseDragEvent(self, ev) -> None:
        if ev.button() != QtCore.Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        if ev.isStart():
            hits = self.pointsAt(ev.buttonDownPos())
            if len(hits) == 0:
                ev.ignore()
                return
            self._drag_index = int(hits[0].index())
            self._drag_offset = hits[0].pos() - ev.buttonDownPos()
            ev.accept()
            return
        if self._drag_index is None:
            ev.ignore()
            return
        ev.accept()
        pos = ev.pos() + self._drag_offset
        index = self._drag_index
        if ev.isFinish():
            self._drag_index = None
            self._owner.finish_drag(index, pos.x(), pos.y())
        else:
            self._owner.drag(index, pos.x(), pos.y())


class ArrayLayoutView(QtWidgets.QWidget):
    """Antenna positions (east, north) with drag-to-move.

    Signals
    -------
    antenna_moved(int, float, float)
        (index, east_m, north_m) when a drag ends.
    antenna_dragged(int, float, float)
        The same while dragging, at most every ``drag_interval_s`` seconds.
    """

    antenna_moved = pyqtSignal(int, float, float)
    antenna_dragged = pyqtSignal(int, float, float)

    def __init__(self, parent=None, *, drag_interval_s: float = 0.05):
        super().__init__(parent)
        self.drag_interval_s = float(drag_interval_s)
        self._last_drag_emit = -np.inf
        self._enu = np.zeros((0, 3))
        self._names: list[str] = []
        self._diam = np.zeros(0)
        self._groups = None
        self._brushes = pg.mkBrush(PALETTE[0])
        self.plot_widget = pg.PlotWidget()
        self.plot_item = self.plot_widget.getPlotItem()
        self.plot_item.setAspectLocked(True)
        plain_axes(self.plot_item)
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        self.plot_item.setLabel("bottom", "East (m)")
        self.plot_item.setLabel("left", "North (m)")
        self.scatter = _AntennaScatter(
            self, pen=pg.mkPen("w", width=1), brush=pg.mkBrush(PALETTE[0]), size=MARKER_PX,
            pxMode=True, hoverable=True, tip=self._tip,
        )  # fmt: skip
        self.plot_item.addItem(self.scatter)
        self.labels: list[pg.TextItem] = []
        self._label_order = np.zeros(0, dtype=int)  # the labels by preference: outermost first
        vb = self.plot_item.getViewBox()
        vb.sigRangeChanged.connect(self._declutter)
        vb.sigResized.connect(self._declutter)
        self.info_label = QtWidgets.QLabel(" ")
        self.info_label.setWordWrap(True)  # a narrow panel wraps it instead of widening
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.plot_widget, 1)
        layout.addWidget(self.info_label)

    def set_antennas(self, enu, names=None, diameters=None, groups=None) -> None:
        """Show antennas.

        Parameters
        ----------
        enu : (n, 3) float
            East, north, up positions, metres.
        names : sequence of str, optional
            Antenna names (default ``"0"``, ``"1"``, ...).
        diameters : (n,) float, optional
            Dish diameters, metres (shown in the tool tip).
        groups : (n,) int, optional
            Subarrays of a combined layout (VLA A + D): each drawn in its own colour,
            baselines counted within one only.
        """
        enu = np.array(enu, dtype=np.float64, ndmin=2)
        if enu.ndim != 2 or enu.shape[1] != 3:
            raise ValueError(f"enu must be (n, 3), got {enu.shape}")
        n = enu.shape[0]
        names = [str(k) for k in range(n)] if names is None else [str(s) for s in names]
        diam = np.full(n, np.nan) if diameters is None else np.broadcast_to(diameters, (n,))
        if len(names) != n:
            raise ValueError(f"{len(names)} names for {n} antennas")
        self._enu, self._names, self._diam = enu, names, np.array(diam, dtype=np.float64)
        self._groups = None if groups is None else np.asarray(groups).reshape(n)
        brushes = pg.mkBrush(PALETTE[0])
        if self._groups is not None:
            palette = [pg.mkBrush(c) for c in PALETTE]
            brushes = [palette[int(g) % len(palette)] for g in self._groups]
        self._brushes = brushes
        self.scatter.setData(x=enu[:, 0], y=enu[:, 1], data=np.arange(n), brush=brushes)
        for item in self.labels:
            self.plot_item.removeItem(item)
        self.labels = []
        if n <= MAX_LABELS:
            for k in range(n):
                text = pg.TextItem(names[k], color=(200, 200, 200), anchor=LABEL_ANCHORS[0])
                text.textItem.document().setDocumentMargin(1)  # a name as tall as its line
                text.setPos(enu[k, 0], enu[k, 1])
                self.plot_item.addItem(text)
                self.labels.append(text)
            centre = np.median(enu[:, :2], axis=0)
            self._label_order = np.argsort(-np.hypot(*(enu[:, :2] - centre).T), kind="stable")
        self._update_info()
        self.plot_item.getViewBox().autoRange(padding=0.12)
        self._declutter()

    def positions(self) -> np.ndarray:
        """Current (n, 3) east, north, up positions, metres (a copy)."""
        return self._enu.copy()

    def names(self) -> list[str]:
        return list(self._names)

    def move_antenna(self, index: int, east: float, north: float) -> None:
        """Move one antenna without emitting a signal (up is unchanged)."""
        self._enu[index, :2] = east, north
        self.scatter.setData(
            x=self._enu[:, 0], y=self._enu[:, 1], data=np.arange(len(self._enu)),
            brush=self._brushes,
        )  # fmt: skip
        if self.labels:
            self.labels[index].setPos(east, north)
            self._declutter()
        self._update_info()

    def drag(self, index: int, east: float, north: float) -> None:
        """Drag in progress: move the point, emit ``antenna_dragged`` (throttled)."""
        self.move_antenna(index, east, north)
        now = time.monotonic()
        if now - self._last_drag_emit >= self.drag_interval_s:
            self._last_drag_emit = now
            self.antenna_dragged.emit(index, float(east), float(north))

    def finish_drag(self, index: int, east: float, north: float) -> None:
        """Drag released: move the point and emit ``antenna_moved``."""
        self.move_antenna(index, east, north)
        self._last_drag_emit = -np.inf
        self.antenna_moved.emit(index, float(east), float(north))

    def shown_labels(self) -> list[pg.TextItem]:
        """The antenna names drawn now (the others would overlap them)."""
        return [t for t in self.labels if t.isVisible()]

    def _declutter(self, *_args) -> None:
        """Names inside the plot, clear of each other and of the other antennas' points."""
        if not self.labels:
            return
        vb = self.plot_item.getViewBox()
        order = self._label_order
        points = marker_rects(vb, self._enu[:, 0], self._enu[:, 1], MARKER_PX)
        texts = [self.labels[k] for k in order]
        declutter(vb, texts, anchors=LABEL_ANCHORS, markers=points, own=order)

    def _tip(self, x: float, y: float, data) -> str:
        k = int(data)
        d = self._diam[k] if k < self._diam.size else np.nan
        dish = f"\n⌀ {d:g} m" if np.isfinite(d) else ""
        return f"{self._names[k]}\nE {x:.1f} m, N {y:.1f} m{dish}"

    def _update_info(self) -> None:
        n = len(self._enu)
        if n < 2:
            self.info_label.setText(f"{n} antenna(s)")
            return
        d = self._enu[:, None, :2] - self._enu[None, :, :2]
        p, q = np.triu_indices(n, 1)
        if self._groups is not None:
            keep = self._groups[p] == self._groups[q]
            p, q = p[keep], q[keep]
        lengths = np.hypot(d[..., 0], d[..., 1])[p, q]
        self.info_label.setText(
            f"{n} antennas, {lengths.size} baselines, "
            f"shortest {lengths.min():.1f} m, longest {lengths.max():.1f} m"
        )
