"""The MeasurementSet page of the observation panel: path, selection combos, summary.

The combos (field, spectral window, data column, Stokes/correlation) are
filled from the :class:`~uvlab.app.ms.MSInfo` that the worker reads and sends
back (:meth:`MSSelector.set_info`); this widget never touches casacore. Until
that summary arrives, :meth:`MSSelector.selection` returns the pending one
(e.g. from a saved session).
"""

from __future__ import annotations

import os

from PyQt6 import QtCore, QtGui, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.app.lab.jobs import MSSelection
from uvlab.app.ms.stokes import AUTO

STOKES_CHOICES = ("I", "Q", "U", "V")


class MSSelector(QtWidgets.QWidget):
    """Choose what to read from a MeasurementSet.

    Signals
    -------
    changed()
    open_requested()
    recent_chosen(str)
    """

    changed = pyqtSignal()
    open_requested = pyqtSignal()
    recent_chosen = pyqtSignal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._ms_path: str | None = None
        self._ms_pending: MSSelection | None = None
        self._info = None
        form = QtWidgets.QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.open_ms_button = QtWidgets.QPushButton("Open MeasurementSet…")
        self.recent_combo = QtWidgets.QComboBox()
        self.recent_combo.setPlaceholderText("Recent…")
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.open_ms_button)
        row.addWidget(self.recent_combo, 1)
        form.addRow(row)
        self.ms_path_label = QtWidgets.QLabel("(none opened)")
        self.ms_path_label.setWordWrap(True)
        self.ms_path_label.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse
        )
        form.addRow("Path", self.ms_path_label)
        self.field_combo = QtWidgets.QComboBox()
        self.spw_combo = QtWidgets.QComboBox()
        self.column_combo = QtWidgets.QComboBox()
        self.stokes_combo = QtWidgets.QComboBox()
        form.addRow("Field", self.field_combo)
        form.addRow("Spectral window", self.spw_combo)
        form.addRow("Column", self.column_combo)
        form.addRow("Stokes / correlation", self.stokes_combo)
        self.summary = QtWidgets.QPlainTextEdit()
        self.summary.setReadOnly(True)
        self.summary.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.NoWrap)
        self.summary.setFont(
            QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        )
        self.summary.setPlaceholderText("The MeasurementSet's summary appears here.")
        form.addRow(self.summary)
        self.open_ms_button.clicked.connect(self.open_requested)
        self.recent_combo.activated.connect(
            lambda i: self.recent_chosen.emit(self.recent_combo.itemData(i))
        )
        for c in (self.field_combo, self.spw_combo, self.column_combo, self.stokes_combo):
            c.activated.connect(self._on_combo)

    def set_recent(self, paths: list[str]) -> None:
        with QtCore.QSignalBlocker(self.recent_combo):
            self.recent_combo.clear()
            for p in paths:
                self.recent_combo.addItem(p, p)
            self.recent_combo.setCurrentIndex(-1)

    def set_selection(self, sel: MSSelection) -> None:
        """Use this MS and selection; combos fill when the worker sends its summary."""
        self._ms_path, self._ms_pending, self._info = sel.path, sel, None
        self.ms_path_label.setText(sel.path)
        for c in (self.field_combo, self.spw_combo, self.column_combo, self.stokes_combo):
            c.clear()
        self.summary.setPlainText(f"Reading {sel.path} …")

    def path(self) -> str | None:
        return self._ms_path

    def snapshot(self) -> tuple:
        """What :meth:`restore` needs to put this page back (a failed open undoes itself)."""
        return (self._ms_path, self.selection(), self._info)

    def restore(self, snap: tuple) -> None:
        """Show again what :meth:`snapshot` returned (no ``changed``)."""
        path, sel, info = snap
        if path is None:
            self._ms_path, self._ms_pending, self._info = None, None, None
            self.ms_path_label.setText("(none opened)")
            for c in (self.field_combo, self.spw_combo, self.column_combo, self.stokes_combo):
                c.clear()
            self.summary.clear()
            return
        self.set_selection(sel)
        if info is not None:
            self.set_info(info)

    def info(self):
        return self._info

    def set_info(self, info) -> None:
        """Fill the combos and summary from an :class:`~uvlab.app.ms.MSInfo` (no ``changed``)."""
        from uvlab.app.ms.format import format_info
        from uvlab.app.ms.stokes import default_stokes

        if self._ms_path is None or _real(info.path) != _real(self._ms_path):
            return  # the summary of an MS no longer selected
        want = self.selection()
        self._info = info
        blockers = [
            QtCore.QSignalBlocker(c)
            for c in (self.field_combo, self.spw_combo, self.column_combo, self.stokes_combo)
        ]
        self.field_combo.clear()
        for f in info.fields:
            self.field_combo.addItem(f"{f.id}: {f.name}", f.id)
        self.spw_combo.clear()
        for s in info.spws:
            first = f"{s.freq_hz[0] / 1e6:.3f} MHz" if s.nchan else "-"
            self.spw_combo.addItem(f"{s.id}: {s.nchan} ch from {first}", s.id)
        self.column_combo.clear()
        for c in info.data_columns:
            self.column_combo.addItem(c, c)
        self.stokes_combo.clear()
        corrs = [c for names in info.correlations.values() for c in names]
        for p in dict.fromkeys([*STOKES_CHOICES, *corrs]):
            self.stokes_combo.addItem(p, p)
        stokes = want.stokes
        if stokes == AUTO or self.stokes_combo.findData(stokes) < 0:
            stokes = default_stokes(info, want.spw)  # what the MS holds: an XY-only MS images XY
        for combo, value in (
            (self.field_combo, want.field),
            (self.spw_combo, want.spw),
            (self.column_combo, want.column),
            (self.stokes_combo, stokes),
        ):
            index = combo.findData(value)
            combo.setCurrentIndex(index if index >= 0 else 0)
        del blockers
        self._ms_pending = None
        self.summary.setPlainText(format_info(info))

    def selection(self) -> MSSelection | None:
        """The selection to read (the pending one until the summary has arrived)."""
        if self._ms_path is None:
            return None
        if self._ms_pending is not None or self._info is None:
            return self._ms_pending or MSSelection(self._ms_path)
        return MSSelection(
            self._ms_path,
            field=int(self.field_combo.currentData() or 0),
            spw=int(self.spw_combo.currentData() or 0),
            column=self.column_combo.currentData() or "DATA",
            stokes=self.stokes_combo.currentData() or AUTO,
        )

    def set_stokes(self, product: str) -> None:
        """Choose a Stokes parameter or correlation and emit ``changed``."""
        index = self.stokes_combo.findData(product)
        if index < 0:
            raise ValueError(f"{product!r} is not offered for this MeasurementSet")
        self.stokes_combo.setCurrentIndex(index)
        self.changed.emit()

    def _on_combo(self, _index: int) -> None:
        self.changed.emit()


def _real(path: str) -> str:
    return os.path.realpath(path)
