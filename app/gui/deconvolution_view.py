"""The Deconvolution tab: CLEAN live, and a slider that steps through its iterations.

The dirty image, the model, the residual and the restored image fill the
left two thirds, 2 × 2 and as tall as the tab (linked zoom and crosshairs;
each at least 300 px at 1366×768); on the right, the controls (deconvolver,
niter, gain, mgain, threshold, auto-threshold, auto-mask and a FITS mask file,
as ``uvlab image``'s ``--auto-mask`` and ``--fits-mask``: a
:class:`~uvlab.app.lab.state.CleanRecord`; *Clean*), a note, the step slider
and the residual's peak and RMS against iteration. The CLEAN runs in the
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
from uvlab.app.lab.state import CleanRecord
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
        slider_row = QtWidgets.QHBoxLayout()
        slider_row.addWidget(QtWidgets.QLabel("Step through:"))
        slider_row.addWidget(self.slider, 1)
        self.k_label.setSizePolicy(  # a long line is clipped, never squeezing the slider
            QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred
        )
        side = QtWidgets.QWidget()
        bl = QtWidgets.QVBoxLayout(side)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.setSpacing(2)
        bl.addLayout(self.controls)
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
        self.auto_mask_spin = double_spin(
            0.0, 1e3, 1, suffix=" σ", value=0.0, **live,
            tip="Auto-mask: CLEAN to this many σ first, then only on the pixels that hold "
            "a component (above the auto-threshold; WSClean's -auto-mask); 0: off",
        )  # fmt: skip
        self.auto_mask_spin.setSpecialValueText("off")
        self.mask_edit = QtWidgets.QLineEdit()
        self.mask_edit.setPlaceholderText("no mask")
        self.mask_edit.setToolTip(
            "A FITS mask of the image's size: components only where it is non-zero "
            "(uvlab image --fits-mask); empty: everywhere"
        )
        self.mask_button = QtWidgets.QToolButton()
        self.mask_button.setText("…")
        self.mask_button.setToolTip("Choose a FITS mask file")
        self.mask_button.clicked.connect(self._ask_mask)
        for spin in (self.niter_spin, self.gain_spin, self.mgain_spin, self.threshold_spin,
                     self.auto_spin, self.auto_mask_spin):  # fmt: skip
            spin.valueChanged.connect(self.changed)
        self.deconvolver_combo.currentIndexChanged.connect(self.changed)
        self.mask_edit.editingFinished.connect(self.changed)
        self.multiscale_check = QtWidgets.QCheckBox("multiscale")
        self.multiscale_check.setToolTip(
            "Multiscale CLEAN (WSClean's -multiscale): components of several scales, default "
            "scales; the step-through slider is off (it replays point components)"
        )
        self.multiscale_check.toggled.connect(self.changed)
        self.clean_button = QtWidgets.QPushButton("Clean")
        self.clean_button.setToolTip("CLEAN the current dirty image in the background")
        self.clean_button.clicked.connect(self.clean_requested)
        self.controls = QtWidgets.QGridLayout()
        self.controls.setSpacing(4)
        self.controls.addWidget(self.deconvolver_combo, 0, 0, 1, 2)
        self.controls.addWidget(self.clean_button, 0, 2, 1, 2)
        for k, (label, widget) in enumerate(
            (
                ("niter", self.niter_spin),
                ("gain", self.gain_spin),
                ("mgain", self.mgain_spin),
                ("threshold", self.threshold_spin),
                ("auto", self.auto_spin),
                ("auto-mask", self.auto_mask_spin),
            )
        ):
            row, col = 1 + k // 2, 2 * (k % 2)
            self.controls.addWidget(QtWidgets.QLabel(label), row, col)
            self.controls.addWidget(widget, row, col + 1)
        self.controls.addWidget(QtWidgets.QLabel("mask"), 4, 0)
        self.controls.addWidget(self.mask_edit, 4, 1, 1, 2)
        self.controls.addWidget(self.mask_button, 4, 3)
        self.controls.addWidget(self.multiscale_check, 5, 0, 1, 2)
        self.controls.setColumnStretch(1, 1)
        self.controls.setColumnStretch(3, 1)

    # -------------------------------------------------------------- options
    def options(self) -> CleanOptions:
        """The controls as CleanOptions (ValueError when they do not make one).

        Fields without a control (mask boxes, sub-minor settings) keep the values
        :meth:`set_options` was given, such as a session's.
        """
        auto, auto_mask = self.auto_spin.value(), self.auto_mask_spin.value()
        return replace(
            self._base,
            deconvolver=self.deconvolver_combo.currentData(),
            niter=int(self.niter_spin.value()),
            gain=float(self.gain_spin.value()),
            mgain=float(self.mgain_spin.value()),
            threshold_jy=float(self.threshold_spin.value()) * 1e-3,
            auto_threshold=float(auto) if auto > 0 else None,
            auto_mask=float(auto_mask) if auto_mask > 0 else None,
            multiscale=self.multiscale_check.isChecked(),
        )

    def record(self) -> CleanRecord:
        """The controls as a :class:`CleanRecord`: the options and the mask file."""
        return CleanRecord(self.options(), self.mask_edit.text().strip() or None)

    def set_record(self, record: CleanRecord) -> None:
        """Show ``record`` in the controls (without emitting ``changed``)."""
        with QtCore.QSignalBlocker(self):
            self.set_options(record.options)
            self.mask_edit.setText(record.fits_mask or "")

    def _ask_mask(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "CLEAN mask", self.mask_edit.text(), "FITS images (*.fits *.fit *.fts)"
        )
        if path:
            self.mask_edit.setText(path)
            self.changed.emit()

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
        self.auto_mask_spin.setValue(opts.auto_mask or 0.0)
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
