"""The main window's views: an overview grid and tabs, fed partial and full results.

Tabs: *Overview* (array layout, uv coverage, dirty image, PSF), *Sky model*
(the components rendered on the image grid), *Aliasing*, *Timing* (the last
CPU run and the last GPU run side by side) and *Log*. The dirty, PSF and
sky-model views share zoom and crosshair.

While a job streams, the growing uv tracks are drawn as one plain scatter
overlay (a random subset of at most :data:`UV_PARTIAL_POINTS` points of the
first channel, redrawn with the preview image at most every :data:`PARTIAL_S` seconds) so
that drawing never stalls the GUI; the final result replaces it with the full
view (coloured by time, up to :data:`UV_FINAL_POINTS` points).
"""

from __future__ import annotations

import time

import numpy as np
from PyQt6 import QtCore, QtWidgets

from uvlab.app.gui.aliasing_view import AliasingView
from uvlab.app.lab.jobs import AliasingOutput, ImageOutput, JobResult, Partial
from uvlab.gpu.constants import C_LIGHT
from uvlab.widgets import (
    ArrayLayoutView,
    LogView,
    SkyImageView,
    TimingView,
    UvCoverageView,
    link_crosshairs,
)
from uvlab.widgets._pg import PALETTE, pg
from uvlab.widgets.image_view import ARCMIN

PARTIAL_S = 0.3
PREVIEW_TITLE = "Preview: the data so far (natural weighting, conv)"
UV_PARTIAL_POINTS = 3_000
UV_FINAL_POINTS = 30_000
_UV_SCALE = {"klambda": 1e3, "lambda": 1.0}


def _boxed(title: str, widget: QtWidgets.QWidget) -> QtWidgets.QGroupBox:
    box = QtWidgets.QGroupBox(title)
    lay = QtWidgets.QVBoxLayout(box)
    lay.setContentsMargins(2, 2, 2, 2)
    lay.addWidget(widget)
    return box


def _scrolled(widget: QtWidgets.QWidget) -> QtWidgets.QScrollArea:
    area = QtWidgets.QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
    area.setWidget(widget)
    return area


def link_zoom(*views: SkyImageView) -> None:
    """Share zoom and pan between image views of different sizes.

    pyqtgraph's ``setXLink``/``setYLink`` fight with locked aspect ratios when
    the views differ in shape; here a zoom or pan by the user in one view gives
    the others the same centre and extent (each keeps its own aspect ratio).
    """

    def follow(src: SkyImageView) -> None:
        (x0, x1), (y0, y1) = src.view_box.viewRange()
        for dst in views:
            if dst is not src and dst.image() is not None:
                dst.view_box.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)

    for v in views:
        v.view_box.sigRangeChangedManually.connect(lambda _mask, v=v: follow(v))


class ViewTabs(QtWidgets.QTabWidget):
    """All result views, with ``show_partial`` / ``show_result`` entry points."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.array_view = ArrayLayoutView()
        self.uv_view = UvCoverageView(max_points=UV_FINAL_POINTS)
        self._uv_live = pg.ScatterPlotItem(
            pen=None, size=2, pxMode=True, brush=pg.mkBrush(PALETTE[0])
        )
        self._uv_live.setZValue(5)
        # Build the scatter's symbol cache now, at start-up: the first setData of a
        # few thousand points costs ~0.1 s, which would otherwise stall the first
        # live update of a run.
        warm = np.zeros(UV_PARTIAL_POINTS)
        self._uv_live.setData(x=warm, y=warm)
        self._uv_live.hide()
        self.uv_view.plot_item.addItem(self._uv_live)
        self.dirty_view = SkyImageView(colormap="inferno")
        self.psf_view = SkyImageView(colormap="viridis")
        self.sky_view = SkyImageView(colormap="inferno", stretch="asinh")
        # rings around the components: single-pixel points are hard to see otherwise
        ring = pg.mkPen((0, 220, 255, 200), width=1.5)
        self._sky_marks = pg.ScatterPlotItem(symbol="o", size=16, pxMode=True, brush=None, pen=ring)
        self._sky_marks.setZValue(5)
        self.sky_view.plot_item.addItem(self._sky_marks)
        self.aliasing_view = AliasingView()
        self.timing_view = TimingView()
        self.log_view = LogView()
        link_zoom(self.dirty_view, self.psf_view, self.sky_view)
        link_crosshairs(self.dirty_view, self.psf_view, self.sky_view)

        overview = QtWidgets.QSplitter()
        left, right = QtWidgets.QSplitter(), QtWidgets.QSplitter()
        for s in (left, right):
            s.setOrientation(QtCore.Qt.Orientation.Vertical)
            s.setChildrenCollapsible(False)
        left.addWidget(_boxed("Array layout (drag an antenna to move it)", self.array_view))
        left.addWidget(_boxed("uv coverage", self.uv_view))
        right.addWidget(_boxed("Dirty image (click to add a source)", self.dirty_view))
        right.addWidget(_boxed("PSF", self.psf_view))
        overview.addWidget(left)
        overview.addWidget(right)
        overview.setStretchFactor(0, 2)
        overview.setStretchFactor(1, 3)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        self.overview = overview
        # in scroll areas: a narrow window scrolls instead of being held wide
        self.addTab(_scrolled(overview), "Overview")
        self.addTab(self.sky_view, "Sky model")
        self.aliasing_tab = _scrolled(self.aliasing_view)
        self.addTab(self.aliasing_tab, "Aliasing")
        self.addTab(self.timing_view, "Timing")
        self.addTab(self.log_view, "Log")
        self._runs: dict[str, tuple[str, dict]] = {}
        self._last_partial_draw = -np.inf
        self.last_image: ImageOutput | None = None

    # ---------------------------------------------------------------- inputs
    def set_antennas(self, antennas) -> None:
        """Show :class:`~uvlab.app.lab.jobs.Antennas` (or an ArrayLayout) in the array view."""
        if hasattr(antennas, "antenna_names"):  # an ArrayLayout
            self.array_view.set_antennas(
                antennas.enu(), antennas.antenna_names, antennas.dish_diameter
            )
        else:
            self.array_view.set_antennas(antennas.enu, antennas.names, antennas.diameter_m)

    def _set_uv(self, uv) -> None:
        self._uv_live.hide()
        self.uv_view.set_uv(uv.u_m, uv.v_m, freq_hz=uv.freq_hz, time=uv.time, baseline=uv.baseline)

    def _set_live_uv(self, uv) -> None:
        """The growing tracks: a subset of rows, first channel, both halves, one colour."""
        n = uv.nrow
        keep = min(n, UV_PARTIAL_POINTS // 2)
        rows = np.random.default_rng(0).choice(n, keep, replace=False) if keep < n else slice(None)
        units = self.uv_view.units()
        scale = 1.0 if units == "m" else uv.freq_hz[0] / C_LIGHT / _UV_SCALE[units]
        u, v = uv.u_m[rows] * scale, uv.v_m[rows] * scale
        for item in self.uv_view.scatter_items:
            item.hide()
        self._uv_live.setData(x=np.concatenate([u, -u]), y=np.concatenate([v, -v]))
        self._uv_live.show()

    def show_partial(self, p: Partial, source: str) -> None:
        """Draw a partial result of the newest job (uv and preview at most every PARTIAL_S)."""
        if p.antennas is not None and source == "ms":
            self.set_antennas(p.antennas)
        if time.monotonic() - self._last_partial_draw < PARTIAL_S:
            return
        if p.uv is not None:
            self._set_live_uv(p.uv)
        if p.dirty is not None and p.spec is not None:
            # the same title every time: a changing label would re-lay out the splitters
            self.dirty_view.set_image(p.dirty, p.spec, title=PREVIEW_TITLE)
        self._last_partial_draw = time.monotonic()

    def show_result(self, result: JobResult) -> float:
        """Draw a complete result; returns the seconds spent drawing."""
        t0 = time.perf_counter()
        out = result.output
        if isinstance(out, AliasingOutput):
            self.aliasing_view.show_output(out)
            return time.perf_counter() - t0
        if not isinstance(out, ImageOutput):  # a future task's output
            return 0.0
        self.last_image = out
        radec = (out.ra0_rad, out.dec0_rad)
        self.dirty_view.set_image(
            out.dirty,
            out.spec,
            *radec,
            title=f"Dirty image: {out.algorithm}, {out.spec.npix}², "
            f"{out.spec.cell_arcsec:.3g}″ cells",
        )
        self.psf_view.set_image(out.psf, out.spec, *radec, title="PSF (peak 1)")
        self.sky_view.set_image(
            out.model,
            out.spec,
            *radec,
            units="Jy/pixel",
            title=f"Sky model (Stokes I), {out.nsrc} components",
        )
        lm = out.sources_lm if out.sources_lm is not None else np.zeros((0, 2))
        self._sky_marks.setData(x=lm[:, 0] / ARCMIN, y=lm[:, 1] / ARCMIN)
        self._set_uv(out.uv)
        if out.source == "ms" and out.antennas is not None:
            self.set_antennas(out.antennas)
        self.aliasing_view.mark_stale()
        elapsed = time.perf_counter() - t0
        self.record_timing(out, elapsed)
        return elapsed

    def record_timing(self, out: ImageOutput, display_s: float) -> None:
        """Keep this run's stage times (last CPU run and last GPU run side by side)."""
        timing = {**out.timing, "display": display_s}
        label = f"{out.device.upper()} {out.algorithm} {out.spec.npix}²"
        self._runs[out.device] = (label, timing)
        runs = {
            lab: t for dev in ("cpu", "gpu") if dev in self._runs for lab, t in [self._runs[dev]]
        }
        self.timing_view.set_runs(runs)
        grid = timing.get("grid", 0.0)
        predict = timing.get("predict", 0.0)
        samples = out.uv.nrow * out.freq_hz.size
        self.timing_view.set_throughput(
            out.nvis / grid if grid > 0 else None,
            out.nsrc * samples / predict if predict > 0 and out.nsrc else None,
        )

    def timing_runs(self) -> dict[str, dict]:
        """{label: {stage: seconds}} as shown in the timing view."""
        return {lab: dict(t) for lab, t in self._runs.values()}
