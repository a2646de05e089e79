"""TimingView: stacked horizontal bars of per-stage times, one bar per run.

Stages are drawn left to right in DESIGN §4 order (``uvlab.gpu.timing.STAGES``)
with one colour per stage that never changes between updates, so CPU and GPU
runs, or several algorithms, can be compared side by side; the legend sits
beside the plot, so that it never covers a bar. A run timed several times
(``set_runs(..., spread=...)``) has an error bar at its bar's end from its
fastest to its slowest total, and its total written past it: the time axis reaches
far enough that each total ends inside the plot, clear of the legend
(:func:`x_range_for`); on a plot too narrow to leave the bars a third of it, the
totals are not written (the Compare table has them). The axis reads seconds once it
reaches 2 s, so that its numbers stay short on a narrow plot. New runs with the
same stages only move the bars (the legend stays); ``set_runs(..., defer=True)``
draws at :meth:`TimingView.flush` or when the view is next shown.
"""

from __future__ import annotations

import numpy as np
from PyQt6 import QtGui, QtWidgets

from uvlab.gpu.timing import STAGES
from uvlab.widgets._pg import pg, plain_axes

#: 12 colours for the 12 DESIGN §4 stages, then reused for any extra stage.
STAGE_COLORS = (
    "#9c755f", "#bab0ac", "#76b7b2", "#e15759", "#edc948", "#b07aa1",
    "#4e79a7", "#f28e2b", "#59a14f", "#ff9da7", "#17becf", "#8c564b",
)  # fmt: skip
BAR_HEIGHT = 0.6
#: Point size of the legend's stage names.
LEGEND_PT = 8
#: Height a legend row is given (its colour sample is 20 px), pixels.
LEGEND_ROW_PX = 21
#: Longest run label written on the axis, in characters (longer ones are elided; the
#: axis's tooltip lists them whole).
TICK_CHARS = 9
#: Pixels between a run's total and the plot's right edge.
TOTAL_PAD_PX = 6.0
#: The time axis is labelled in seconds when it reaches this far (ms); the bars stay in ms.
SECONDS_FROM_MS = 2000.0


def stage_color(stage: str, extra: list[str]) -> str:
    """Colour of a stage: by its DESIGN §4 index, extras after the known stages."""
    k = STAGES.index(stage) if stage in STAGES else len(STAGES) + extra.index(stage)
    return STAGE_COLORS[k % len(STAGE_COLORS)]


def stage_order(runs: dict[str, dict[str, float]]) -> tuple[list[str], list[str]]:
    """The stages of ``runs`` as drawn left to right, and those of them not in STAGES.

    Known stages come in DESIGN §4 order, then the others in order of first appearance.
    """
    seen = {s for r in runs.values() for s in r}
    extra = list(dict.fromkeys(s for r in runs.values() for s in r if s not in STAGES))
    return [s for s in STAGES if s in seen] + extra, extra


def tick_text(label: str, chars: int = TICK_CHARS) -> str:
    """A run's label as the axis writes it: at most ``chars`` characters, elided with …."""
    return label if len(label) <= chars else label[: chars - 1].rstrip() + "…"


def total_text(ms: float) -> str:
    """A run's total time as written at its bar's end: ``83.1 ms``, ``2.99 s``."""
    return f"{ms:.3g} ms" if ms < 999.5 else f"{ms / 1e3:.3g} s"


def x_range_for(ends_ms, text_px, width_px: float, pad_px: float = TOTAL_PAD_PX) -> float:
    """The time axis's end (ms) that keeps each run's total text inside the plot.

    A run's bar (and error bar) ends at ``ends_ms[k]``; its total, ``text_px[k]``
    pixels wide, is written just after it. On a plot ``width_px`` wide the axis
    from 0 to ``x`` puts that end at ``ends_ms[k] / x · width_px``, so each text
    fits when ``x ≥ ends_ms[k] · width_px / (width_px − text_px[k] − pad_px)``.
    """
    ends = np.asarray(ends_ms, dtype=float)
    room = np.asarray(text_px, dtype=float) + pad_px
    need = ends * width_px / np.maximum(width_px - room, 1.0)
    return max(float(need.max(initial=0.0)), float(ends.max(initial=0.0)) * 1.05, 1e-3)


def _si(x: float) -> str:
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= factor:
            return f"{x / factor:.3g} {prefix}"
    return f"{x:.3g} "


class TimingView(QtWidgets.QWidget):
    """Per-stage timing breakdown of several runs, in milliseconds."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plot_widget = pg.PlotWidget()
        self.plot_item = self.plot_widget.getPlotItem()
        self.plot_item.setLabel("bottom", "time (ms)")
        plain_axes(self.plot_item)
        self.plot_item.showGrid(x=True, alpha=0.25)
        self.plot_item.setMouseEnabled(y=False)
        # the legend beside the plot, in a view of its own: it never covers a bar
        self.legend = pg.LegendItem(labelTextSize=f"{LEGEND_PT}pt", frame=False)
        self.legend_view = pg.GraphicsView()
        self.legend.layout.setContentsMargins(0, 0, 0, 0)
        self.legend_view.scene().addItem(self.legend)
        self.legend_view.setFixedWidth(1)
        self._bars: dict[str, pg.BarGraphItem] = {}
        #: One text per run, at its bar's end: the run's total time.
        self.totals: list[pg.TextItem] = []
        self._runs: dict[str, dict[str, float]] = {}
        self._spread: dict[str, tuple[float, float]] = {}
        #: Each spread run's fastest–slowest total, ms, at its bar's end.
        self.error_bars = pg.ErrorBarItem(
            x=np.zeros(0), y=np.zeros(0), beam=0.25, pen=pg.mkPen(pg.getConfigOption("foreground"))
        )
        self.plot_item.addItem(self.error_bars)
        self._pending = False
        self._ends_ms = np.zeros(0)  # where each run's total text starts (its bar's end), ms
        self.plot_item.getViewBox().sigResized.connect(self._fit_x)
        self.throughput_label = QtWidgets.QLabel(" ")
        plots = QtWidgets.QHBoxLayout()
        plots.setSpacing(0)
        plots.addWidget(self.plot_widget, 1)
        plots.addWidget(self.legend_view)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(plots, 1)
        layout.addWidget(self.throughput_label)
        self.throughput_label.hide()  # until there is a rate to show: its height to the bars

    def set_runs(
        self,
        runs: dict[str, dict[str, float]],
        *,
        spread: dict[str, tuple[float, float]] | None = None,
        defer: bool = False,
    ) -> None:
        """Show runs.

        Parameters
        ----------
        runs : dict
            ``{run label: {stage: seconds}}``, e.g. ``{"GPU conv": timer.seconds()}``.
            The first run is drawn at the top.
        spread : dict, optional
            ``{run label: (fastest, slowest)}`` total seconds of a run timed several
            times (its stages those of its median): an error bar at its bar's end.
        defer : bool
            Draw at :meth:`flush` (or when the view is next shown), not now.
        """
        self._runs = {str(k): {str(s): float(t) for s, t in v.items()} for k, v in runs.items()}
        self._spread = {str(k): (float(lo), float(hi)) for k, (lo, hi) in (spread or {}).items()}
        self._pending = True
        if not defer:
            self.flush()

    def needs_drawing(self) -> bool:
        """Whether runs given with ``defer=True`` wait for :meth:`flush`."""
        return self._pending

    def flush(self) -> bool:
        """Draw the runs given with ``defer=True``, if any; returns whether it drew."""
        if not self._pending:
            return False
        self._pending = False
        self._draw()
        return True

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.flush()  # runs given while the view was hidden

    @property
    def bars(self) -> dict[str, pg.BarGraphItem]:
        """{stage: its bar item}, in the order drawn (left to right)."""
        self.flush()
        return self._bars

    def _draw(self) -> None:
        labels = list(self._runs)
        stages, extra = stage_order(self._runs)
        if list(self._bars) != stages:  # other stages: new bars and legend
            for item in self._bars.values():
                self.plot_item.removeItem(item)
            self.legend.clear()
            self._bars = {}
            for stage in stages:
                item = pg.BarGraphItem(
                    x0=[], y=[], width=[], height=BAR_HEIGHT,
                    brush=stage_color(stage, extra), pen=None,
                )  # fmt: skip
                self.plot_item.addItem(item)
                self.legend.addItem(item, stage)
                self._bars[stage] = item
            self._fit_legend()
        y = -np.arange(len(labels), dtype=float)  # first run on top
        left = np.zeros(len(labels))
        for stage in stages:
            ms = np.array([self._runs[k].get(stage, 0.0) * 1e3 for k in labels])
            self._bars[stage].setOpts(x0=left.copy(), y=y, width=ms)
            left += ms
        # one line per run on the axis, its total at its bar's end: six runs fit a short plot
        axis = self.plot_item.getAxis("left")
        axis.setTicks([[(yy, tick_text(k)) for yy, k in zip(y, labels)]])
        elided = [k for k in labels if tick_text(k) != k]
        axis.setToolTip("\n".join(elided))
        for item in self.totals[len(labels) :]:
            self.plot_item.removeItem(item)
        del self.totals[len(labels) :]
        while len(self.totals) < len(labels):
            text = pg.TextItem("", color=pg.getConfigOption("foreground"), anchor=(0, 0.5))
            font = QtGui.QFont(self.font())
            font.setPointSizeF(LEGEND_PT)  # as the legend: six rows fit a short plot
            text.setFont(font)
            text.textItem.document().setDocumentMargin(1)
            self.totals.append(text)
            self.plot_item.addItem(text)
        lo = np.array(
            [self._spread.get(k, (t / 1e3, t / 1e3))[0] * 1e3 for k, t in zip(labels, left)]
        )
        hi = np.array(
            [self._spread.get(k, (t / 1e3, t / 1e3))[1] * 1e3 for k, t in zip(labels, left)]
        )
        lo, hi = np.minimum(lo, left), np.maximum(hi, left)  # the median lies within
        shown = np.array([k in self._spread for k in labels], dtype=bool)
        self.error_bars.setData(
            x=left[shown], y=y[shown], left=(left - lo)[shown], right=(hi - left)[shown],
            top=np.zeros(shown.sum()), bottom=np.zeros(shown.sum()),
        )  # fmt: skip
        for item, yy, tot, end in zip(self.totals, y, left, hi):
            item.setText(total_text(tot))
            item.setPos(end, yy)  # past the error bar
        self._ends_ms = hi
        if labels:
            self.plot_item.setYRange(y.min() - 0.6, 0.6, padding=0)
            self._fit_x()

    def _fit_x(self, *_args) -> None:
        """The time axis as long as the totals need at the plot's width (:func:`x_range_for`)."""
        if not self._ends_ms.size:
            return
        width = self.plot_item.getViewBox().width()
        if width <= 1:  # not laid out yet: a guess until the view is resized
            width = 400.0
        text_px = np.array([t.textItem.boundingRect().width() for t in self.totals])
        fits = bool(np.all(text_px + TOTAL_PAD_PX <= 2.0 * width / 3.0))  # bars keep a third
        for t in self.totals:
            t.setVisible(fits)
        x = x_range_for(self._ends_ms, text_px if fits else 0.0 * text_px, width, TOTAL_PAD_PX)
        self.plot_item.setXRange(0, x, padding=0)
        # the axis in seconds past 2 s: "20 40 60", not "20000 40000 60000" run together
        axis = self.plot_item.getAxis("bottom")
        seconds = x >= SECONDS_FROM_MS
        if axis.scale != (1e-3 if seconds else 1.0):
            axis.setScale(1e-3 if seconds else 1.0)
            self.plot_item.setLabel("bottom", "time (s)" if seconds else "time (ms)")

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_legend()

    def _fit_legend(self) -> None:
        """As many legend columns as the view's height needs, and as wide as they are."""
        stages = list(self._bars)
        if not stages:
            self.legend_view.setFixedWidth(1)
            return
        rows = max(1, self.plot_widget.height() // LEGEND_ROW_PX)
        columns = -(-len(stages) // rows)
        if self.legend.columnCount != columns:
            self.legend.setColumnCount(columns)
        font = QtGui.QFont(self.font())
        font.setPointSizeF(LEGEND_PT)
        metrics = QtGui.QFontMetrics(font)
        text = max(metrics.horizontalAdvance(s) for s in stages)
        self.legend_view.setFixedWidth(columns * (text + 40) + 8)

    def spread_ms(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(y, fastest, slowest) of the error bars drawn, ms: one per run given a spread."""
        self.flush()
        o = self.error_bars.opts
        x, y = np.asarray(o["x"], dtype=float), np.asarray(o["y"], dtype=float)
        if not x.size:
            return y, x, x
        return y, x - np.asarray(o["left"], dtype=float), x + np.asarray(o["right"], dtype=float)

    def stage_widths_ms(self, stage: str) -> np.ndarray:
        """Bar widths of one stage, ms, one per run in set_runs order."""
        return np.asarray(self.bars[stage].opts["width"], dtype=float)

    def set_throughput(
        self, vis_per_s: float | None = None, source_vis_per_s: float | None = None
    ) -> None:
        """Show the gridding rate (vis/s) and predict rate (source·vis/s), if given."""
        parts = []
        if vis_per_s is not None:
            parts.append(f"gridding {_si(vis_per_s)}vis/s")
        if source_vis_per_s is not None:
            parts.append(f"predict {_si(source_vis_per_s)}source·vis/s")
        self.throughput_label.setText("   ".join(parts) or " ")
        self.throughput_label.setVisible(bool(parts))
