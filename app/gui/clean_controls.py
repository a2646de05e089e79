"""The Deconvolution tab's CLEAN controls: a :class:`~uvlab.app.lab.state.CleanRecord`.

Deconvolver, niter, gain, mgain, threshold, auto-threshold, auto-mask, a FITS mask file
(as ``uvlab image``'s ``--auto-mask`` and ``--fits-mask``), multiscale with its scale
rule and bias (WSClean's ``--multiscale-scale-bias``, or tclean's
``--multiscale-small-scale-bias``), joined-channel CLEAN (WSClean's ``-channels-out N
-join-channels`` and ``-fit-spectral-pol K``: *channels out*, *spectral terms*, enabled
when the observation has two channels or more; :meth:`CleanControls.set_channels`), and
*Clean*. The options the controls do not show
(mask boxes, multiscale scales, sub-minor settings) keep the values
:meth:`CleanControls.set_options` was given, such as a session's.
"""

from __future__ import annotations

from dataclasses import replace

from PyQt6 import QtCore, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.app.gui.panels.fields import double_spin
from uvlab.app.lab.clean_task import DECONVOLVERS, CleanOptions
from uvlab.app.lab.state import CleanRecord

#: Multiscale's scale rules: (shown, data). ``tclean`` sets ``multiscale_small_scale_bias``.
SCALE_RULES = (("WSClean rule", "wsclean"), ("tclean rule", "tclean"))


class CleanControls(QtWidgets.QWidget):
    """The CLEAN options' controls.

    Signals
    -------
    changed()
        A control was edited.
    clean_requested()
        *Clean* was pressed.
    """

    changed = pyqtSignal()
    clean_requested = pyqtSignal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._base = CleanOptions()  # what the controls do not show (masks, scales, …)
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
        self.rule_combo = QtWidgets.QComboBox()
        for text, data in SCALE_RULES:
            self.rule_combo.addItem(text, data)
        self.rule_combo.setToolTip(
            "How multiscale CLEAN picks the scale of its next component, and when it stops. "
            "WSClean rule: the scale whose biased peak is brightest, stopping on the brightest "
            "single pixel. tclean rule (CASA): each scale's peak counted as the flux of the "
            "component that explains it, and CLEAN goes on while any scale still holds flux "
            "above the stop level, so broad faint emission is cleaned too"
        )
        self.scale_bias_spin = double_spin(
            0.001, 1.0, 3, step=0.05, value=0.6, **live,
            tip="WSClean rule: how much larger scales are held back, in (0, 1]; smaller "
            "values favour larger scales (WSClean's -multiscale-scale-bias, default 0.6)",
        )  # fmt: skip
        self.small_bias_spin = double_spin(
            -1.0, 1.0, 3, step=0.1, value=0.0, **live,
            tip="tclean rule: each scale's peak is weighted by 1 − bias × scale / largest "
            "scale; above 0 favours small scales, below 0 large ones, 0 treats them alike "
            "(tclean's smallscalebias, default 0)",
        )  # fmt: skip
        self.multiscale_check.toggled.connect(self._enable_multiscale)
        self.rule_combo.currentIndexChanged.connect(self._enable_multiscale)
        self.multiscale_check.toggled.connect(self.changed)
        self.rule_combo.currentIndexChanged.connect(self.changed)
        self.scale_bias_spin.valueChanged.connect(self.changed)
        self.small_bias_spin.valueChanged.connect(self.changed)
        self.channels_spin = QtWidgets.QSpinBox()
        self.channels_spin.setRange(1, 1)
        self.channels_spin.setToolTip(
            "Channels out: 1 CLEANs the image of all channels (MFS); N > 1 CLEANs N output "
            "channels jointly, peaks on their MFS image, each with its own PSF (uvlab image "
            "--channels-out N --join-channels, WSClean's -channels-out -join-channels)"
        )
        self.terms_spin = QtWidgets.QSpinBox()
        self.terms_spin.setRange(0, 1)
        self.terms_spin.setSpecialValueText("none")
        self.terms_spin.setToolTip(
            "Fit spectral terms: each component's channel values fitted with a polynomial "
            "of K terms (--fit-spectral-pol K, WSClean's -fit-spectral-pol); none: no fit"
        )
        self.channels_spin.valueChanged.connect(self._enable_channels)
        self.channels_spin.valueChanged.connect(self.changed)
        self.terms_spin.valueChanged.connect(self.changed)
        self._nchan = 1
        self.clean_button = QtWidgets.QPushButton("Clean")
        self.clean_button.setToolTip("CLEAN the current dirty image in the background")
        self.clean_button.clicked.connect(self.clean_requested)
        self.controls = QtWidgets.QGridLayout(self)
        self.controls.setContentsMargins(0, 0, 0, 0)
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
        self.controls.addWidget(self.rule_combo, 5, 2, 1, 2)
        # each bias with its label across two columns: "small-scale bias" in the
        # label column would widen the tab's whole right-hand side
        self.scale_bias_label = QtWidgets.QLabel("scale bias")
        self.small_bias_label = QtWidgets.QLabel("small-scale bias")
        for col, pair in ((0, (self.scale_bias_label, self.scale_bias_spin)),
                          (2, (self.small_bias_label, self.small_bias_spin))):  # fmt: skip
            row = QtWidgets.QHBoxLayout()
            row.setSpacing(4)
            row.addWidget(pair[0])
            row.addWidget(pair[1], 1)
            self.controls.addLayout(row, 6, col, 1, 2)
        self.channels_label = QtWidgets.QLabel("channels out")
        self.terms_label = QtWidgets.QLabel("spectral terms")
        for col, pair in ((0, (self.channels_label, self.channels_spin)),
                          (2, (self.terms_label, self.terms_spin))):  # fmt: skip
            row = QtWidgets.QHBoxLayout()
            row.setSpacing(4)
            row.addWidget(pair[0])
            row.addWidget(pair[1], 1)
            self.controls.addLayout(row, 7, col, 1, 2)
        self.controls.setColumnStretch(1, 1)
        self.controls.setColumnStretch(3, 1)
        self._enable_multiscale()
        self._enable_channels()

    def set_channels(self, nchan: int | None) -> None:
        """The observation has ``nchan`` channels (None: not known yet, as an MS unread).

        *Channels out* runs 1 … ``nchan`` and is enabled only for two channels or more;
        a value above ``nchan`` comes down to it (without emitting ``changed``: the window
        calls this as the observation changes; a job asking for more channels than the
        data hold fails with a one-line message).
        """
        self._nchan = 2**16 if nchan is None else max(1, int(nchan))
        with QtCore.QSignalBlocker(self.channels_spin), QtCore.QSignalBlocker(self.terms_spin):
            self.channels_spin.setMaximum(self._nchan)
            self._enable_channels()

    def _enable_channels(self) -> None:
        """The channel controls with two channels or more; the terms up to the channels out."""
        many = self._nchan >= 2
        n = self.channels_spin.value()
        self.terms_spin.setMaximum(n if n > 1 else 0)
        for widget in (self.channels_label, self.channels_spin):
            widget.setEnabled(many)
        for widget in (self.terms_label, self.terms_spin):
            widget.setEnabled(many and n > 1)

    def _enable_multiscale(self) -> None:
        """The rule with multiscale on; each bias with its rule (disabled ones keep values)."""
        on = self.multiscale_check.isChecked()
        tclean = self.rule_combo.currentData() == "tclean"
        self.rule_combo.setEnabled(on)
        for widget in (self.scale_bias_label, self.scale_bias_spin):
            widget.setEnabled(on and not tclean)
        for widget in (self.small_bias_label, self.small_bias_spin):
            widget.setEnabled(on and tclean)

    def options(self) -> CleanOptions:
        """The controls as CleanOptions (ValueError when they do not make one).

        Fields without a control (mask boxes, multiscale scales, sub-minor settings) keep
        the values :meth:`set_options` was given, such as a session's. The tclean rule
        sets ``multiscale_small_scale_bias`` (None with WSClean's rule). Channels out is
        1 (and no fit) while the controls are disabled (one channel).
        """
        auto, auto_mask = self.auto_spin.value(), self.auto_mask_spin.value()
        n = self.channels_spin.value() if self.channels_spin.isEnabled() else 1
        k = self.terms_spin.value() if n > 1 else 0
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
            multiscale_scale_bias=float(self.scale_bias_spin.value()),
            multiscale_small_scale_bias=(
                float(self.small_bias_spin.value())
                if self.rule_combo.currentData() == "tclean"
                else None
            ),
            channels_out=int(n),
            fit_spectral_pol=int(k) if k > 0 else None,
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
        self.scale_bias_spin.setValue(opts.multiscale_scale_bias)
        small = opts.multiscale_small_scale_bias
        self.rule_combo.setCurrentIndex(
            self.rule_combo.findData("wsclean" if small is None else "tclean")
        )
        if small is not None:
            self.small_bias_spin.setValue(small)
        if opts.channels_out > self.channels_spin.maximum():  # a session's, before its data
            self.channels_spin.setMaximum(opts.channels_out)
        self.channels_spin.setValue(int(opts.channels_out))
        self._enable_channels()
        self.terms_spin.setValue(int(opts.fit_spectral_pol or 0))
