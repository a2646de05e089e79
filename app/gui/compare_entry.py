"""One entry of compare mode: an algorithm and the gridder parameters it reads.

As in the Imaging panel, only the parameters the chosen algorithm reads are
enabled (:func:`uvlab.app.gui.panels.gridder_fields.enabled_params`, from the
algorithm catalogue): the kernel and its accuracy (ε, or the support S) for
``conv`` and ``hybrid``, the oversampling β, the padding σ, and the table
lookup (nearest or linear) where a kernel table of given support is read.
"""

from __future__ import annotations

from dataclasses import replace

from PyQt6 import QtCore, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.app.gui.panels.fields import ValidatedLineEdit, make_narrow, parse_open_unit
from uvlab.app.gui.panels.gridder_fields import (
    GRIDDER_FIELDS,
    algorithm_combo,
    enable_gridder,
    gridder_values,
    gridder_widgets,
    kernel_size_combo,
    lookup_combo,
    show_gridder,
)
from uvlab.app.lab.imaging import KERNELS, ImagingOptions
from uvlab.gpu.gridders.registry import ALGORITHMS as GRIDDERS
from uvlab.gpu.gridders.registry import EXACT_GCF

#: The narrowest an entry's fields may become, in characters.
ENTRY_CHARS = 3
#: The ImagingOptions fields an entry sets (the rest come from the Imaging panel).
ENTRY_FIELDS = GRIDDER_FIELDS


class EntryEditor(QtWidgets.QGroupBox):
    """Edits one entry.

    Signals
    -------
    changed()
        Any edit, an ε not accepted included (:meth:`options` then says why).
    remove_requested()
    match_requested()
        Find the exact-ES conv setting whose error matches this entry's (any
        entry but an exact-ES conv: another algorithm, or a conv kernel table).
    """

    changed = pyqtSignal()
    remove_requested = pyqtSignal()
    match_requested = pyqtSignal()

    def __init__(self, title: str = "Entry", parent=None):
        super().__init__(title, parent)
        self.algorithm_combo = algorithm_combo(GRIDDERS)
        self.remove_button = QtWidgets.QToolButton()
        self.remove_button.setText("✕")
        self.remove_button.setToolTip("Remove this entry from the comparison")
        self.kernel_combo = QtWidgets.QComboBox()
        self.kernel_combo.addItems(KERNELS)
        self.kernel_size_combo = kernel_size_combo()
        self.eps_edit = ValidatedLineEdit(parse_open_unit, "1e-05", tooltip="accuracy ε in (0, 1)")
        self.support_spin = QtWidgets.QSpinBox()
        self.support_spin.setRange(1, 32)
        self.oversample_spin = QtWidgets.QSpinBox()
        self.oversample_spin.setRange(1, 4096)
        self.sigma_spin = QtWidgets.QDoubleSpinBox()
        self.sigma_spin.setRange(1.0, 4.0)
        self.sigma_spin.setSingleStep(0.25)
        for spin in (self.support_spin, self.oversample_spin, self.sigma_spin):
            spin.setKeyboardTracking(False)
        self.match_button = QtWidgets.QPushButton("Match conv")
        self.match_button.setToolTip(
            "Compare again with the exact-ES conv of the smallest support S whose measured "
            "error is at most this entry's, added as a new entry (speed at matched accuracy)"
        )
        self._match_allowed = True
        self.lookup_combo = lookup_combo("; a table is read with a given support S")
        grid = QtWidgets.QGridLayout(self)
        grid.setContentsMargins(4, 4, 4, 4)
        grid.setVerticalSpacing(2)
        rows = (
            ("Algorithm", self.algorithm_combo, None, self.remove_button),
            ("Kernel", self.kernel_combo, "Size", self.kernel_size_combo),
            ("ε", self.eps_edit, "S", self.support_spin),
            ("β", self.oversample_spin, "σ", self.sigma_spin),
            ("Lookup", self.lookup_combo, None, self.match_button),
        )
        for r, (la, wa, lb, wb) in enumerate(rows):
            grid.addWidget(QtWidgets.QLabel(la), r, 0)
            grid.addWidget(wa, r, 1)
            if lb:
                grid.addWidget(QtWidgets.QLabel(lb), r, 2)
            if wb is not None:
                grid.addWidget(wb, r, 3 if lb else 2, 1, 1 if lb else 2)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        self.set_options(ImagingOptions())
        for combo in (
            self.algorithm_combo,
            self.kernel_combo,
            self.kernel_size_combo,
            self.lookup_combo,
        ):
            combo.currentIndexChanged.connect(self._edited)
        for spin in (self.support_spin, self.oversample_spin, self.sigma_spin):
            spin.valueChanged.connect(self._edited)
        self.eps_edit.value_changed.connect(self._edited)
        self.eps_edit.rejected.connect(self._edited)  # not accepted: the panel says why
        self.remove_button.clicked.connect(self.remove_requested)
        self.match_button.clicked.connect(self.match_requested)
        make_narrow(self, ENTRY_CHARS)  # two fields a row in a laptop's dock

    def algorithm(self) -> str:
        return self.algorithm_combo.currentData()

    def options(self, base: ImagingOptions) -> ImagingOptions:
        """``base`` with this entry's algorithm and parameters (ValueError if invalid)."""
        return replace(base, **gridder_values(self))

    def set_options(self, o: ImagingOptions) -> None:
        """Show ``o``'s algorithm and parameters without emitting ``changed``."""
        if self.algorithm_combo.findData(o.algorithm) < 0:
            raise ValueError(f"{o.algorithm!r} cannot be compared; choose from {GRIDDERS}")
        blockers = [QtCore.QSignalBlocker(w) for w in gridder_widgets(self)]
        show_gridder(self, o)
        del blockers
        self._update_enabled()

    def set_match_allowed(self, allowed: bool) -> None:
        """Whether the comparison has room for a matching conv entry."""
        self._match_allowed = bool(allowed)
        self._update_enabled()

    def _update_enabled(self) -> None:
        enable_gridder(self)
        by_eps = self.kernel_size_combo.currentData() == "eps"
        exact_conv = self.algorithm() == EXACT_GCF and by_eps  # its own match
        self.match_button.setEnabled(self._match_allowed and not exact_conv)

    def _edited(self, *_args) -> None:
        self._update_enabled()
        self.changed.emit()
