"""Run panel: Run, Cancel and Play, auto-run on edits, progress bar and status text.

The bar shows the job's time left when one is known (:meth:`RunPanel.set_time_left`,
given by :class:`~uvlab.app.gui.job_clock.JobClock`).
"""

from __future__ import annotations

from PyQt6 import QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.widgets.elided_label import ElidedLabel

#: The progress bar's and status line's text between Cancel and the job's stop.
CANCELLING = "cancelling…"


class RunPanel(QtWidgets.QWidget):
    """Buttons and progress of the current job.

    Signals
    -------
    run_clicked(), cancel_clicked()
    play_toggled(bool)
        Play (True) or stop (False) the hour-by-hour synthesis animation.
    """

    run_clicked = pyqtSignal()
    cancel_clicked = pyqtSignal()
    play_toggled = pyqtSignal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.run_button = QtWidgets.QPushButton("Run")
        self.run_button.setToolTip("Simulate (or read) and image now (Ctrl+R)")
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.play_button = QtWidgets.QPushButton("▶ Play")
        self.play_button.setCheckable(True)
        self.play_button.setToolTip(
            "Animate the synthesis: grow the hour-angle range one hour at a time"
        )
        self.autorun_check = QtWidgets.QCheckBox("Run on every change")
        self.autorun_check.setChecked(True)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self._shown: tuple[float, str] | None = None  # the last progress: (fraction, stage)
        self._left: str | None = None  # "about 8 s": the running job's time left
        # one line cut at a word to the dock's width: the whole text in its tooltip (and
        # a finished job's in the status bar)
        self.status = ElidedLabel("Ready")
        buttons = QtWidgets.QHBoxLayout()
        for b in (self.run_button, self.cancel_button, self.play_button):
            buttons.addWidget(b)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(buttons)
        lay.addWidget(self.autorun_check)
        lay.addWidget(self.progress)
        lay.addWidget(self.status)
        self.run_button.clicked.connect(self.run_clicked)
        self.cancel_button.clicked.connect(self.cancel_clicked)
        self.play_button.toggled.connect(self._on_play)

    def autorun(self) -> bool:
        return self.autorun_check.isChecked()

    def set_busy(self, busy: bool) -> None:
        self.cancel_button.setEnabled(busy)
        if not busy:
            self._shown, self._left = None, None
            self.set_cancelling(False)
            self.progress.setValue(0)

    def set_cancelling(self, cancelling: bool) -> None:
        """Show that Cancel was pressed and the job is stopping (until it has)."""
        self.progress.setTextVisible(cancelling)
        self.progress.setFormat(CANCELLING if cancelling else "%p%")
        if cancelling:
            self._left = None
        if cancelling:
            self.cancel_button.setEnabled(False)
            self.status.setText(CANCELLING)

    def is_cancelling(self) -> bool:
        return self.progress.isTextVisible() and self.progress.format() == CANCELLING

    def set_progress(self, fraction: float, stage: str) -> None:
        """The running job's fraction done and its stage (``"45 % · Compare: conv"``).

        The percentage comes first, so that a label cut to the dock's width keeps it.
        """
        if self.is_cancelling():  # the job is stopping: no stage after "cancelling…"
            return
        self._shown = (fraction, stage)
        self.progress.setValue(round(1000 * min(max(fraction, 0.0), 1.0)))
        self.status.setText(f"{100 * fraction:.0f} % · {stage}")
        self._show_left()

    def set_time_left(self, text: str | None) -> None:
        """The running job's time left (``"about 8 s"``), shown in the bar; None: not known."""
        self._left = text
        self._show_left()

    def time_left_text(self) -> str | None:
        """What the bar says beside the percentage (None: nothing)."""
        return self.progress.format() if self.progress.isTextVisible() else None

    def _show_left(self) -> None:
        if self.is_cancelling():
            return
        self.progress.setTextVisible(self._left is not None)
        self.progress.setFormat("%p%" if self._left is None else f"%p% · {self._left} left")

    def set_status(self, text: str) -> None:
        """One line (cut at a word to fit; the whole of it in the tooltip)."""
        self.status.setText(text)

    def set_playing(self, playing: bool) -> None:
        """Show the Play button's state without emitting ``play_toggled``."""
        self.play_button.blockSignals(True)
        self.play_button.setChecked(playing)
        self.play_button.blockSignals(False)
        self.play_button.setText("■ Stop" if playing else "▶ Play")

    def _on_play(self, checked: bool) -> None:
        self.play_button.setText("■ Stop" if checked else "▶ Play")
        self.play_toggled.emit(checked)
