"""AccuracyTimeView: each run's error against its time, log-log, one labelled marker each.

The window's compare mode draws its entries here the way ``uvlab bench
pareto`` draws its fronts (issue 14): error against the DFT on y, total
time on x, both logarithmic, so that speed is read only at matched
accuracy. An optional reference curve (e.g. conv with exact ES at several
supports) is drawn as a line with its own markers. The view computes
nothing: the caller gives the numbers and the axis titles.
"""

from __future__ import annotations

import numpy as np
from PyQt6 import QtCore, QtWidgets

from uvlab.widgets._pg import PALETTE, pg, plain_axes

#: Marker size, pixels.
SYMBOL_SIZE = 10
#: Colour of the reference curve.
CURVE_COLOR = "#888888"


#: Where a label may sit against its marker (TextItem anchors), in order of preference:
#: above right, above left, below right, below left, right, left; then a line further
#: up or down (crowded markers).
LABEL_ANCHORS = (
    (0, 1), (1, 1), (0, 0), (1, 0), (-0.1, 0.5), (1.1, 0.5), (0, 2), (1, 2), (0, -1), (1, -1),
)  # fmt: skip


def _overlap(a: QtCore.QRectF, b: QtCore.QRectF) -> float:
    """Area two rectangles share (0 when apart)."""
    c = a.intersected(b)
    return max(c.width(), 0.0) * max(c.height(), 0.0)


def _label_box(mark, anchor) -> QtCore.QRectF:
    (at, size), (ax, ay) = mark, anchor
    return QtCore.QRectF(
        at.x() - ax * size.width(), at.y() - ay * size.height(), size.width(), size.height()
    )


def marker_box(at: QtCore.QPointF, size: float = SYMBOL_SIZE) -> QtCore.QRectF:
    """The square a marker of ``size`` pixels covers about its centre ``at``."""
    return QtCore.QRectF(at.x() - size / 2, at.y() - size / 2, size, size)


def place_labels(
    marks, area: QtCore.QRectF, budget: int = 3_000, *, avoid_markers: bool = True
) -> tuple[list, float]:
    """Anchors (of :data:`LABEL_ANCHORS`) for labels that overlap least, inside ``area``.

    ``marks``: (pixel position, size) of each label, at its marker. A depth-first
    search, in the anchors' order of preference, for an arrangement where no label
    overlaps another, another label's marker (:func:`marker_box`) or leaves
    ``area`` (at most ``budget`` steps); failing that, each label in turn takes
    the anchor that overlaps the labels before it and the markers least (the
    markers count only when ``avoid_markers``). Returns the anchors and the total
    overlap (pixels², with the part of a label outside ``area``).
    """
    boxes = [[_label_box(m, a) for a in LABEL_ANCHORS] for m in marks]
    markers = [marker_box(at) for at, _size in marks]
    # the markers a label must keep clear of: all but its own and those on top of it
    others = [[m for m in markers if not m.intersects(own)] for own in markers]
    if not avoid_markers:
        others = [[] for _ in markers]

    def cost(k: int, i: int, chosen) -> float:
        box = boxes[k][i]
        apart = sum(_overlap(box, boxes[j][c]) for j, c in enumerate(chosen))
        apart += sum(_overlap(box, m) for m in others[k])
        return apart + box.width() * box.height() - _overlap(box, area)

    steps = 0

    def search(chosen: list[int]) -> list[int] | None:
        nonlocal steps
        if len(chosen) == len(marks):
            return chosen
        for i in range(len(LABEL_ANCHORS)):
            steps += 1
            if steps > budget:
                return None
            if cost(len(chosen), i, chosen) == 0:
                found = search([*chosen, i])
                if found is not None:
                    return found
        return None

    chosen = search([])
    if chosen is None:  # crowded: each label where it overlaps those before it least
        chosen = []
        for k in range(len(marks)):
            chosen.append(min(range(len(LABEL_ANCHORS)), key=lambda i, k=k: cost(k, i, chosen)))
    total = sum(cost(k, i, chosen[:k]) for k, i in enumerate(chosen))
    return [LABEL_ANCHORS[i] for i in chosen], total


def log_ticks(lo: float = -15.0, hi: float = 5.0) -> list[list[tuple[float, str]]]:
    """Ticks of a log10 axis from 10^lo to 10^hi: decades, then 2× and 5× (two levels).

    pyqtgraph's own log ticks label every integer multiple, which crowds a short axis;
    it drops the second level's text where it does not fit.
    """
    decades = np.arange(np.floor(lo), np.ceil(hi) + 1)
    major = [(float(d), f"{10.0**d:g}") for d in decades]
    minor = [(float(d + np.log10(f)), f"{f * 10.0**d:g}") for d in decades for f in (2, 5)]
    return [major, minor]


def _positive(time_s, error) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """float arrays and the mask of points a log-log plot can show (finite, > 0)."""
    t = np.asarray(time_s, dtype=float).ravel()
    e = np.asarray(error, dtype=float).ravel()
    if t.shape != e.shape:
        raise ValueError(f"{t.size} times for {e.size} errors")
    ok = np.isfinite(t) & np.isfinite(e) & (t > 0) & (e > 0)
    return t, e, ok


class AccuracyTimeView(QtWidgets.QWidget):
    """Error against time, log-log: one coloured, labelled marker per run.

    Parameters
    ----------
    error_label : str
        Title of the y axis (what the error is).
    time_label : str
        Title of the x axis.

    Attributes
    ----------
    points : list of pg.PlotDataItem
        One item per shown run, in :meth:`set_points` order (its ``xData``,
        ``yData`` are the time and error given).
    labels : list of pg.TextItem
    curve : pg.PlotDataItem
        The reference curve (empty when none).
    """

    def __init__(self, error_label: str = "error", time_label: str = "time (s)", parent=None):
        super().__init__(parent)
        self.plot_widget = pg.PlotWidget()
        self.plot_item = self.plot_widget.getPlotItem()
        self.plot_item.setLogMode(x=True, y=True)
        plain_axes(self.plot_item)
        for name in ("bottom", "left"):
            self.plot_item.getAxis(name).setTicks(log_ticks())
        self.plot_item.showGrid(x=True, y=True, alpha=0.25)
        self.plot_item.setLabel("bottom", time_label)
        self.plot_item.setLabel("left", error_label)
        self.curve = pg.PlotDataItem(
            [], [], pen=pg.mkPen(CURVE_COLOR, width=1, style=pg.QtCore.Qt.PenStyle.DashLine),
            symbol="o", symbolSize=5, symbolPen=None, symbolBrush=CURVE_COLOR,
        )  # fmt: skip
        self.plot_item.addItem(self.curve)
        self.points: list[pg.PlotDataItem] = []
        self.labels: list[pg.TextItem] = []
        self._texts: list[tuple[str, str]] = []  # (full, short) of each shown label
        self.curve_labels: list[pg.TextItem] = []
        self.note = QtWidgets.QLabel(" ")
        self.note.setWordWrap(True)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot_widget, 1)
        layout.addWidget(self.note)
        self.note.hide()
        self.plot_item.vb.sigResized.connect(self._place_labels)
        self.plot_item.vb.sigRangeChanged.connect(self._place_labels)

    def set_points(self, time_s, error, labels, short_labels=None) -> None:
        """One marker per run at (time, error), labelled; non-positive values are left out.

        Parameters
        ----------
        time_s : (n,) float
            Total time of each run, seconds (> 0 to be shown).
        error : (n,) float
            Its error (> 0 to be shown).
        labels : sequence of n str
        short_labels : sequence of n str, optional
            What the labels read instead where the full ones cannot all be placed
            clear of each other and of the markers (e.g. the entries' numbers).
        """
        t, e, ok = _positive(time_s, error)
        labels = [str(s) for s in labels]
        if len(labels) != t.size:
            raise ValueError(f"{len(labels)} labels for {t.size} points")
        short = labels if short_labels is None else [str(s) for s in short_labels]
        if len(short) != t.size:
            raise ValueError(f"{len(short)} short labels for {t.size} points")
        self._texts = [(labels[k], short[k]) for k in np.flatnonzero(ok)]
        for item in self.points + self.labels:
            self.plot_item.removeItem(item)
        self.points, self.labels = [], []
        shown = np.flatnonzero(ok)
        lt = np.log10(t[shown]) if shown.size else np.zeros(1)
        lt_mid = 0.5 * (lt.min() + lt.max())
        for k in shown:
            color = PALETTE[k % len(PALETTE)]
            item = pg.PlotDataItem(
                [t[k]], [e[k]], pen=None, symbol="o", symbolSize=SYMBOL_SIZE,
                symbolPen=pg.mkPen("k", width=0.5), symbolBrush=color, name=labels[k],
            )  # fmt: skip
            # a label reads away from the plot's nearer side edge, so none is cut off
            # (:meth:`_place_labels` moves it where it would overlap another or the edge)
            text = pg.TextItem(
                labels[k], color=color, anchor=(1 if np.log10(t[k]) >= lt_mid else 0, 1)
            )
            text.setPos(np.log10(t[k]), np.log10(e[k]))  # a TextItem is placed in log10 units
            self.plot_item.addItem(item)
            self.plot_item.addItem(text)
            self.points.append(item)
            self.labels.append(text)
        left = [labels[k] for k in np.flatnonzero(~ok)]
        self.note.setText(f"Not shown (error or time not > 0): {', '.join(left)}" if left else " ")
        self.note.setVisible(bool(left))
        self._fit()
        self._place_labels()

    def set_curve(self, time_s=(), error=(), labels=()) -> None:
        """A reference curve through (time, error) (empty: none), its points labelled."""
        t, e, ok = _positive(time_s, error)
        labels = [str(s) for s in labels]
        for item in self.curve_labels:
            self.plot_item.removeItem(item)
        self.curve_labels = []
        order = np.argsort(t[ok], kind="stable")
        self.curve.setData(t[ok][order], e[ok][order])
        for k in np.flatnonzero(ok) if len(labels) == t.size else ():
            text = pg.TextItem(labels[k], color=CURVE_COLOR, anchor=(1, 0))
            text.setPos(np.log10(t[k]), np.log10(e[k]))
            self.plot_item.addItem(text)
            self.curve_labels.append(text)
        self._fit()

    def _place_labels(self, *_args) -> None:
        """Each marker's label beside it, clear of the other labels, the markers and the edges.

        In order of preference: the full labels, then the short ones, clear of each
        other and of the markers (no label hides a point); failing both, clear of
        each other only.
        """
        vb = self.plot_item.vb
        area = vb.sceneBoundingRect()
        texts = self._texts
        shorter = any(full != short for full, short in texts)
        tries = [(use, avoid) for avoid in (True, False) for use in ((0, 1) if shorter else (0,))]
        best = None
        for use, avoid in tries:
            marks = []
            for text, point, words in zip(self.labels, self.points, texts):
                at = vb.mapViewToScene(QtCore.QPointF(*np.log10([point.xData[0], point.yData[0]])))
                marks.append((at, self._text_size(text, words[use])))
            anchors, overlap_px2 = place_labels(marks, area, avoid_markers=avoid)
            if best is None or overlap_px2 < best[0]:
                best = (overlap_px2, use, anchors)
            if overlap_px2 == 0:
                break
        if best is None:
            return
        _, use, anchors = best
        for text, words, anchor in zip(self.labels, texts, anchors):
            if text.toPlainText() != words[use]:
                text.setText(words[use])
            text.setAnchor(anchor)

    @staticmethod
    def _text_size(text: pg.TextItem, words: str) -> QtCore.QSizeF:
        """The size ``text`` would have reading ``words`` (its font, no change made)."""
        if text.toPlainText() == words:
            return text.textItem.boundingRect().size()
        probe = QtWidgets.QGraphicsTextItem(words)
        probe.setFont(text.textItem.font())
        probe.document().setDocumentMargin(text.textItem.document().documentMargin())
        return probe.boundingRect().size()

    def point_data(self) -> tuple[np.ndarray, np.ndarray]:
        """(time, error) of the markers shown, in :meth:`set_points` order."""
        if not self.points:
            return np.empty(0), np.empty(0)
        t = np.concatenate([p.xData for p in self.points])
        e = np.concatenate([p.yData for p in self.points])
        return t, e

    def _fit(self) -> None:
        t, e = self.point_data()
        ct, ce = self.curve.xData, self.curve.yData
        if ct is not None and ct.size:
            t, e = np.concatenate([t, ct]), np.concatenate([e, ce])
        if not t.size:
            return
        lt, le = np.log10(t), np.log10(e)
        # room at the top for the labels, which sit above their markers
        self.plot_item.setXRange(lt.min() - 0.25, lt.max() + 0.25, padding=0)
        self.plot_item.setYRange(le.min() - 0.3, le.max() + 0.5, padding=0)
