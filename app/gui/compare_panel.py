"""The Compare panel of the controls: pick the entries of a comparison.

Each entry is an algorithm with its own gridder parameters
(:class:`~uvlab.app.gui.compare_entry.EntryEditor`); two entries may use the
same algorithm with different parameters. The image size, cell, weighting
and data come from the other panels. *Compare* asks the window to run the
comparison in the worker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from PyQt6 import QtCore, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.app.gui.compare_entry import EntryEditor
from uvlab.app.lab.compare_timing import TIMING_BUDGET_S
from uvlab.app.lab.imaging import COMPARE_REPEATS, MAX_REPEATS, ImagingOptions
from uvlab.gpu.gridders.registry import ALGORITHMS as GRIDDERS
from uvlab.gpu.gridders.registry import COMPARED as DEFAULT_ALGORITHMS

MIN_ENTRIES = 2
MAX_ENTRIES = 6

INTRO = (
    "Compare gridders with the exact DFT of the same weighted data. Image size, cell "
    "and weighting come from the Imaging tab; each entry has its own algorithm and "
    "parameters (the same algorithm may appear twice with different parameters)."
)


class ComparePanel(QtWidgets.QWidget):
    """The list of entries, with Add and Compare.

    Signals
    -------
    changed()
        An entry was edited (and is valid), added or removed.
    error(str)
        An entry's edit was not accepted (an ε outside (0, 1), a β the algorithm
        refuses): why, naming the entry. The entry's field is marked and the panel's
        message says the same until it is put right.
    compare_requested()
    match_requested(int)
        Compare with a conv entry matching entry ``index``'s error (0-based).
    """

    changed = pyqtSignal()
    error = pyqtSignal(str)
    compare_requested = pyqtSignal()
    match_requested = pyqtSignal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        intro = QtWidgets.QLabel(INTRO)
        intro.setWordWrap(True)
        self.add_button = QtWidgets.QPushButton("Add entry")
        self.compare_button = QtWidgets.QPushButton("Compare")
        self.compare_button.setToolTip("Image with every entry and measure each against the DFT")
        self.repeats_box = QtWidgets.QSpinBox()
        self.repeats_box.setRange(1, MAX_REPEATS)
        self.repeats_box.setValue(COMPARE_REPEATS)
        self.repeats_box.setKeyboardTracking(False)  # one edit of the lab's state, not one a key
        self.repeats_box.setToolTip(
            "Each entry images at most this many times after an untimed warm-up on every "
            "k-th row, and "
            f"at least twice: its timed runs stop where another would pass {TIMING_BUDGET_S:g} s. "
            "The table shows the median time and the fastest–slowest, the timing plot the "
            "spread as error bars"
        )
        self.message = QtWidgets.QLabel("")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #d03030;")
        self._list = QtWidgets.QVBoxLayout()
        self._list.setSpacing(4)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addStretch(1)
        buttons.addWidget(QtWidgets.QLabel("Timed runs"))
        buttons.addWidget(self.repeats_box)
        buttons.addWidget(self.compare_button)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(intro)
        lay.addLayout(self._list)
        lay.addLayout(buttons)
        lay.addWidget(self.message)
        lay.addStretch(1)
        self.editors: list[EntryEditor] = []
        self.add_button.clicked.connect(lambda: self.add_entry())
        self.compare_button.clicked.connect(self.compare_requested)
        self.repeats_box.valueChanged.connect(self.changed)
        self.set_algorithms(DEFAULT_ALGORITHMS)

    # ------------------------------------------------------------------ state
    def repeats(self) -> int:
        """Timed runs of each entry at most (the median and the spread are shown)."""
        return int(self.repeats_box.value())

    def set_repeats(self, repeats: int) -> None:
        """Show a state's timed runs per entry without emitting ``changed``."""
        with QtCore.QSignalBlocker(self.repeats_box):
            self.repeats_box.setValue(int(repeats))

    def entries(self, base: ImagingOptions) -> tuple[ImagingOptions, ...]:
        """Every entry as ``base`` with its algorithm and parameters (ValueError if invalid)."""
        out = []
        for k, ed in enumerate(self.editors, start=1):
            try:
                out.append(ed.options(base))
            except ValueError as exc:
                self.message.setText(f"Entry {k} ({ed.algorithm()}): {exc}")
                raise ValueError(f"compare entry {k} ({ed.algorithm()}): {exc}") from None
        self.message.setText("")
        return tuple(out)

    def set_entries(self, entries: Sequence[ImagingOptions], *, emit: bool = False) -> None:
        """Replace the entries (their algorithm and gridder parameters are used)."""
        if not MIN_ENTRIES <= len(entries) <= MAX_ENTRIES:
            raise ValueError(f"give {MIN_ENTRIES}–{MAX_ENTRIES} entries, got {len(entries)}")
        for ed in self.editors:
            self._list.removeWidget(ed)
            ed.hide()  # not drawn where it was until its deferred delete
            ed.deleteLater()
        self.editors = []
        for o in entries:
            self._append(o)
        self._renumber()
        if emit:
            self.changed.emit()

    def set_algorithms(self, names: Sequence[str], *, emit: bool = False) -> None:
        """Entries for these algorithms with default parameters (ValueError if unknown)."""
        bad = [n for n in names if n not in GRIDDERS]
        if bad:
            raise ValueError(f"cannot compare {', '.join(bad)}; choose from {', '.join(GRIDDERS)}")
        self.set_entries([ImagingOptions(algorithm=n) for n in names], emit=emit)

    def add_entry(
        self, options: ImagingOptions | None = None, *, emit: bool = True
    ) -> EntryEditor | None:
        """Add an entry (default: the last one's parameters, an algorithm not used yet).

        ``emit``: say ``changed`` (False for an entry the shown comparison already holds).
        """
        if len(self.editors) >= MAX_ENTRIES:
            return None
        if options is None:
            used = {ed.algorithm() for ed in self.editors}
            algo = next((a for a in DEFAULT_ALGORITHMS + GRIDDERS if a not in used), "conv")
            try:  # the last entry's parameters, where they suit the new algorithm
                last = self.editors[-1].options(ImagingOptions()) if self.editors else None
                options = replace(last or ImagingOptions(), algorithm=algo)
            except ValueError:
                options = ImagingOptions(algorithm=algo)
        ed = self._append(options)
        self._renumber()
        if emit:
            self.changed.emit()
        return ed

    def remove_entry(self, editor: EntryEditor) -> None:
        if len(self.editors) <= MIN_ENTRIES or editor not in self.editors:
            return
        self.editors.remove(editor)
        self._list.removeWidget(editor)
        editor.hide()
        editor.deleteLater()
        self._renumber()
        self.changed.emit()

    # ------------------------------------------------------------- internals
    def _append(self, options: ImagingOptions) -> EntryEditor:
        ed = EntryEditor()
        ed.set_options(options)
        ed.changed.connect(lambda ed=ed: self._entry_edited(ed))
        ed.remove_requested.connect(lambda ed=ed: self.remove_entry(ed))
        ed.match_requested.connect(lambda ed=ed: self.match_requested.emit(self.editors.index(ed)))
        self._list.addWidget(ed)
        self.editors.append(ed)
        return ed

    def _entry_edited(self, editor: EntryEditor) -> None:
        """An entry's edit: ``changed`` when it is valid, else ``error`` saying why."""
        try:
            editor.options(ImagingOptions())
        except ValueError as exc:
            k = self.editors.index(editor) + 1
            self.message.setText(f"Entry {k} ({editor.algorithm()}): {exc}")
            self.error.emit(f"compare entry {k} ({editor.algorithm()}) not accepted: {exc}")
            return
        self.message.setText("")
        self.changed.emit()

    def _renumber(self) -> None:
        for k, ed in enumerate(self.editors, start=1):
            ed.setTitle(f"Entry {k}")
            ed.remove_button.setEnabled(len(self.editors) > MIN_ENTRIES)
            ed.set_match_allowed(len(self.editors) < MAX_ENTRIES)
        self.add_button.setEnabled(len(self.editors) < MAX_ENTRIES)
