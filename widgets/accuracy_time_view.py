"""AccuracyTimeView: each run's error against its time, log-log, one labelled marker each.

The window's compare mode draws its entries here the way ``uvlab bench
pareto`` draws its fronts (issue 14): error against the DFT on y, total
time on x, both logarithmic, so that speed is read only at matched
accuracy. An optional reference curve (e.g. conv with exact ES at several
supports, which Match conv measures) is drawn as a line with its own smaller,
grey markers and labels. Every label sits against its own marker, clear of
the others and of every marker (:mod:`uvlab.widgets.label_declutter`), the
runs' first; one that fits nowhere is hidden and its marker's tooltip names
it. The view computes nothing: the caller gives the numbers and the axis
titles.
"""

from __future__ import annotations

import numpy as np
from PyQt6 import QtCore, QtWidgets

from uvlab.widgets._pg import PALETTE, pg, plain_axes
from uvlab.widgets.label_declutter import declutter, label_rect, marker_rects

#: Marker size, pixels: a run's, a point of the reference curve's.
SYMBOL_SIZE, CURVE_SYMBOL_SIZE = 10, 5
#: Colour of the reference curve.
CURVE_COLOR = "#888888"


#: Pixels between a label's near corner and its marker's centre (above or below it,
#: the label covers a corner of its own marker) and between a label's side and its
#: marker's edge (beside it).
CORNER_GAP_PX, SIDE_GAP_PX = 2.0, 3.0
#: Steps of the search for places that show every label (``label_declutter.kept``).
SEARCH_STEPS = 3_000


def marker_box(at: QtCore.QPointF, size: float = SYMBOL_SIZE) -> QtCore.QRectF:
    """The square a marker of ``size`` pixels covers about its centre ``at``."""
    return QtCore.QRectF(at.x() - size / 2, at.y() - size / 2, size, size)


def label_anchors(
    width: float, height: float, marker: float = SYMBOL_SIZE
) -> list[tuple[float, float]]:
    """Where a ``width`` × ``height`` px label may sit against its marker, as TextItem anchors.

    In order of preference: above right, above left, below right, below left, right,
    left (``marker``: the marker's size, px). Only spots against the marker: on a
    log-log strip a line of text spans about a decade, so a label a line or two away
    would name another point; a label that fits none of these is hidden, and its
    marker's tooltip names the run.
    """
    cx, cy = CORNER_GAP_PX / width, CORNER_GAP_PX / height
    sx = (marker / 2 + SIDE_GAP_PX) / width
    right, left, up, down = -cx, 1 + cx, 1 + cy, -cy
    return [
        (right, up), (left, up), (right, down), (left, down), (-sx, 0.5), (1 + sx, 0.5),
    ]  # fmt: skip


def _anchors(text: pg.TextItem, marker: float = SYMBOL_SIZE) -> list[tuple[float, float]]:
    """:func:`label_anchors` for ``text`` at its size now, beside a ``marker`` px marker."""
    size = text.textItem.boundingRect().size()
    return label_anchors(size.width(), size.height(), marker)


def _curve_anchors(text: pg.TextItem) -> list[tuple[float, float]]:
    """:func:`label_anchors` for a label of the reference curve."""
    return _anchors(text, CURVE_SYMBOL_SIZE)


def _marker_groups(rects: list[QtCore.QRectF]) -> tuple[list[int], list[QtCore.QRectF]]:
    """Markers whose centres round to one pixel as one obstacle (their union).

    Returns each marker's obstacle index and the obstacles: a label may cover its own
    obstacle, so every marker at its marker's pixel (a run and the curve's point of the
    same setting, e.g. the conv entry Match conv added).
    """
    where: dict[tuple[int, int], int] = {}
    own = [
        where.setdefault((round(r.center().x()), round(r.center().y())), len(where)) for r in rects
    ]
    obstacles = [QtCore.QRectF() for _ in where]
    for k, r in zip(own, rects):
        obstacles[k] = r if obstacles[k].isNull() else obstacles[k].united(r)
    return own, obstacles


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
        The reference curve, a dashed line (empty when none).
    curve_points : list of pg.PlotDataItem
        One marker per point of the curve, in :meth:`set_curve` order, its label as
        tooltip.
    curve_labels : list of pg.TextItem
        Their labels.
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
            [], [], pen=pg.mkPen(CURVE_COLOR, width=1, style=pg.QtCore.Qt.PenStyle.DashLine)
        )
        self.plot_item.addItem(self.curve)
        self.points: list[pg.PlotDataItem] = []
        self.labels: list[pg.TextItem] = []
        self._texts: list[tuple[str, str]] = []  # (full, short) of each shown label
        self.curve_points: list[pg.PlotDataItem] = []
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
        for k in np.flatnonzero(ok):
            color = PALETTE[k % len(PALETTE)]
            item = pg.PlotDataItem(
                [t[k]], [e[k]], pen=None, symbol="o", symbolSize=SYMBOL_SIZE,
                symbolPen=pg.mkPen("k", width=0.5), symbolBrush=color, name=labels[k],
            )  # fmt: skip
            item.setToolTip(labels[k])  # its label may be hidden (:meth:`_place_labels`)
            text = pg.TextItem(labels[k], color=color)  # placed by :meth:`_place_labels`
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

    def set_curve(self, time_s=(), error=(), labels=(), name: str = "") -> None:
        """A reference curve through (time, error) (empty: none), its points labelled.

        ``name``: what each point's tooltip says before its label (e.g. ``"conv ES"``:
        "conv ES S=4"), which names a point whose label finds no room.
        """
        t, e, ok = _positive(time_s, error)
        labels = [str(s) for s in labels]
        for item in self.curve_points + self.curve_labels:
            self.plot_item.removeItem(item)
        self.curve_points, self.curve_labels = [], []
        order = np.argsort(t[ok], kind="stable")
        self.curve.setData(t[ok][order], e[ok][order])
        for k in np.flatnonzero(ok):
            item = pg.PlotDataItem(
                [t[k]], [e[k]], pen=None, symbol="o", symbolSize=CURVE_SYMBOL_SIZE,
                symbolPen=None, symbolBrush=CURVE_COLOR,
            )  # fmt: skip
            self.plot_item.addItem(item)
            self.curve_points.append(item)
            if len(labels) == t.size:
                item.setToolTip(f"{name} {labels[k]}".strip())
                text = pg.TextItem(labels[k], color=CURVE_COLOR)  # placed by _place_labels
                text.setPos(np.log10(t[k]), np.log10(e[k]))
                self.plot_item.addItem(text)
                self.curve_labels.append(text)
        self._fit()
        self._place_labels()

    def _place_labels(self, *_args) -> None:
        """Each marker's label against it, clear of the other labels, the markers and the edges.

        :func:`~uvlab.widgets.label_declutter.declutter`, the runs' labels in
        :meth:`set_points` order: the full labels, or the short ones where they show
        more; then the curve's, clear of the runs' labels shown. A label that fits
        nowhere is hidden (its marker tells it in its tooltip). A label may cover its
        own marker and the markers at the same pixel.
        """
        vb = self.plot_item.vb
        t, e = self.point_data()
        ct, ce = self.curve_point_data()
        marks = marker_rects(vb, np.log10(t), np.log10(e), SYMBOL_SIZE)
        marks += marker_rects(vb, np.log10(ct), np.log10(ce), CURVE_SYMBOL_SIZE)
        own, obstacles = _marker_groups(marks)
        if self.labels:
            self._place_run_labels(vb, obstacles, own[: t.size])
        if self.curve_labels:
            taken = [label_rect(vb, text) for text in self.labels if text.isVisible()]
            declutter(
                vb, self.curve_labels, anchors=_curve_anchors, markers=obstacles + taken,
                own=own[t.size :], search=SEARCH_STEPS,
            )  # fmt: skip

    def _place_run_labels(self, vb, obstacles: list, own: list[int]) -> None:
        """The runs' labels: the full ones, or the short ones where they show more."""
        placing = dict(anchors=_anchors, markers=obstacles, own=own, search=SEARCH_STEPS)
        best = None
        for use in (0, 1) if any(full != short for full, short in self._texts) else (0,):
            for text, words in zip(self.labels, self._texts):
                if text.toPlainText() != words[use]:
                    text.setText(words[use])
            shown = declutter(vb, self.labels, **placing)
            if shown == len(self.labels):
                return
            if best is None or shown > best[0]:
                best = (shown, use)
        if best[1] != use:  # the full labels showed more
            for text, words in zip(self.labels, self._texts):
                text.setText(words[best[1]])
            declutter(vb, self.labels, **placing)

    def curve_point_data(self) -> tuple[np.ndarray, np.ndarray]:
        """(time, error) of the curve's markers, in :meth:`set_curve` order."""
        if not self.curve_points:
            return np.empty(0), np.empty(0)
        t = np.concatenate([p.xData for p in self.curve_points])
        e = np.concatenate([p.yData for p in self.curve_points])
        return t, e

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
