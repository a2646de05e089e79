"""The Deconvolution tab: CLEAN live, and a slider that steps through its iterations.

Controls (deconvolver, niter, gain, mgain, threshold, auto-threshold) and a
*Clean* button sit on top; the dirty image, the model, the residual and the
restored image side by side below them (linked zoom and crosshairs); under
those the residual's peak and RMS against iteration. The CLEAN runs in the
worker (the ``clean`` task, :mod:`uvlab.app.lab.clean_task`) and every complete
cycle is shown as it arrives; a cancel leaves the last one on screen.

The teaching slider steps through the iterations of the state shown: at k the
model holds the first k components and the residual is ``dirty − PSF ⊛ model_k``
(:class:`~uvlab.gpu.deconvolution.replay.ComponentReplay`, one FFT pair),
the restored image ``model_k ⊛ beam + residual_k``. At the slider's end the
views show the CLEAN's own state (for Cotton–Schwab, the major cycles'
residual). Each image fits its colour levels to itself (the colour bars give
the scale; the curves below show the residual falling); the model view rings
the pixels that hold components, which are single pixels (up to
:data:`MAX_RINGS` of them).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PyQt6 import QtCore, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.app.gui.boxes import boxed
from uvlab.app.gui.on_demand import OnDemand
from uvlab.app.gui.panels.fields import double_spin
from uvlab.app.lab.clean_task import DECONVOLVERS, CleanOptions, CleanState
from uvlab.widgets import ProfilePlotView, SkyImageView, link_crosshairs, link_zoom
from uvlab.widgets._pg import pg
from uvlab.widgets.image_view import ARCMIN

NOT_COMPUTED = (
    "Press Clean to CLEAN the dirty image in the background, cycle by cycle; "
    "then the slider steps through the iterations."
)


class _Note(QtWidgets.QLabel):
    """One line, clipped where the tab is narrow (its tooltip is the whole text).

    Not word-wrapped: a wrapping label gives the tab a height-for-width, and the
    scroll area around the tab would then make it as tall as its preferred size.
    """

    def __init__(self, text: str = ""):
        super().__init__(text)
        self.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred
        )
        self.setToolTip(text)

    def setText(self, text: str) -> None:  # Qt override
        super().setText(text)
        self.setToolTip(text)


#: The model view rings the component pixels when there are at most this many.
MAX_RINGS = 100


class DeconvolutionView(OnDemand, QtWidgets.QWidget):
    """Shows :class:`~uvlab.app.lab.clean_task.CleanState` s; asks for CLEANs.

    Signals
    -------
    clean_requested()
    """

    clean_requested = pyqtSignal()
    NOT_COMPUTED = NOT_COMPUTED
    STALE = "Parameters changed since this CLEAN: press Clean to update it."

    def __init__(self, parent=None):
        super().__init__(parent)
        self._computed = False
        self._state: CleanState | None = None
        self._base = CleanOptions()  # what the controls do not show (masks, auto-mask, …)
        self._replay = None  # ComponentReplay of _state, made at the first slider move
        self._running = False
        self._build_controls()
        self.note = _Note(NOT_COMPUTED)
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
        images = QtWidgets.QHBoxLayout()
        images.setSpacing(2)
        for title, view in zip(("Dirty", "Model", "Residual", "Restored"), self.image_views):
            images.addWidget(boxed(title, view), 1)
        images_box = QtWidgets.QWidget()
        images_box.setLayout(images)
        images.setContentsMargins(0, 0, 0, 0)
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
        slider_row = QtWidgets.QHBoxLayout()
        slider_row.addWidget(QtWidgets.QLabel("Step through:"))
        slider_row.addWidget(self.slider, 1)
        slider_row.addWidget(self.k_label)
        bottom = QtWidgets.QWidget()
        bl = QtWidgets.QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.setSpacing(2)
        bl.addLayout(slider_row)
        bl.addWidget(boxed("Residual peak and RMS (Jy/beam) against iteration", self.curves), 1)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        split.addWidget(images_box)
        split.addWidget(bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([300, 200])
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.setSpacing(2)
        lay.addLayout(self.controls)
        lay.addWidget(self.note)
        lay.addWidget(split, 1)
        self._replay_timer = QtCore.QTimer(self)  # slider moves coalesce: the newest k wins
        self._replay_timer.setSingleShot(True)
        self._replay_timer.setInterval(0)
        self._replay_timer.timeout.connect(self._show_slider_state)
        self.slider.valueChanged.connect(self._on_slider)

    def _build_controls(self) -> None:
        self.deconvolver_combo = QtWidgets.QComboBox()
        self.deconvolver_combo.addItem("Högbom", "hogbom")
        self.deconvolver_combo.addItem("Cotton–Schwab", "cotton-schwab")
        self.deconvolver_combo.setToolTip(
            "Högbom: minor cycles on the image; Cotton–Schwab: major cycles that subtract "
            "the model from the visibilities (degridding) and image the residual anew"
        )
        self.niter_spin = QtWidgets.QSpinBox()
        self.niter_spin.setRange(0, 1_000_000)
        self.niter_spin.setValue(500)
        self.niter_spin.setToolTip("Minor iterations at most")
        live = {"tracking": True}  # every key counts, as before
        self.gain_spin = double_spin(0.001, 1.0, 3, step=0.05, value=0.1, tip="Loop gain", **live)
        self.mgain_spin = double_spin(
            0.01, 1.0, 2, step=0.05, value=0.8, **live,
            tip="A cycle ends at (1 − mgain)·peak; 1: one cycle",
        )  # fmt: skip
        self.threshold_spin = double_spin(
            0.0, 1e6, 3, suffix=" mJy", value=0.0, **live,
            tip="Stop at this residual peak (mJy/beam)",
        )  # fmt: skip
        self.auto_spin = double_spin(
            0.0, 1e3, 1, suffix=" σ", value=0.0, **live,
            tip="Stop at this many σ of the residual's noise (docs/multiscale.md); 0: off",
        )  # fmt: skip
        self.auto_spin.setSpecialValueText("off")
        self.multiscale_check = QtWidgets.QCheckBox("multiscale")
        self.multiscale_check.setToolTip(
            "Multiscale CLEAN (WSClean's -multiscale): components of several scales, default "
            "scales; the step-through slider is off (it replays point components)"
        )
        self.clean_button = QtWidgets.QPushButton("Clean")
        self.clean_button.setToolTip("CLEAN the current dirty image in the background")
        self.clean_button.clicked.connect(self.clean_requested)
        self.controls = QtWidgets.QHBoxLayout()
        self.controls.setSpacing(4)
        for label, widget in (
            ("", self.deconvolver_combo),
            ("niter", self.niter_spin),
            ("gain", self.gain_spin),
            ("mgain", self.mgain_spin),
            ("threshold", self.threshold_spin),
            ("auto", self.auto_spin),
            ("", self.multiscale_check),
        ):
            if label:
                self.controls.addWidget(QtWidgets.QLabel(label))
            self.controls.addWidget(widget)
        self.controls.addStretch(1)
        self.controls.addWidget(self.clean_button)

    # -------------------------------------------------------------- options
    def options(self) -> CleanOptions:
        """The controls as CleanOptions (ValueError when they do not make one).

        Fields without a control (mask boxes, auto-mask, sub-minor settings) keep the
        values :meth:`set_options` was given, such as a session's.
        """
        auto = self.auto_spin.value()
        return replace(
            self._base,
            deconvolver=self.deconvolver_combo.currentData(),
            niter=int(self.niter_spin.value()),
            gain=float(self.gain_spin.value()),
            mgain=float(self.mgain_spin.value()),
            threshold_jy=float(self.threshold_spin.value()) * 1e-3,
            auto_threshold=float(auto) if auto > 0 else None,
            multiscale=self.multiscale_check.isChecked(),
        )

    def set_options(self, opts: CleanOptions) -> None:
        """Show ``opts`` in the controls (and keep the fields they do not show)."""
        if opts.deconvolver not in DECONVOLVERS:
            raise ValueError(f"unknown deconvolver {opts.deconvolver!r}")
        self._base = opts
        self.deconvolver_combo.setCurrentIndex(self.deconvolver_combo.findData(opts.deconvolver))
        self.niter_spin.setValue(int(opts.niter))
        self.gain_spin.setValue(opts.gain)
        self.mgain_spin.setValue(opts.mgain)
        self.threshold_spin.setValue(opts.threshold_jy * 1e3)
        self.auto_spin.setValue(opts.auto_threshold or 0.0)
        self.multiscale_check.setChecked(bool(opts.multiscale))

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
        self.slider.setEnabled(k > 0 and not self.multiscale_check.isChecked())
        self._set_k_marker(k)
        self.note.setText(state.describe())

    def _show_images(self, model, residual, restored) -> None:
        s = self._state
        spec, radec = s.spec, (s.ra0_rad, s.dec0_rad)
        self.model_view.set_image(model, spec, *radec, title="Model", units="Jy/pixel")
        j, i = np.nonzero(model)
        if j.size > MAX_RINGS:  # an extended source: rings would hide it
            j, i = j[:0], i[:0]
        self._marks.setData(x=-(i - spec.npix // 2) * spec.cell_rad / ARCMIN,
                            y=(j - spec.npix // 2) * spec.cell_rad / ARCMIN)  # fmt: skip
        self.residual_view.set_image(residual, spec, *radec, title="Residual")
        self.restored_view.set_image(restored, spec, *radec, title="Restored")

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
