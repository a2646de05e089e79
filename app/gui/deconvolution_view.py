"""The Deconvolution tab: CLEAN live, and a slider that steps through its iterations.

The dirty image, the model, the residual and the restored image fill the
left two thirds, 2 × 2 and as tall as the tab (linked zoom and crosshairs;
each at least 300 px at 1366×768); on the right, the controls
(:class:`~uvlab.app.gui.clean_controls.CleanControls`: a
:class:`~uvlab.app.lab.state.CleanRecord`; *Clean*), a note, the step slider
and the residual's peak and RMS against iteration. The CLEAN runs in the
worker (the ``clean`` task, :mod:`uvlab.app.lab.clean_task`) and every complete
cycle is shown as it arrives; a cancel leaves the last one on screen.

The teaching slider steps through the iterations of the state shown: at k the
model holds the first k components and the residual is ``dirty − PSF ⊛ model_k``
(:class:`~uvlab.gpu.deconvolution.replay.ComponentReplay`, one FFT pair),
the restored image ``model_k ⊛ beam + residual_k``. At the slider's end the
views show the CLEAN's own state (for Cotton–Schwab, the major cycles'
residual). With *channels out* N > 1 (joined-channel CLEAN,
:mod:`uvlab.app.lab.joined_task`) the images are the MFS ones (WSClean's
``PREFIX-MFS-*``) and the *channel* box shows each output channel's restored image in
the restored view (0: the MFS image); the slider is off (it replays the MFS components,
which are not one PSF's). Each image fits its colour levels to itself (the colour bars give
the scale; the curves below show the residual falling); the model view rings
the pixels that hold components (those with at least :data:`RING_FRACTION` of the
largest, up to :data:`MAX_RINGS` of them: single pixels, invisible on their own).
"""

from __future__ import annotations

import numpy as np
from PyQt6 import QtCore, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.app.gui.boxes import boxed
from uvlab.app.gui.clean_controls import CleanControls
from uvlab.app.gui.on_demand import OnDemand
from uvlab.app.lab.clean_state import CleanState
from uvlab.app.lab.clean_task import CleanOptions
from uvlab.app.lab.state import CleanRecord
from uvlab.widgets import ProfilePlotView, SkyImageView, link_crosshairs, link_zoom
from uvlab.widgets._pg import pg
from uvlab.widgets.elided_label import ElidedLabel
from uvlab.widgets.image_view import ARCMIN

NOT_COMPUTED = (
    "Press Clean to CLEAN the dirty image in the background, cycle by cycle; "
    "then the slider steps through the iterations."
)


#: The model view rings the component pixels when there are at most this many.
MAX_RINGS = 100
#: ... of those holding at least this fraction of the model's largest |flux|: multiscale
#: spreads each component's flux over its scale's footprint, thousands of faint pixels
#: around a few bright ones, which would otherwise leave a point-source model unringed.
RING_FRACTION = 0.01


def ringed_pixels(model):
    """(j, i) of the model pixels the view rings: those with |flux| ≥ :data:`RING_FRACTION`
    of the largest, where there are at most :data:`MAX_RINGS` of them; none otherwise (an
    extended model, which rings would hide)."""
    mag = np.abs(np.asarray(model))
    top = float(mag.max()) if mag.size else 0.0
    if not top > 0:
        return np.zeros(0, int), np.zeros(0, int)
    j, i = np.nonzero(mag >= RING_FRACTION * top)
    if j.size > MAX_RINGS:
        return j[:0], i[:0]
    return j, i


class DeconvolutionView(OnDemand, QtWidgets.QWidget):
    """Shows :class:`~uvlab.app.lab.clean_task.CleanState` s; asks for CLEANs.

    Signals
    -------
    clean_requested()
    changed()
        A control was edited (the window records the new :class:`CleanRecord`).
    """

    clean_requested = pyqtSignal()
    changed = pyqtSignal()
    NOT_COMPUTED = NOT_COMPUTED
    STALE = "Parameters changed since this CLEAN: press Clean to update it."

    def __init__(self, parent=None):
        super().__init__(parent)
        self._computed = False
        self._state: CleanState | None = None
        self._replay = None  # ComponentReplay of _state, made at the first slider move
        self._running = False
        self.clean_controls = CleanControls()
        self.clean_controls.changed.connect(self.changed)
        self.clean_controls.clean_requested.connect(self.clean_requested)
        # one line (a wrapping label would give the tab a height-for-width), cut at a word
        # where the tab is narrow (at 1280×720 it ended '…stopped: niter; r'), whole in
        # its tooltip
        self.note = ElidedLabel(NOT_COMPUTED)
        self.note.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.dirty_view = SkyImageView(colormap="inferno")
        self.model_view = SkyImageView(colormap="inferno", stretch="asinh")
        self.residual_view = SkyImageView(colormap="inferno")
        self.restored_view = SkyImageView(colormap="inferno")
        self.image_views = (
            self.dirty_view,
            self.model_view,
            self.residual_view,
            self.restored_view,
        )
        ring = pg.mkPen((0, 220, 255, 200), width=1)
        self._marks = pg.ScatterPlotItem(symbol="o", size=7, pxMode=True, brush=None, pen=ring)
        self._marks.setZValue(5)
        self.model_view.plot_item.addItem(self._marks)
        link_zoom(*self.image_views)
        link_crosshairs(*self.image_views)
        # the four images 2 × 2 on the left, as tall as the tab (each ≥ 300 px at 1366×768);
        # the controls, the slider and the curves in a column on the right
        images = QtWidgets.QGridLayout()
        images.setSpacing(2)
        images.setContentsMargins(0, 0, 0, 0)
        for k, view in enumerate(self.image_views):  # each titled in its plot: no box
            images.addWidget(view, k // 2, k % 2)
        for k in (0, 1):
            images.setRowStretch(k, 1)
            images.setColumnStretch(k, 1)
        images_box = QtWidgets.QWidget()
        images_box.setLayout(images)
        self.curves = ProfilePlotView()
        pen = pg.mkPen((220, 50, 50), width=1.5, style=QtCore.Qt.PenStyle.DashLine)
        self.k_line = pg.InfiniteLine(0.0, angle=90, movable=False, pen=pen)
        self.curves.plot_item.addItem(self.k_line, ignoreBounds=True)
        self._cycle_lines: list = []
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setRange(0, 0)
        self.slider.setEnabled(False)
        self.slider.setToolTip(
            "Step through the CLEAN: the model of the first k components, the residual "
            "dirty − PSF ⊛ model and the restored image at iteration k"
        )
        self.k_label = QtWidgets.QLabel("iteration 0 / 0")
        self.channel_spin = QtWidgets.QSpinBox()
        self.channel_spin.setRange(-1, -1)  # -1: MFS; else the output channel, from 0
        self.channel_spin.setSpecialValueText("MFS")
        self.channel_spin.setEnabled(False)
        self.channel_spin.setToolTip(
            "Joined-channel CLEAN: the restored view shows this output channel's restored "
            "image (MFS: the channels' weighted mean, WSClean's PREFIX-MFS-image)"
        )
        self.channel_spin.valueChanged.connect(self._show_channel)
        slider_row = QtWidgets.QHBoxLayout()
        slider_row.addWidget(QtWidgets.QLabel("Step through:"))
        slider_row.addWidget(self.slider, 1)
        slider_row.addWidget(QtWidgets.QLabel("channel"))
        slider_row.addWidget(self.channel_spin)
        self.k_label.setSizePolicy(  # a long line is clipped, never squeezing the slider
            QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred
        )
        side = QtWidgets.QWidget()
        bl = QtWidgets.QVBoxLayout(side)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.setSpacing(2)
        bl.addWidget(self.clean_controls)
        bl.addWidget(self.note)
        bl.addLayout(slider_row)
        bl.addWidget(self.k_label)
        bl.addWidget(boxed("Residual peak and RMS (Jy/beam) against iteration", self.curves), 1)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        split.addWidget(images_box)
        split.addWidget(side)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 1)
        split.setSizes([640, 360])
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.setSpacing(2)
        lay.addWidget(split, 1)
        self._replay_timer = QtCore.QTimer(self)  # slider moves coalesce: the newest k wins
        self._replay_timer.setSingleShot(True)
        self._replay_timer.setInterval(0)
        self._replay_timer.timeout.connect(self._show_slider_state)
        self.slider.valueChanged.connect(self._on_slider)

    # -------------------------------------------------------------- options
    def options(self) -> CleanOptions:
        """The controls' CleanOptions (:meth:`CleanControls.options`)."""
        return self.clean_controls.options()

    def record(self) -> CleanRecord:
        """The controls as a :class:`CleanRecord`."""
        return self.clean_controls.record()

    def set_record(self, record: CleanRecord) -> None:
        """Show ``record`` in the controls (without emitting ``changed``)."""
        self.clean_controls.set_record(record)

    def set_options(self, opts: CleanOptions) -> None:
        """Show ``opts`` in the controls (and keep the fields they do not show)."""
        self.clean_controls.set_options(opts)

    # ---------------------------------------------------------------- state
    def set_running(self, running: bool) -> None:
        self._running = running
        if running:
            self.note.setText("Cleaning …")

    def is_running(self) -> bool:
        return self._running

    def set_cancelled(self) -> None:
        """The CLEAN was cancelled: the last complete cycle stays."""
        self._running = False
        s = self._state
        if s is None:
            self.note.setText("CLEAN cancelled before its first cycle.")
            return
        self.note.setText(
            f"Cancelled: showing the last complete cycle ({s.iterations} iterations). "
            + s.describe()
        )

    def set_failed(self, message: str) -> None:
        self._running = False
        self.note.setText(f"CLEAN failed: {message}")

    def state(self) -> CleanState | None:
        """The CLEAN state shown (the newest cycle, or the result)."""
        return self._state

    def show_state(self, state: CleanState) -> None:
        """Show a CLEAN state (a cycle's, or the final one), the slider at its end."""
        first = self._state is None or self._state.dirty is not state.dirty
        self._state, self._replay = state, None
        self._computed = True
        if state.done:
            self._running = False
        spec, radec = state.spec, (state.ra0_rad, state.dec0_rad)
        if first:  # a new CLEAN: its dirty image
            self.dirty_view.set_image(state.dirty, spec, *radec, title="Dirty image")
        self._show_images(state.model, state.residual, state.restored)
        k = state.iterations
        x = np.arange(state.peak.size)
        # the sub-minor loop measures the RMS where each of its loops starts (NaN between):
        # drawn through those points, not as isolated dots
        known = np.isfinite(state.rms)
        self.curves.set_curves(
            {"|peak|": (x, state.peak), "RMS": (x[known], state.rms[known])},
            xlabel="iteration",
            ylabel="Jy/beam",
        )
        for line in self._cycle_lines:
            self.curves.plot_item.removeItem(line)
        pen = pg.mkPen((150, 150, 150), width=1, style=QtCore.Qt.PenStyle.DotLine)
        self._cycle_lines = [pg.InfiniteLine(e, angle=90, pen=pen) for e in state.cycle_ends[:-1]]
        for line in self._cycle_lines:
            self.curves.plot_item.addItem(line, ignoreBounds=True)
        with QtCore.QSignalBlocker(self.slider):
            self.slider.setRange(0, k)
            self.slider.setValue(k)
        joined = state.channel_restored is not None
        self.slider.setEnabled(
            k > 0 and not joined and not self.clean_controls.multiscale_check.isChecked()
        )
        with QtCore.QSignalBlocker(self.channel_spin):
            self.channel_spin.setRange(-1, len(state.channel_restored) - 1 if joined else -1)
        self.channel_spin.setEnabled(joined)
        self._show_channel()
        self._set_k_marker(k)
        self.note.setText(state.describe())

    def _show_images(self, model, residual, restored) -> None:
        s = self._state
        spec, radec = s.spec, (s.ra0_rad, s.dec0_rad)
        self.model_view.set_image(model, spec, *radec, title="Model", units="Jy/pixel")
        j, i = ringed_pixels(model)
        self._marks.setData(x=-(i - spec.npix // 2) * spec.cell_rad / ARCMIN,
                            y=(j - spec.npix // 2) * spec.cell_rad / ARCMIN)  # fmt: skip
        self.residual_view.set_image(residual, spec, *radec, title="Residual")
        self.restored_view.set_image(restored, spec, *radec, title="Restored")

    def _show_channel(self, *_) -> None:
        """The restored view: the channel chosen's restored image (MFS: the channels' mean)."""
        s = self._state
        if s is None or s.channel_restored is None:
            return
        c = self.channel_spin.value()
        image, title = s.restored, "Restored (MFS)"
        if c >= 0:
            image = s.channel_restored[c]
            title = f"Restored, channel {c} ({s.channel_freq_hz[c] / 1e6:.4g} MHz)"
        self.restored_view.set_image(image, s.spec, s.ra0_rad, s.dec0_rad, title=title)

    def show_channel(self, c: int) -> None:
        """Show output channel ``c``'s restored image (-1: the MFS one; tests, scripts)."""
        self.channel_spin.setValue(int(c))

    def _set_k_marker(self, k: int) -> None:
        s = self._state
        n = s.iterations if s is not None else 0
        self.k_line.setValue(k)
        peak = f", residual peak {s.peak[k]:.3g}" if s is not None and k < s.peak.size else ""
        self.k_label.setText(f"iteration {k} / {n}{peak}")

    # --------------------------------------------------------------- slider
    def set_iteration(self, k: int) -> None:
        """Move the slider to iteration ``k`` and show that state now (tests, scripts)."""
        self.slider.setValue(int(k))
        self._replay_timer.stop()
        self._show_slider_state()

    def _on_slider(self, k: int) -> None:
        self._set_k_marker(k)
        self._replay_timer.start()

    def _show_slider_state(self) -> None:
        s = self._state
        if s is None:
            return
        k = self.slider.value()
        if k >= s.iterations:  # the CLEAN's own state
            self._show_images(s.model, s.residual, s.restored)
            return
        from uvlab.gpu.deconvolution import restore
        from uvlab.gpu.deconvolution.replay import ComponentReplay

        if self._replay is None:
            self._replay = ComponentReplay(s.dirty, s.psf, s.comp_j, s.comp_i, s.comp_flux)
        model, residual = self._replay.state(k)
        restored = restore(model, residual, s.beam, s.spec.cell_rad)
        self._show_images(model, residual, restored)
