"""The Compare tab: entries side by side against the DFT, with metrics and timing.

One column per entry: its dirty image above its error map
``|I − I_DFT| / peak(I_DFT)``; a last column with the difference of two
chosen entries and the per-stage timing bars. Every image view shares zoom,
pan and crosshair; dirty images share one linear colour scale and the error
maps one logarithmic scale, so colours compare across columns. The metrics
table holds the RMS error over the central half and the full image, the
maximum error and the gridding rate; beside it, each entry's RMS error (full
image) against its total time, log-log, as ``uvlab bench pareto`` plots its
fronts (with the conv candidates of a match, :mod:`uvlab.app.lab.conv_match`,
as a dashed curve). Nothing is computed until *Compare* is
pressed; the report PNG and ``metrics.json`` are those of ``uvlab compare``.
"""

from __future__ import annotations

import numpy as np
from PyQt6 import QtCore, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.app.gui.boxes import boxed
from uvlab.app.gui.on_demand import OnDemand
from uvlab.app.lab.compare_task import CompareOutput
from uvlab.app.lab.conv_match import MATCH_METRIC
from uvlab.widgets import AccuracyTimeView, MetricsTable, SkyImageView, TimingView, follow_zoom

#: Height of the metrics row (table and accuracy-time plot), pixels.
HEAD_HEIGHT = 190
#: Dynamic range of the shared logarithmic colour scale of the error maps.
ERROR_RANGE = 1e-6
NOT_COMPUTED = (
    "No comparison yet. Choose the entries in the Compare tab of the controls and press "
    "Compare: each entry images the current data and is measured against the exact DFT."
)


def _compact(view: SkyImageView) -> SkyImageView:
    """A column's view: its FITS entry hidden (the comparison exports a report instead)."""
    view.fits_action.setVisible(False)
    return view


class CompareView(OnDemand, QtWidgets.QWidget):
    """Shows a :class:`~uvlab.app.lab.compare_task.CompareOutput`.

    Signals
    -------
    compute_requested()
    """

    compute_requested = pyqtSignal()
    NOT_COMPUTED = NOT_COMPUTED
    STALE = "Parameters changed since this comparison: press Compare to update it."

    def __init__(self, parent=None):
        super().__init__(parent)
        self.output: CompareOutput | None = None
        self._computed = False
        self.compute_button = QtWidgets.QPushButton("Compare")
        self.report_button = QtWidgets.QPushButton("Save report PNG…")
        self.metrics_button = QtWidgets.QPushButton("Save metrics.json…")
        for b in (self.report_button, self.metrics_button):
            b.setEnabled(False)
        self.note = QtWidgets.QLabel(NOT_COMPUTED)
        self.note.setWordWrap(True)
        self.metrics_table = MetricsTable()
        self.accuracy_view = AccuracyTimeView(
            "RMS |I − I_DFT| / peak", "total time (s): sum of stages"
        )
        self._metrics_row = QtWidgets.QWidget()
        row = QtWidgets.QHBoxLayout(self._metrics_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.metrics_table, 3)
        row.addWidget(self.accuracy_view, 2)
        self._metrics_row.setFixedHeight(HEAD_HEIGHT)
        self.image_views: list[SkyImageView] = []
        self.error_views: list[SkyImageView] = []
        self._image_boxes: list[QtWidgets.QGroupBox] = []
        self._error_boxes: list[QtWidgets.QGroupBox] = []
        self.diff_a, self.diff_b = QtWidgets.QComboBox(), QtWidgets.QComboBox()
        self.diff_view = self._new_view("blue-red", "linear")
        pick = QtWidgets.QHBoxLayout()
        for text, w in (("A", self.diff_a), ("B", self.diff_b)):
            pick.addWidget(QtWidgets.QLabel(text))
            pick.addWidget(w, 1)
        self._diff_box = boxed("Difference A − B", pick, self.diff_view)
        self.timing_view = TimingView()
        self._timing_box = boxed("Timing per stage", self.timing_view)
        self._grid = QtWidgets.QGridLayout()
        self._grid.setContentsMargins(0, 0, 0, 0)
        body = QtWidgets.QWidget()
        body.setLayout(self._grid)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        head = QtWidgets.QHBoxLayout()
        head.addWidget(self.compute_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        head.addWidget(self.note, 1)
        for b in (self.report_button, self.metrics_button):
            head.addWidget(b, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addLayout(head)
        lay.addWidget(self._metrics_row)
        lay.addWidget(scroll, 1)
        self._metrics_row.hide()
        self._layout_columns(0)
        self.compute_button.clicked.connect(self.compute_requested)
        self.report_button.clicked.connect(self._ask_report)
        self.metrics_button.clicked.connect(self._ask_metrics)
        self.diff_a.currentIndexChanged.connect(self._show_difference)
        self.diff_b.currentIndexChanged.connect(self._show_difference)

    # ---------------------------------------------------------------- views
    def _new_view(self, colormap: str, stretch: str) -> SkyImageView:
        view = _compact(SkyImageView(colormap=colormap, stretch=stretch))
        follow_zoom(view, self.all_views)
        view.crosshair_moved.connect(lambda l, m, v=view: self._cross(v, l, m))
        return view

    def all_views(self) -> list[SkyImageView]:
        """The image views in use: dirty images, error maps, the difference."""
        n = len(self.output.labels) if self.output else 0
        return self.image_views[:n] + self.error_views[:n] + [self.diff_view]

    def _cross(self, src: SkyImageView, l: float, m: float) -> None:
        for dst in self.all_views():
            if dst is not src:
                dst.set_crosshair(l, m)

    def _layout_columns(self, n: int) -> None:
        """One column per entry, then the difference and timing column."""
        while len(self.image_views) < n:
            self.image_views.append(self._new_view("inferno", "linear"))
            self.error_views.append(self._new_view("magma", "log"))
            self._image_boxes.append(boxed("", self.image_views[-1]))
            self._error_boxes.append(boxed("", self.error_views[-1]))
        for w in self._image_boxes + self._error_boxes + [self._diff_box, self._timing_box]:
            self._grid.removeWidget(w)
        for k, (a, b) in enumerate(zip(self._image_boxes, self._error_boxes)):
            a.setVisible(k < n)
            b.setVisible(k < n)
            if k < n:
                self._grid.addWidget(a, 0, k)
                self._grid.addWidget(b, 1, k)
        self._grid.addWidget(self._diff_box, 0, n)
        self._grid.addWidget(self._timing_box, 1, n)
        for k in range(self._grid.columnCount()):
            self._grid.setColumnStretch(k, 1 if k <= n else 0)

    # ---------------------------------------------------------------- state
    def set_running(self, running: bool) -> None:
        if running:
            self.note.setText("Comparing: DFT reference and one image per entry …")
        elif self.note.text().startswith("Comparing"):  # failed or cancelled
            self.note.setText("The comparison did not finish: press Compare to try again.")

    # ---------------------------------------------------------------- output
    def show_output(self, out: CompareOutput) -> None:
        """Draw a CompareOutput: table, images, error maps, difference, timing."""
        from uvlab.gpu.image_spec import ImageSpec

        cmp, labels = out.comparison, out.labels
        self.output, self._computed = out, True
        self._layout_columns(len(labels))
        table = self.metrics_table
        table.set_metrics(out.table())
        self._metrics_row.show()
        self._plot(out)
        spec, k = cmp.spec, cmp.step
        coarse = spec if k == 1 else ImageSpec(spec.npix // k, spec.cell_rad * k)
        radec = (out.ra0_rad, out.dec0_rad)
        results = [cmp.results[lab] for lab in labels]
        lo = min(float(r.image.min()) for r in results)
        hi = max(float(r.image.max()) for r in results)
        top = max(float(r.error.max()) for r in results)
        positive = np.concatenate([r.error[r.error > 0].ravel() for r in results])
        floor = float(np.percentile(positive, 1)) if positive.size else top * ERROR_RANGE
        floor = max(floor, top * ERROR_RANGE, 1e-300)
        views = zip(self.image_views, self.error_views, self._image_boxes, self._error_boxes)
        for lab, r, (iv, ev, ib, eb) in zip(labels, results, views):
            ib.setTitle(f"{lab}: dirty image")
            iv.set_image(r.image, spec, *radec)
            iv.set_levels(lo, hi)
            eb.setTitle(f"{lab}: |I − I_DFT| / peak")  # no plot title: it would widen the plot
            ev.set_image(r.error, coarse, *radec, units="fraction of peak")
            if top > 0:
                ev.set_levels(np.log10(floor), np.log10(top))
        for combo, index in ((self.diff_a, 0), (self.diff_b, 1)):
            with QtCore.QSignalBlocker(combo):
                combo.clear()
                combo.addItems(labels)
                combo.setCurrentIndex(min(index, len(labels) - 1))
        self._show_difference()
        self.timing_view.set_runs({lab: cmp.results[lab].timing for lab in labels})
        self.note.setText(
            f"{len(labels)} entries, {spec.npix}² pixels of {spec.cell_arcsec:.3g}″, "
            f"{cmp.nvis} visibilities: {out.description}. Reference: {cmp.reference_label} "
            f"({cmp.reference_timing.get('dft', 0.0):.2f} s on the "
            f"{cmp.reference_device.upper()}); error maps on a shared log scale."
            + (f" Match: {out.match.describe()}." if out.match is not None else "")
        )
        for b in (self.report_button, self.metrics_button):
            b.setEnabled(True)

    def _plot(self, out: CompareOutput) -> None:
        """Each entry's error against its total time; a match's conv candidates as a curve."""
        results = [out.comparison.results[lab] for lab in out.labels]
        self.accuracy_view.set_points(
            [r.total_s for r in results],
            [r.metrics[MATCH_METRIC] for r in results],
            out.labels,
        )
        m = out.match
        if m is None:
            self.accuracy_view.set_curve()
        else:
            self.accuracy_view.set_curve(m.times_s, m.errors, [f"S={s}" for s in m.supports])

    def _show_difference(self) -> None:
        out = self.output
        if out is None or self.diff_a.count() == 0:
            return
        a, b = self.diff_a.currentText(), self.diff_b.currentText()
        results = out.comparison.results
        diff = 1e3 * (results[a].image - results[b].image)  # mJy: short colour-bar labels
        spec, radec = out.comparison.spec, (out.ra0_rad, out.dec0_rad)
        self.diff_view.set_image(diff, spec, *radec, units="mJy/beam")
        self._diff_box.setTitle(f"Difference A − B: {a} − {b}")

    # ---------------------------------------------------------------- export
    def save_report(self, path):
        """Write the PNG report (as ``uvlab compare``'s ``report.png``)."""
        if self.output is None:
            raise ValueError("nothing to export: run a comparison first")
        return self.output.write_report(path)

    def save_metrics(self, path):
        """Write ``metrics.json`` (the format of ``uvlab compare``)."""
        if self.output is None:
            raise ValueError("nothing to export: run a comparison first")
        return self.output.write_metrics(path)

    def _ask(self, title: str, default: str, filt: str, write) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, title, default, filt)
        if path:
            try:
                write(path)
            except (ValueError, OSError) as exc:
                self.note.setText(f"Could not write {path}: {exc}")

    def _ask_report(self) -> None:
        self._ask("Save comparison report", "report.png", "PNG (*.png)", self.save_report)

    def _ask_metrics(self) -> None:
        self._ask("Save metrics", "metrics.json", "JSON (*.json)", self.save_metrics)
