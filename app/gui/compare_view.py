"""The Compare tab: entries against the DFT, one entry's images at a time, all entries' numbers.

The tab fits a laptop screen (1366×768) for up to six entries, each image
view at least 300 px, with no scroll bar: instead of one column per entry it
shows

- a row of entry tabs (the *shown entry*) and the two entries of the difference;
- three large image views side by side: the shown entry's dirty image, its
  error map ``|I − I_DFT| / peak(I_DFT)``, and the difference A − B;
- a strip with every entry at once: the metrics table (backend, RMS error
  over the central half and the full image, maximum error, median time with
  the fastest and slowest of the timed runs, gridding rate; each header's
  tooltip says what it measures; clicking a row shows that entry), each
  entry's RMS error (full image) against its median total time, log-log, as
  ``uvlab bench pareto`` plots its fronts (a match's conv candidates,
  :mod:`uvlab.app.lab.conv_match`, as a dashed curve; labels clear of each
  other and of the markers, the entries' numbers where the names cannot be),
  and the per-stage timing bars of the median run with the runs' spread as
  error bars.

The three views share zoom, pan and crosshair. Dirty images share one linear
colour scale and error maps one logarithmic scale over all entries, so
colours compare as the shown entry changes. Nothing is computed until
*Compare* is pressed; the report PNG and ``metrics.json`` are those of
``uvlab compare``.
"""

from __future__ import annotations

import numpy as np
from PyQt6 import QtCore, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.app.gui.boxes import boxed
from uvlab.app.gui.on_demand import OnDemand
from uvlab.app.lab.compare_task import CompareOutput
from uvlab.app.lab.conv_match import MATCH_METRIC
from uvlab.widgets import (
    AccuracyTimeView,
    MetricsTable,
    SkyImageView,
    TimingView,
    link_crosshairs,
    link_zoom,
)

#: Smallest height of the strip with every entry's numbers (table and plots), pixels.
STRIP_MIN_HEIGHT = 180
#: Shares of the strip's width: the table (at most as wide as its columns need), the
#: error-against-time plot, the timing plot (what the table leaves goes to the plots).
STRIP_STRETCH = (10, 5, 6)
#: Share of the spare height the image row takes, against the strip's (1).
IMAGE_STRETCH = 3
#: Dynamic range of the shared logarithmic colour scale of the error maps.
ERROR_RANGE = 1e-6
NOT_COMPUTED = (
    "No comparison yet. Choose the entries in the Compare tab of the controls and press "
    "Compare: each entry images the current data and is measured against the exact DFT."
)


def _compact(view: SkyImageView) -> SkyImageView:
    """An image view of the tab: its FITS entry hidden (the comparison exports a report)."""
    view.fits_action.setVisible(False)
    return view


def shared_levels(results) -> tuple[tuple[float, float], tuple[float, float] | None]:
    """Colour levels every entry shares: the dirty images' (min, max), the error maps' log10 range.

    The error maps' range runs from the 1st percentile of the positive errors
    (at least ``ERROR_RANGE`` × the largest) to the largest; None when all are 0.
    """
    lo = min(float(r.image.min()) for r in results)
    hi = max(float(r.image.max()) for r in results)
    top = max(float(r.error.max()) for r in results)
    if not top > 0:
        return (lo, hi), None
    positive = np.concatenate([r.error[r.error > 0].ravel() for r in results])
    floor = max(float(np.percentile(positive, 1)), top * ERROR_RANGE, 1e-300)
    return (lo, hi), (float(np.log10(floor)), float(np.log10(top)))


def _entry_combo() -> QtWidgets.QComboBox:
    combo = QtWidgets.QComboBox()
    policy = QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
    combo.setSizeAdjustPolicy(policy)
    combo.setMinimumContentsLength(10)  # long labels are elided, not widening the row
    return combo


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
        self._levels: tuple[tuple[float, float], tuple[float, float] | None] | None = None
        self.compute_button = QtWidgets.QPushButton("Compare")
        self.report_button = QtWidgets.QPushButton("Save report PNG…")
        self.metrics_button = QtWidgets.QPushButton("Save metrics.json…")
        for b in (self.report_button, self.metrics_button):
            b.setEnabled(False)
        self.note = QtWidgets.QLabel(NOT_COMPUTED)
        self.note.setWordWrap(True)
        # the shown entry: tabs that shrink (labels elided, full label as tooltip), no scrolling
        self.entry_bar = QtWidgets.QTabBar()
        self.entry_bar.setElideMode(QtCore.Qt.TextElideMode.ElideRight)
        self.entry_bar.setUsesScrollButtons(False)
        self.entry_bar.setDrawBase(False)
        self.diff_a, self.diff_b = _entry_combo(), _entry_combo()
        self.image_view = _compact(SkyImageView(colormap="inferno", stretch="linear"))
        self.error_view = _compact(SkyImageView(colormap="magma", stretch="log"))
        self.diff_view = _compact(SkyImageView(colormap="blue-red", stretch="linear"))
        link_zoom(*self.all_views())
        link_crosshairs(*self.all_views())
        self._image_box = boxed("Dirty image", self.image_view)
        self._error_box = boxed("|I − I_DFT| / peak", self.error_view)
        self._diff_box = boxed("Difference A − B", self.diff_view)
        self.metrics_table = MetricsTable()
        self.accuracy_view = AccuracyTimeView(
            "RMS |I − I_DFT| / peak", "total time (s): sum of stages"
        )
        self.timing_view = TimingView()
        self._timing_box = boxed("Timing per stage", self.timing_view)
        self._layout()
        self.compute_button.clicked.connect(self.compute_requested)
        self.report_button.clicked.connect(self._ask_report)
        self.metrics_button.clicked.connect(self._ask_metrics)
        self.entry_bar.currentChanged.connect(self._show_entry)
        self.metrics_table.cellClicked.connect(self._on_table_click)
        self.diff_a.currentIndexChanged.connect(self._show_difference)
        self.diff_b.currentIndexChanged.connect(self._show_difference)

    def _layout(self) -> None:
        head = QtWidgets.QHBoxLayout()
        head.addWidget(self.compute_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        head.addWidget(self.note, 1)
        for b in (self.report_button, self.metrics_button):
            head.addWidget(b, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        pick = QtWidgets.QHBoxLayout()
        pick.addWidget(QtWidgets.QLabel("Shown entry:"))
        pick.addWidget(self.entry_bar, 1)
        pick.addSpacing(12)
        pick.addWidget(QtWidgets.QLabel("Difference A"))
        pick.addWidget(self.diff_a)
        pick.addWidget(QtWidgets.QLabel("− B"))
        pick.addWidget(self.diff_b)
        self._images = QtWidgets.QWidget()
        images = QtWidgets.QHBoxLayout(self._images)
        images.setContentsMargins(0, 0, 0, 0)
        for box in (self._image_box, self._error_box, self._diff_box):
            images.addWidget(box, 1)
        self._strip = QtWidgets.QWidget()
        strip = QtWidgets.QHBoxLayout(self._strip)
        strip.setContentsMargins(0, 0, 0, 0)
        # shares of the width, not the parts' own size hints: the table no wider than its
        # columns need (show_output), its columns fitted to what it gets (elided, with
        # tooltips), so that both plots keep room at 1280×720 with the controls open
        ignored = QtWidgets.QSizePolicy.Policy.Ignored
        for part, stretch in zip(
            (self.metrics_table, self.accuracy_view, self._timing_box), STRIP_STRETCH
        ):
            part.setSizePolicy(ignored, part.sizePolicy().verticalPolicy())
            strip.addWidget(part, stretch)
        self._strip.setMinimumHeight(STRIP_MIN_HEIGHT)
        self._body = QtWidgets.QWidget()
        body = QtWidgets.QVBoxLayout(self._body)
        body.setContentsMargins(0, 0, 0, 0)
        body.addLayout(pick)
        body.addWidget(self._images, IMAGE_STRETCH)
        body.addWidget(self._strip, 1)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addLayout(head)
        lay.addWidget(self._body, 1)
        self._body.hide()  # until the first comparison

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        QtCore.QTimer.singleShot(0, self._fit_image_row)  # once the boxes have their widths

    def _fit_image_row(self) -> None:
        """No taller an image row than square views need: the rest of the height to the strip.

        A wide, tall window (1920×1080) otherwise gives the image row height that
        its views, as wide as a third of the tab, leave empty, and the plots stay small.
        """
        box, view = self._image_box, self.image_view
        if not self._body.isVisible() or view.width() <= 0:
            return
        square = view.width() + (box.height() - view.height())  # views as tall as wide
        height = max(square, self._images.minimumSizeHint().height())
        if self._images.maximumHeight() != height:
            self._images.setMaximumHeight(height)

    # ---------------------------------------------------------------- views
    def all_views(self) -> list[SkyImageView]:
        """The image views: the shown entry's dirty image and error map, the difference."""
        return [self.image_view, self.error_view, self.diff_view]

    def shown_entry(self) -> str | None:
        """The label of the entry whose images are shown (None before a comparison)."""
        k = self.entry_bar.currentIndex()
        return self.output.labels[k] if self.output is not None and k >= 0 else None

    def show_entry(self, label: str) -> None:
        """Show this entry's dirty image and error map (ValueError if not in the comparison)."""
        labels = self.output.labels if self.output is not None else []
        if label not in labels:
            raise ValueError(f"no entry {label!r} in the comparison; entries: {labels}")
        self.entry_bar.setCurrentIndex(labels.index(label))

    # ---------------------------------------------------------------- state
    def set_running(self, running: bool) -> None:
        if running:
            self.note.setText("Comparing: DFT reference and one image per entry …")
        elif self.note.text().startswith("Comparing"):  # failed or cancelled
            self.note.setText("The comparison did not finish: press Compare to try again.")

    # ---------------------------------------------------------------- output
    def show_output(self, out: CompareOutput) -> None:
        """Draw a CompareOutput: table, plots, the first entry's images, the difference."""
        cmp, labels = out.comparison, out.labels
        self.output, self._computed = out, True
        self._levels = shared_levels([cmp.results[lab] for lab in labels])
        table = self.metrics_table
        table.set_metrics(out.table())
        table.setMaximumWidth(table.natural_width())  # the rest of its share to the plots
        self._body.show()
        QtCore.QTimer.singleShot(0, self._fit_image_row)
        self._plot(out)
        with QtCore.QSignalBlocker(self.entry_bar):
            while self.entry_bar.count():
                self.entry_bar.removeTab(0)
            for k, lab in enumerate(labels):
                self.entry_bar.addTab(f"{k + 1} {lab}")
                self.entry_bar.setTabToolTip(k, f"Entry {k + 1}: {lab}")
            self.entry_bar.setCurrentIndex(0)
        self._show_entry(0)
        for combo, index in ((self.diff_a, 0), (self.diff_b, 1)):
            with QtCore.QSignalBlocker(combo):
                combo.clear()
                combo.addItems(labels)
                combo.setCurrentIndex(min(index, len(labels) - 1))
        self._show_difference()
        self.timing_view.set_runs(
            {lab: cmp.results[lab].timing for lab in labels}, spread=out.timing_spread()
        )
        spec = cmp.spec
        self.note.setText(
            f"{len(labels)} entries, {spec.npix}² pixels of {spec.cell_arcsec:.3g}″, "
            f"{cmp.nvis} visibilities: {out.description}. Reference: {cmp.reference_label} "
            f"({cmp.reference_timing.get('dft', 0.0):.2f} s on the "
            f"{cmp.reference_device.upper()}); colours on scales shared by all entries."
            + (f" Match: {out.match.describe()}." if out.match is not None else "")
        )
        for b in (self.report_button, self.metrics_button):
            b.setEnabled(True)

    def _show_entry(self, index: int) -> None:
        """Draw entry ``index``'s dirty image and error map on the shared scales."""
        out = self.output
        if out is None or not 0 <= index < len(out.labels):
            return
        cmp, label = out.comparison, out.labels[index]
        r = cmp.results[label]
        spec, coarse = cmp.spec, cmp.reference_spec
        radec = (out.ra0_rad, out.dec0_rad)
        (lo, hi), log_levels = self._levels
        self._image_box.setTitle(f"{label}: dirty image")
        self.image_view.set_image(r.image, spec, *radec)
        self.image_view.set_levels(lo, hi)
        self._error_box.setTitle(f"{label}: |I − I_DFT| / peak")  # no plot title: narrower
        self.error_view.set_image(r.error, coarse, *radec, units="fraction of peak")
        if log_levels is not None:
            self.error_view.set_levels(*log_levels)
        table = self.metrics_table
        rows = [r for r in range(table.rowCount()) if table.item(r, 0).text() == label]
        with QtCore.QSignalBlocker(table):
            if rows:
                table.selectRow(rows[0])
            else:
                table.clearSelection()

    def _on_table_click(self, row: int, _column: int) -> None:
        item = self.metrics_table.item(row, 0)
        if item is not None and self.output is not None and item.text() in self.output.labels:
            self.show_entry(item.text())

    def _plot(self, out: CompareOutput) -> None:
        """Each entry's error against its total time; a match's conv candidates as a curve."""
        results = [out.comparison.results[lab] for lab in out.labels]
        self.accuracy_view.set_points(
            [r.total_s for r in results],
            [r.metrics[MATCH_METRIC] for r in results],
            out.labels,
            [str(k) for k in range(1, len(results) + 1)],  # as on the entry tabs, if crowded
        )
        m = out.match
        if m is None:
            self.accuracy_view.set_curve()
        else:
            labels = [f"S={s}" for s in m.supports]
            self.accuracy_view.set_curve(m.times_s, m.errors, labels, name="Match conv: conv ES")

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
