"""Imaging panel: image size and cell, weighting, algorithm and its parameters, device.

Only the parameters the chosen algorithm reads are enabled (DESIGN §2), as its record in
the algorithm catalogue (:mod:`uvlab.gpu.gridders.registry`) lists them
(:mod:`~uvlab.app.gui.panels.gridder_fields`, which a compare entry shares): the kernel
and its accuracy (ε, or the support S) for ``conv`` and ``hybrid``, the oversampling β
for the tables and the NN variants, the padding σ for the padded grids, the table lookup
(nearest or linear) for a kernel table of given support. The algorithms, their order and
their tooltips come from the catalogue too. Invalid values get a red border and are not
accepted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PyQt6 import QtCore, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.app.gui.panels.fields import (
    ValidatedLineEdit,
    double_spin,
    mark_invalid,
    parse_open_unit,
    parse_positive_or_auto,
)
from uvlab.app.gui.panels.gridder_fields import (
    algorithm_combo,
    enable_gridder,
    gridder_values,
    gridder_widgets,
    kernel_size_combo,
    lookup_combo,
    show_gridder,
)
from uvlab.app.lab.imaging import COMPARE_REPEATS, DEVICES, KERNELS, PRECISIONS, ImagingOptions
from uvlab.gpu.imaging.weighting import (
    DENSITY_CELLS,
    MAX_RANK_FILTER_SIZE,
    WSCLEAN_PADDING,
    WSCLEAN_RANK_FILTER_SIZE,
)

#: How the density cells' choice reads.
CELLS_NAMES = {"casa": "CASA", "wsclean": "WSClean"}

if TYPE_CHECKING:
    from uvlab.app.lab.state import ImagingRecord


class ImagingPanel(QtWidgets.QWidget):
    """Imaging choices.

    Signals
    -------
    changed()
        A valid edit.
    error(str)
        Why an edit was not accepted.
    """

    changed = pyqtSignal()
    error = pyqtSignal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        from uvlab.gpu.backend import device_info

        form = QtWidgets.QFormLayout(self)
        form.setContentsMargins(4, 4, 4, 4)
        form.setVerticalSpacing(2)  # 18 rows in the dock at 1280×720, unscrolled
        self.npix_spin = QtWidgets.QSpinBox()
        self.npix_spin.setRange(16, 16384)
        self.npix_spin.setSingleStep(64)
        self.npix_spin.setSuffix(" px")
        self.npix_spin.setKeyboardTracking(False)
        form.addRow("Image size", self.npix_spin)
        self.cell_edit = ValidatedLineEdit(
            parse_positive_or_auto, "auto", tooltip="arcsec per pixel, or 'auto' = 1/(3·u_max)"
        )
        form.addRow("Cell (″ or auto)", self.cell_edit)
        self.weighting_combo = QtWidgets.QComboBox()
        self.weighting_combo.addItems(["natural", "uniform", "briggs"])
        self.robust_spin = double_spin(-2.0, 2.0, 2, step=0.25, tip="Briggs robust parameter R")
        self.robust_spin.setPrefix("robust ")
        form.addRow(self.weighting_combo, self.robust_spin)  # the robust parameter is Briggs's
        self.taper_spin = double_spin(0.0, 1e5, 2, suffix=" ″")
        self.taper_spin.setSpecialValueText("off")
        form.addRow("Taper (FWHM)", self.taper_spin)
        self.density_scale_spin = double_spin(  # the record's open (0.9, 1.1)
            0.9 + 1e-9, 1.1 - 1e-9, 9, step=1e-5, value=1.0,
            tip="Uniform/Briggs density cells counted on uv × this scale: 1 counts them with "
            "the data's frequencies; tclean counts them in LSRK (uvlab image --density-frame "
            "lsrk computes the scale from the MS)",
        )  # fmt: skip
        form.addRow("Density scale", self.density_scale_spin)
        # WSClean's cells and their padding share a row, the choice in the label's place:
        # the panel fits the dock at 1280×720 without a scroll bar
        self.density_cells_combo = QtWidgets.QComboBox()
        for cells in DENSITY_CELLS:
            self.density_cells_combo.addItem(f"{CELLS_NAMES[cells]} cells", cells)
        self.density_cells_combo.setToolTip(
            "uv cells the uniform/Briggs density is counted on: the image's (CASA's) or those "
            "of the image padded by the factor beside, as WSClean counts them (its -padding; "
            "uvlab image --density-cells wsclean --density-padding P)"
        )
        self.density_padding_spin = double_spin(
            1.0, 4.0, 2, step=0.1, value=WSCLEAN_PADDING,
            tip="WSClean's -padding: its density grid is the image's side times this",
        )  # fmt: skip
        self.density_padding_spin.setPrefix("padding ")
        form.addRow(self.density_cells_combo, self.density_padding_spin)
        # WSClean's -super-weight, and its rank filter's level and window sharing a row
        self.super_weight_spin = double_spin(
            1.0, 1e4, 2, step=0.5, value=1.0,
            tip="WSClean's -super-weight F: the uniform/Briggs density grid's side divided by "
            "F, its cells F times coarser (uvlab image --super-weight F)",
        )  # fmt: skip
        form.addRow("Super weight", self.super_weight_spin)
        self.rank_filter_spin = double_spin(
            0.0, 1e4, 1, step=1.0, value=0.0,
            tip="WSClean's -weighting-rank-filter L: each uv cell's uniform/Briggs weight "
            "clipped to L times its window's mean; off (0) as in CASA, WSClean's default 3, "
            "L ≥ 1 (uvlab image --weighting-rank-filter L)",
        )  # fmt: skip
        self.rank_filter_spin.setPrefix("rank ")
        self.rank_filter_spin.setSpecialValueText("rank off")
        self.rank_filter_size_spin = QtWidgets.QSpinBox()
        self.rank_filter_size_spin.setRange(2, MAX_RANK_FILTER_SIZE)
        self.rank_filter_size_spin.setValue(WSCLEAN_RANK_FILTER_SIZE)
        self.rank_filter_size_spin.setPrefix("window ")
        self.rank_filter_size_spin.setKeyboardTracking(False)
        self.rank_filter_size_spin.setToolTip(
            "WSClean's -weighting-rank-filter-size: the rank filter's window, in uv cells"
        )
        form.addRow(self.rank_filter_spin, self.rank_filter_size_spin)
        self.algorithm_combo = algorithm_combo()
        form.addRow("Algorithm", self.algorithm_combo)
        self.kernel_combo = QtWidgets.QComboBox()
        self.kernel_combo.addItems(KERNELS)
        form.addRow("Kernel", self.kernel_combo)
        self.kernel_size_combo = kernel_size_combo()
        form.addRow("Kernel size", self.kernel_size_combo)
        self.eps_edit = ValidatedLineEdit(
            parse_open_unit, "1e-05", tooltip="requested accuracy ε in (0, 1)"
        )
        form.addRow("ε", self.eps_edit)
        self.support_spin = QtWidgets.QSpinBox()
        self.support_spin.setRange(1, 32)
        self.support_spin.setSuffix(" cells")
        self.support_spin.setKeyboardTracking(False)
        form.addRow("Support S", self.support_spin)
        self.oversample_spin = QtWidgets.QSpinBox()
        self.oversample_spin.setRange(1, 4096)
        self.oversample_spin.setKeyboardTracking(False)
        form.addRow("Oversampling β", self.oversample_spin)
        self.lookup_combo = lookup_combo()
        form.addRow("Table lookup", self.lookup_combo)
        self.sigma_spin = double_spin(1.0, 4.0, 2, step=0.25)
        form.addRow("Padding σ", self.sigma_spin)
        self.precision_combo = QtWidgets.QComboBox()
        self.precision_combo.addItems(PRECISIONS)
        form.addRow("Precision (predict)", self.precision_combo)
        self.device_combo = QtWidgets.QComboBox()
        self.device_combo.addItems(DEVICES)
        form.addRow("Device", self.device_combo)
        self.device_label = QtWidgets.QLabel(device_info().describe())
        self.device_label.setWordWrap(True)
        form.addRow("", self.device_label)
        self.message = QtWidgets.QLabel("")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #d03030;")
        form.addRow(self.message)
        # the red line only while there is something to say: an empty row still took
        # 20 px, and a scroll bar at 1280×720
        form.setRowVisible(self.message, False)
        self.set_options(ImagingOptions())

        for w in (
            self.weighting_combo,
            self.density_cells_combo,
            self.algorithm_combo,
            self.kernel_combo,
            self.kernel_size_combo,
            self.lookup_combo,
            self.precision_combo,
            self.device_combo,
        ):
            w.currentIndexChanged.connect(self._edited)
        for w in (
            self.npix_spin,
            self.robust_spin,
            self.taper_spin,
            self.density_scale_spin,
            self.density_padding_spin,
            self.super_weight_spin,
            self.rank_filter_spin,
            self.rank_filter_size_spin,
            self.support_spin,
            self.oversample_spin,
            self.sigma_spin,
        ):
            w.valueChanged.connect(self._edited)
        for edit in (self.cell_edit, self.eps_edit):
            edit.value_changed.connect(self._edited)
            edit.rejected.connect(self._edited)  # not accepted: ``error`` says why

    # ------------------------------------------------------------------ state
    def options(self) -> ImagingOptions:
        """The imaging options shown (ValueError, with the field marked red, if invalid)."""
        try:
            cell = self.cell_edit.value()
            gridder = gridder_values(self)  # ε read here
            opts = ImagingOptions(
                npix=int(self.npix_spin.value()),
                cell_arcsec=cell,
                weighting=self.weighting_combo.currentText(),
                robust=float(self.robust_spin.value()),
                taper_arcsec=float(self.taper_spin.value()),
                density_scale=float(self.density_scale_spin.value()),
                density_cells=self.density_cells_combo.currentData(),
                density_padding=float(self.density_padding_spin.value()),
                super_weight=float(self.super_weight_spin.value()),
                rank_filter=float(self.rank_filter_spin.value()),
                rank_filter_size=int(self.rank_filter_size_spin.value()),
                precision=self.precision_combo.currentText(),
                **gridder,
            )
        except ValueError as exc:
            self._show_invalid(str(exc))
            raise
        self._show_invalid(None)
        return opts

    def device(self) -> str:
        return self.device_combo.currentText()

    def record(
        self,
        compare: tuple[ImagingOptions, ...] | None = None,
        compare_repeats: int = COMPARE_REPEATS,
    ) -> ImagingRecord:
        """The options and device shown, as the lab's record (ValueError if a field is invalid).

        ``compare`` and ``compare_repeats`` (the Compare panel's entries and timed runs)
        travel with them.
        """
        from uvlab.app.lab.state import ImagingRecord

        options, device = self.options(), self.device()
        return ImagingRecord(options, None, device, compare, int(compare_repeats))

    def set_device(self, device: str) -> None:
        with QtCore.QSignalBlocker(self.device_combo):
            self.device_combo.setCurrentText(device)

    def set_options(self, o: ImagingOptions) -> None:
        """Show ``o`` without emitting ``changed``."""
        widgets = [
            self.npix_spin,
            self.weighting_combo,
            self.robust_spin,
            self.taper_spin,
            self.density_scale_spin,
            self.density_cells_combo,
            self.density_padding_spin,
            self.super_weight_spin,
            self.rank_filter_spin,
            self.rank_filter_size_spin,
            *gridder_widgets(self),
            self.precision_combo,
        ]
        blockers = [QtCore.QSignalBlocker(w) for w in widgets]
        self.npix_spin.setValue(int(o.npix))
        self.cell_edit.set_text_quietly("auto" if o.cell_arcsec is None else f"{o.cell_arcsec:g}")
        self.weighting_combo.setCurrentText(o.weighting)
        self.robust_spin.setValue(o.robust)
        self.taper_spin.setValue(o.taper_arcsec)
        self.density_scale_spin.setValue(float(o.density_scale))
        self.density_cells_combo.setCurrentIndex(self.density_cells_combo.findData(o.density_cells))
        self.density_padding_spin.setValue(float(o.density_padding))
        self.super_weight_spin.setValue(float(o.super_weight))
        self.rank_filter_spin.setValue(float(o.rank_filter))
        self.rank_filter_size_spin.setValue(int(o.rank_filter_size))
        show_gridder(self, o)
        self.precision_combo.setCurrentText(o.precision)
        del blockers
        self._update_enabled()
        self._show_invalid(None)

    def set_algorithm(self, name: str) -> None:
        """Choose an algorithm (emits ``changed`` when the options are valid)."""
        index = self.algorithm_combo.findData(name)
        if index < 0:
            raise ValueError(f"unknown algorithm {name!r}")
        self.algorithm_combo.setCurrentIndex(index)

    # ------------------------------------------------------------- internals
    def _update_enabled(self) -> None:
        enable_gridder(self)
        self.robust_spin.setEnabled(self.weighting_combo.currentText() == "briggs")
        self.density_padding_spin.setEnabled(self.density_cells_combo.currentData() == "wsclean")
        self.rank_filter_size_spin.setEnabled(self.rank_filter_spin.value() > 0)

    def _show_invalid(self, message: str | None) -> None:
        keys = {
            self.npix_spin: ("image size",),
            self.oversample_spin: ("β", "oversampl"),
            self.support_spin: ("support",),
            self.sigma_spin: ("σ", "padding"),
            self.robust_spin: ("robust",),
            self.taper_spin: ("taper",),
            self.super_weight_spin: ("super weight",),
            self.rank_filter_spin: ("rank filter level",),
        }
        for w, words in keys.items():
            mark_invalid(w, message if message and any(k in message for k in words) else None)
        self.message.setText(message or "")
        self.layout().setRowVisible(self.message, bool(message))

    def _edited(self, *_args) -> None:
        self._update_enabled()
        try:
            self.options()
        except ValueError as exc:
            self.error.emit(f"imaging options not accepted: {exc}")
            return
        self.changed.emit()
