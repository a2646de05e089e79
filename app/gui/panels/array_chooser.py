"""The Observation panel's array: a layout (built-in or a file), a second configuration,
and antennas moved by hand.

:class:`ArrayChooser` holds the layout in use and its hand-moved copy (the array view's
drags make a modified in-memory layout, Reset undoes them), and adds its three rows
(the array with Reset, "Combined with", a note of antennas and longest baseline) to the
panel's form, so that they line up with the panel's other fields.
"""

from __future__ import annotations

import numpy as np
from PyQt6 import QtCore, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.app.gui.panels.fields import mark_invalid

LAYOUT_FILE = "Layout file…"
#: The "combined with" choice that combines nothing.
NO_COMBINE = "—"


def split_combined(name: str, combine_combo) -> tuple[str, str]:
    """(array, second configuration or NO_COMBINE) of a layout name as the two combos show it.

    ``vla.a+vla.d`` → (``vla.a``, ``vla.d``) when the second is one of the combo's
    built-ins; any other name (a file, three layouts) stays whole in the first combo.
    """
    base, plus, other = name.partition("+")
    if plus and "+" not in other and combine_combo.findText(other) > 0:
        return base, other
    return name, NO_COMBINE


class ArrayChooser(QtCore.QObject):
    """The array layout of a synthetic observation, and its rows of the panel's form.

    Signals
    -------
    layout_changed()
        The antenna positions to show changed (new layout, put back, a move refused).
    chosen(str)
        The user chose another array (or a layout file) and it loaded (after
        ``layout_changed``).
    edited()
        Antennas were moved by hand, or put back (Reset).
    error(str)
        A message for the status bar (a bad layout file, a refused move).
    """

    layout_changed = pyqtSignal()
    chosen = pyqtSignal(str)
    edited = pyqtSignal()
    error = pyqtSignal(str)

    def __init__(self, layouts: list[str], parent=None):
        super().__init__(parent)
        self._layout = None
        self._modified = None  # ArrayLayout with moved antennas, or None
        self._home = "meerkat"  # what a cancelled file dialog returns to
        self.layout_combo = QtWidgets.QComboBox()
        self.layout_combo.addItems(layouts)
        self.layout_combo.addItem(LAYOUT_FILE)
        self.reset_button = QtWidgets.QPushButton("Reset")
        self.reset_button.setToolTip("Undo antenna moves made in the array view")
        self.reset_button.setEnabled(False)
        self.combine_combo = QtWidgets.QComboBox()
        self.combine_combo.addItem(NO_COMBINE)
        self.combine_combo.addItems(layouts)
        self.combine_combo.setToolTip(
            "Observe with a second configuration of the same array too, as APSYNSIM combines "
            "arrays (e.g. VLA A + D): its baselines join its own antennas only"
        )
        self.note = QtWidgets.QLabel("")
        self.note.setWordWrap(True)
        self.layout_combo.activated.connect(self._on_layout_chosen)
        self.combine_combo.activated.connect(self._on_combine_chosen)
        self.reset_button.clicked.connect(self.reset_layout)

    def add_rows(self, form: QtWidgets.QFormLayout) -> None:
        """Add the array, "Combined with" and note rows to ``form``."""
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.layout_combo, 1)
        row.addWidget(self.reset_button)
        form.addRow("Array", row)
        form.addRow("Combined with", self.combine_combo)
        form.addRow("", self.note)

    def show(self, name: str, modified_enu=None) -> None:
        """Show layout ``name`` (a spec's), moved to ``modified_enu`` if given; emits nothing
        but ``error`` when it does not load (the layout in use is kept)."""
        from uvlab.app.lab.placement import layout_with_enu

        self._home = name
        self._load(name)
        if modified_enu is not None and self._layout is not None:
            self._modified = layout_with_enu(self._layout, modified_enu)
        self._update_note()

    def _load(self, name: str) -> bool:
        from uvlab.app.observing.layouts import load_layout

        try:
            layout = load_layout(name)
        except ValueError as exc:
            mark_invalid(self.layout_combo, str(exc))
            self.error.emit(str(exc))
            return False
        mark_invalid(self.layout_combo, None)
        self._layout, self._modified = layout, None
        base, other = split_combined(name, self.combine_combo)
        with QtCore.QSignalBlocker(self.layout_combo), QtCore.QSignalBlocker(self.combine_combo):
            index = self.layout_combo.findText(base)
            if index < 0:
                self.layout_combo.insertItem(self.layout_combo.count() - 1, base)
                index = self.layout_combo.findText(base)
            self.layout_combo.setCurrentIndex(index)
            self.combine_combo.setCurrentIndex(max(0, self.combine_combo.findText(other)))
        return True

    def _on_combine_chosen(self, index: int) -> None:
        other = self.combine_combo.itemText(index)
        base = self.layout_combo.currentText()
        self.set_layout_name(base if other == NO_COMBINE else f"{base}+{other}")

    def _on_layout_chosen(self, index: int) -> None:
        name = self.layout_combo.itemText(index)  # a new array: no combination
        if name == LAYOUT_FILE:
            path, _ = QtWidgets.QFileDialog.getOpenFileName(
                self.layout_combo,
                "Open array layout",
                "",
                "Layouts (*.cfg *.yaml *.yml *.csv);;All (*)",
            )
            if not path:
                self.set_layout_name(self._home)
                return
            name = path
        self.set_layout_name(name)

    def set_layout_name(self, name: str) -> None:
        """Choose a built-in layout or a layout file: ``layout_changed``, ``chosen`` if it loads."""
        if self._load(name):
            self._update_note()
            self.layout_changed.emit()
            self.chosen.emit(name)

    def layout_name(self) -> str:
        """The layout's name or path as chosen, ``a+b`` when combined."""
        other = self.combine_combo.currentText()
        base = str(self.layout_combo.currentText())
        return base if other == NO_COMBINE else f"{base}+{other}"

    def layout(self):
        """The ArrayLayout in use (the modified one if antennas were moved), or None."""
        return self._modified or self._layout

    def is_modified(self) -> bool:
        return self._modified is not None

    def modified_enu(self) -> np.ndarray | None:
        return None if self._modified is None else self._modified.enu()

    def move_antenna(self, index: int, east: float, north: float) -> None:
        """Move one antenna (metres east/north of the site; up unchanged): ``edited``."""
        from uvlab.app.lab.placement import layout_with_enu

        enu = self.layout().enu()
        enu[index, :2] = east, north
        try:
            self._modified = layout_with_enu(self._layout, enu)
        except ValueError as exc:  # e.g. dragged off the Earth (LayoutError): the move is refused
            self.error.emit(f"antenna not moved: {exc}")
            self.layout_changed.emit()  # redraw the antennas where they are
            return
        self._update_note()
        self.edited.emit()

    def reset_layout(self) -> None:
        """Put moved antennas back (``layout_changed``, ``edited``); nothing if none was moved."""
        if self._modified is not None:
            self._modified = None
            self._update_note()
            self.layout_changed.emit()
            self.edited.emit()

    def _update_note(self) -> None:
        lay = self.layout()
        self.reset_button.setEnabled(self._modified is not None)
        if lay is None:
            self.note.setText("")
            return
        moved = ""
        if self._modified is not None:
            d = np.linalg.norm(self._modified.enu() - self._layout.enu(), axis=1)
            moved = f"; {int(np.count_nonzero(d > 1e-3))} moved by hand"
        self.note.setText(
            f"{lay.nant} antennas, longest baseline {lay.max_baseline_m() / 1e3:.2f} km{moved}"
        )
