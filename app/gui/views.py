"""The main window's views: an overview grid and tabs, fed partial and full results.

Tabs (in the order of :data:`~uvlab.app.gui.tabs.VIEW_TABS`): *Overview* (array
layout, uv coverage, dirty image, PSF), *Sky model*
(the components and the image sky rendered on the image grid), *Fourier plane*
(|FT(sky)| with the uv samples over it), *Primary beam* (the power beam |E|² over the
field with the components on it, when the Instrument tab has a beam), *Deconvolution*
(CLEAN, on request), *Aliasing*, *Pinned* (a state kept aside, beside the current one:
:mod:`uvlab.app.gui.pin_view`), *Timing* (the last CPU run and the last GPU run side by
side) and *Log*. The dirty, PSF and sky-model views share zoom and crosshair.

While a job streams, the growing uv tracks are drawn as a one-colour density of
the first channel's samples so far (at most :data:`UV_LIVE_ROWS` rows; redrawn
with the preview image at most every :data:`PARTIAL_S` seconds, so that drawing
never stalls the GUI); the
final result replaces it with every sample of every channel, coloured by time.
Each image view fits its image after every result until the user zooms; the
PSF opens zoomed on its main lobe and inner sidelobes (:data:`PSF_ZOOM`).

Drawing in stages. A result or partial is handed to the views at once (their
``image()``, ``points()``, ... answer with it), but the stretching, binning and
drawing happen one view per event-loop iteration, in :data:`DRAW_ORDER`, so
that the GUI never stalls for the whole result; a view in a hidden tab draws
when its tab is shown. :meth:`ViewTabs.is_drawing` says whether views on
screen still wait. The *display* stage of the timing view is the time spent
drawing the result in the views on screen.
"""

from __future__ import annotations

import time

import numpy as np
from PyQt6 import QtCore, QtWidgets

from uvlab.app.gui.aliasing_view import AliasingView
from uvlab.app.gui.boxes import boxed
from uvlab.app.gui.deconvolution_view import DeconvolutionView
from uvlab.app.gui.pin_view import PinView
from uvlab.app.gui.tabs import VIEW_TABS
from uvlab.app.lab.fourier_plane import MAX_NPIX as FT_MAX_NPIX
from uvlab.app.lab.jobs import AliasingOutput, ImageOutput, JobResult, Partial
from uvlab.widgets import (
    ArrayLayoutView,
    FourierPlaneView,
    LogView,
    PrimaryBeamView,
    SkyImageView,
    TimingView,
    UvCoverageView,
    link_crosshairs,
    link_zoom,
)
from uvlab.widgets._pg import pg
from uvlab.widgets.image_view import ARCMIN

PARTIAL_S = 0.3
PREVIEW_TITLE = "Preview: the data so far (natural weighting, conv)"
NO_BEAM = "No primary beam: choose one in the Instrument tab of the controls."
MS_BEAM = "A MeasurementSet's data are imaged as they are: no primary beam is applied."
#: The uv view draws up to this many points as dots, more as a density image.
UV_MAX_DOTS = 30_000
#: The live uv view bins at most this many rows (the final view bins every sample).
UV_LIVE_ROWS = 200_000
#: The PSF view's default zoom: this fraction of the image's width.
PSF_ZOOM = 0.25
#: Width shares of the overview: the dirty image, the column of PSF, uv and array.
OVERVIEW_SHARES = (5, 3)
#: Height shares of that column: PSF, uv coverage, array.
RIGHT_SHARES = (4, 4, 3)
#: The views (ViewTabs attributes) that draw a result in stages, one per event-loop
#: iteration, in this order; the time they take is the result's *display* stage ...
RESULT_VIEWS = ("dirty_view", "psf_view", "uv_view", "sky_view")
#: ... which the timing view, drawn last, shows.
DRAW_ORDER = (*RESULT_VIEWS, "fourier_view", "beam_view", "timing_view")


class ViewTabs(QtWidgets.QTabWidget):
    """All result views, with ``show_partial`` / ``show_result`` entry points."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.array_view = ArrayLayoutView()
        self.uv_view = UvCoverageView(max_points=UV_MAX_DOTS)
        self.dirty_view = SkyImageView(colormap="inferno")
        self.psf_view = SkyImageView(colormap="viridis")
        self.psf_view.set_default_zoom(PSF_ZOOM)
        self.sky_view = SkyImageView(colormap="inferno", stretch="asinh")
        # rings around the components: single-pixel points are hard to see otherwise
        ring = pg.mkPen((0, 220, 255, 200), width=1.5)
        self._sky_marks = pg.ScatterPlotItem(symbol="o", size=16, pxMode=True, brush=None, pen=ring)
        self._sky_marks.setZValue(5)
        self.sky_view.plot_item.addItem(self._sky_marks)
        self.fourier_view = FourierPlaneView()
        self.beam_view = PrimaryBeamView()
        self.beam_view.set_message(NO_BEAM)
        self.deconv_view = DeconvolutionView()
        self.aliasing_view = AliasingView()
        self.timing_view = TimingView()
        self.log_view = LogView()
        link_zoom(self.dirty_view, self.psf_view, self.sky_view)
        link_crosshairs(self.dirty_view, self.psf_view, self.sky_view)

        self.overview = self._build_overview()
        # not scrolled: the Deconvolution tab's images 2 × 2 and a column beside them, and
        # the Aliasing tab's two maps and R(X) side by side, fit 1366×768
        self.deconv_tab = self.deconv_view
        self.aliasing_tab = self.aliasing_view
        self.pin_view = PinView()  # a pinned state's image beside the current one
        for tab in VIEW_TABS:  # the Compare tab comes with compare mode
            if tab.attribute is not None:
                self.addTab(getattr(self, tab.attribute), tab.title)
        self._runs: dict[str, tuple[str, dict]] = {}
        self._last_partial_draw = {"uv": -np.inf, "dirty": -np.inf}  # monotonic s
        self.last_image: ImageOutput | None = None
        self._draw_timer = QtCore.QTimer(self)
        self._draw_timer.setSingleShot(True)
        self._draw_timer.setInterval(0)
        self._draw_timer.timeout.connect(self._draw_next)
        # the result being drawn and the seconds spent drawing it so far (its "display" time)
        self._display: tuple[ImageOutput, float] | None = None

    def _build_overview(self) -> QtWidgets.QSplitter:
        """The dirty image large on the left; PSF, uv coverage and the array stacked beside it.

        Nothing here holds the window wide: every view's minimum size is small
        (long titles are elided), so the splitters share whatever the screen
        gives, from 1366×768 up, without a scroll bar.
        """
        overview = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        right = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        for s in (overview, right):
            s.setChildrenCollapsible(False)
        overview.addWidget(boxed("Dirty image (click to add a source)", self.dirty_view))
        right.addWidget(boxed("PSF", self.psf_view))
        right.addWidget(boxed("uv coverage", self.uv_view))
        right.addWidget(boxed("Array (drag an antenna to move it)", self.array_view))
        overview.addWidget(right)
        overview.setStretchFactor(0, OVERVIEW_SHARES[0])
        overview.setStretchFactor(1, OVERVIEW_SHARES[1])
        for k, share in enumerate(RIGHT_SHARES):
            right.setStretchFactor(k, share)
        # the first show divides by these (the stretch factors only share later growth)
        overview.setSizes([100 * OVERVIEW_SHARES[0], 100 * OVERVIEW_SHARES[1]])
        right.setSizes([100 * s for s in RIGHT_SHARES])
        return overview

    # ---------------------------------------------------------------- inputs
    def set_antennas(self, antennas) -> None:
        """Show :class:`~uvlab.app.lab.jobs.Antennas` (or an ArrayLayout) in the array view."""
        if hasattr(antennas, "antenna_names"):  # an ArrayLayout
            self.array_view.set_antennas(
                antennas.enu(), antennas.antenna_names, antennas.dish_diameter, antennas.subarray
            )
        else:
            self.array_view.set_antennas(
                antennas.enu, antennas.names, antennas.diameter_m, antennas.subarray
            )

    def _set_uv(self, uv) -> None:
        self.uv_view.set_uv(
            uv.u_m, uv.v_m, freq_hz=uv.freq_hz, time=uv.time, baseline=uv.baseline, defer=True,
            of_rows=uv.of_rows,
        )  # fmt: skip

    def _set_live_uv(self, uv) -> None:
        """The growing tracks: the rows so far (at most UV_LIVE_ROWS), first channel, one colour."""
        rows = slice(None)
        if uv.nrow > UV_LIVE_ROWS:  # drawing must not stall the GUI: a seeded sample
            rows = np.random.default_rng(uv.nrow).integers(0, uv.nrow, UV_LIVE_ROWS)
        self.uv_view.set_live_uv(uv.u_m[rows], uv.v_m[rows], uv.freq_hz[:1], defer=True)

    def clear_results(self) -> None:
        """Forget the shown results (a new MeasurementSet's views start empty)."""
        for view in (self.dirty_view, self.psf_view, self.sky_view):
            view.clear()
        self._sky_marks.setData(x=[], y=[])
        self.uv_view.clear()
        self.fourier_view.clear()
        self.beam_view.set_message(NO_BEAM)
        self.deconv_view.mark_stale()
        self.aliasing_view.mark_stale()
        self.last_image = None
        self._display = None

    # -------------------------------------------------------- staged drawing
    def _waiting(self, names: tuple[str, ...] = DRAW_ORDER) -> list:
        """The views on screen, of ``names``, whose new data wait to be drawn (in that order)."""
        views = (getattr(self, name) for name in names)
        return [v for v in views if v.needs_drawing() and v.isVisible()]

    def is_drawing(self) -> bool:
        """Whether views on screen still wait to draw the newest data (drawn in stages)."""
        return self._draw_timer.isActive() or bool(self._waiting())

    def _draw_next(self) -> None:
        """Draw one waiting view; the next one in the next event-loop iteration."""
        waiting = self._waiting()
        if waiting:
            t0 = time.perf_counter()
            waiting[0].flush()
            if self._display is not None and waiting[0] is not self.timing_view:
                out, seconds = self._display
                self._display = (out, seconds + time.perf_counter() - t0)
        if not self._waiting(RESULT_VIEWS):
            self._end_display()
        if self._waiting():
            self._draw_timer.start()

    def _end_display(self) -> None:
        """The result's views on screen are drawn (or newer data came): record its display time."""
        if self._display is not None:
            out, seconds = self._display
            self._display = None
            self.record_timing(out, seconds)

    def show_partial(self, p: Partial, source: str) -> None:
        """Draw a partial result of the newest job (uv and preview at most every PARTIAL_S)."""
        self._end_display()  # a new job's data: the last result's drawing time ends here
        if p.antennas is not None and source == "ms":
            self.set_antennas(p.antennas)
        now = time.monotonic()  # the uv and the preview image each at most every PARTIAL_S
        if p.uv is not None and now - self._last_partial_draw["uv"] >= PARTIAL_S:
            self._set_live_uv(p.uv)
            self._last_partial_draw["uv"] = now
        if p.dirty is not None and p.spec is not None:
            if now - self._last_partial_draw["dirty"] >= PARTIAL_S:
                # the same title every time: a changing label would re-lay out the splitters
                self.dirty_view.set_image(p.dirty, p.spec, title=PREVIEW_TITLE, defer=True)
                self._last_partial_draw["dirty"] = now
        self._draw_timer.start()

    def show_result(self, result: JobResult) -> float:
        """Hand a complete result to the views, which draw it in stages.

        Returns the seconds spent in this call. The time spent drawing the
        views on screen is recorded as the *display* stage once they are drawn
        (when :meth:`is_drawing` turns False).
        """
        t0 = time.perf_counter()
        self._end_display()
        out = result.output
        if not isinstance(out, ImageOutput):
            # aliasing or compare: their partials drew the growing tracks; the
            # image's complete coverage comes back (the data are the same)
            if self.uv_view.is_live() and self.last_image is not None:
                self._set_uv(self.last_image.uv)
                self._draw_timer.start()
            if isinstance(out, AliasingOutput):
                self.aliasing_view.show_output(out)
            return time.perf_counter() - t0
        self.last_image = out
        self.pin_view.follow(out, result.request)
        radec = (out.ra0_rad, out.dec0_rad)
        self.dirty_view.set_image(
            out.dirty,
            out.spec,
            *radec,
            title=f"Dirty image: {out.algorithm}, {out.spec.npix}², "
            f"{out.spec.cell_arcsec:.3g}″ cells",
            defer=True,
        )
        self.psf_view.set_image(out.psf, out.spec, *radec, title="PSF (peak 1)", defer=True)
        self.sky_view.set_image(
            out.model,
            out.spec,
            *radec,
            units="Jy/pixel",
            title=f"Sky model (Stokes I), {out.nsrc} components",
            defer=True,
        )
        lm = out.sources_lm if out.sources_lm is not None else np.zeros((0, 2))
        self._sky_marks.setData(x=lm[:, 0] / ARCMIN, y=lm[:, 1] / ARCMIN)
        self._set_uv(out.uv)
        self._set_fourier(out)
        self._set_beam(out)
        if out.source == "ms" and out.antennas is not None:
            self.set_antennas(out.antennas)
        self.aliasing_view.mark_stale()
        elapsed = time.perf_counter() - t0
        self.record_timing(out, elapsed)  # the stage times now; the display time when drawn
        self._display = (out, elapsed)
        self._draw_timer.start()
        return elapsed

    def _set_fourier(self, out: ImageOutput) -> None:
        """|FT(sky model)| and every channel's (u, v) samples, in wavelengths."""
        from uvlab.gpu.constants import C_LIGHT

        if out.model_ft is None:  # the largest images: none computed
            self.fourier_view.clear()
            self.fourier_view.note.setText(
                f"|FT(sky)| is computed for images up to {FT_MAX_NPIX}² pixels"
            )
            return
        du = 1.0 / (out.spec.npix * out.spec.cell_rad)
        self.fourier_view.set_amplitude(out.model_ft, du, defer=True)
        k = np.asarray(out.uv.freq_hz, dtype=np.float64)[None, :] / C_LIGHT
        self.fourier_view.set_uv(out.uv.u_m[:, None] * k, out.uv.v_m[:, None] * k, defer=True)

    def _set_beam(self, out: ImageOutput) -> None:
        """The power beam over the field and the components on it (or why there is none)."""
        b = out.beam
        if b is None:
            self.beam_view.set_message(NO_BEAM if out.source == "synthetic" else MS_BEAM)
            return
        self.beam_view.set_sources(b.sources_lm[:, 0], b.sources_lm[:, 1], b.gain)
        title = f"Power beam |E|² ({b.label}); dashed: the image; white: half power"
        if b.gain.size:
            r = np.hypot(b.sources_lm[:, 0], b.sources_lm[:, 1])
            far = int(np.argmax(r))
            title += (
                f". The farthest component, {np.degrees(r[far]):.2f}° out, is seen at "
                f"{b.gain[far]:.2f} of its {b.flux_jy[far]:.3g} Jy"
            )
        self.beam_view.set_beam(
            b.power, b.step_rad, image_half_rad=b.image_half_rad, title=title, defer=True
        )

    def record_timing(self, out: ImageOutput, display_s: float) -> None:
        """Keep this run's stage times (last CPU run and last GPU run side by side)."""
        timing = {**out.timing, "display": display_s}
        label = f"{out.device.upper()} {out.algorithm} {out.spec.npix}²"
        self._runs[out.device] = (label, timing)
        runs = {
            lab: t for dev in ("cpu", "gpu") if dev in self._runs for lab, t in [self._runs[dev]]
        }
        self.timing_view.set_runs(runs, defer=True)
        self._draw_timer.start()  # drawn in a stage of its own when on screen
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
