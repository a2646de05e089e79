"""TimingView: stacked horizontal bars of per-stage times, one bar per run.

Stages are drawn left to right in DESIGN §4 order (``uvlab.gpu.timing.STAGES``)
with one colour per stage that never changes between updates, so CPU and GPU
runs, or several algorithms, can be compared side by side.
"""

from __future__ import annotations

import numpy as np
from PyQt6 import QtWidgets

from uvlab.gpu.timing import STAGES
from uvlab.widgets._pg import pg, plain_axes

#: 12 colours for the 12 DESIGN §4 stages, then reused for any extra stage.
STAGE_COLORS = (
    "#9c755f", "#bab0ac", "#76b7b2", "#e15759", "#edc948", "#b07aa1",
    "#4e79a7", "#f28e2b", "#59a14f", "#ff9da7", "#17becf", "#8c564b",
)  # fmt: skip
BAR_HEIGHT = 0.6


def stage_color(stage: str, extra: list[str]) -> str:
    """Colour of a stage: by its DESIGN §4 index, extras after the known stages."""
    k = STAGES.index(stage) if stage in STAGES else len(STAGES) + extra.index(stage)
    return STAGE_COLORS[k % len(STAGE_COLORS)]


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
        self.legend = self.plot_item.addLegend(offset=(-10, 10), labelTextSize="8pt")
        self.bars: dict[str, pg.BarGraphItem] = {}
        self._runs: dict[str, dict[str, float]] = {}
        self.throughput_label = QtWidgets.QLabel(" ")
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.plot_widget, 1)
        layout.addWidget(self.throughput_label)

    def set_runs(self, runs: dict[str, dict[str, float]]) -> None:
        """Show runs.

        Parameters
        ----------
        runs : dict
            ``{run label: {stage: seconds}}``, e.g. ``{"GPU conv": timer.seconds()}``.
            The first run is drawn at the top.
        """
        self._runs = {str(k): {str(s): float(t) for s, t in v.items()} for k, v in runs.items()}
        for item in self.bars.values():
            self.plot_item.removeItem(item)
        self.legend.clear()
        self.bars = {}
        labels = list(self._runs)
        seen = {s for r in self._runs.values() for s in r}
        extra = [s for r in self._runs.values() for s in r if s not in STAGES]
        extra = list(dict.fromkeys(extra))
        stages = [s for s in STAGES if s in seen] + extra
        y = -np.arange(len(labels), dtype=float)  # first run on top
        left = np.zeros(len(labels))
        for stage in stages:
            ms = np.array([self._runs[k].get(stage, 0.0) * 1e3 for k in labels])
            color = stage_color(stage, extra)
            item = pg.BarGraphItem(
                x0=left.copy(), y=y, width=ms, height=BAR_HEIGHT, brush=color, pen=None
            )
            self.plot_item.addItem(item)
            self.legend.addItem(item, stage)
            self.bars[stage] = item
            left += ms
        ticks = [(yy, f"{k}\n{tot:.3g} ms") for yy, k, tot in zip(y, labels, left)]
        self.plot_item.getAxis("left").setTicks([ticks])
        if labels:
            self.plot_item.setYRange(y.min() - 0.6, 0.6, padding=0)
            self.plot_item.setXRange(0, max(float(left.max()), 1e-3) * 1.3, padding=0)

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
