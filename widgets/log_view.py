"""LogView: a read-only, length-capped message log with timestamps.

Long lines wrap at the view's width (a log that opens scrolled sideways hides
the start of each message).
"""

from __future__ import annotations

import html
from datetime import datetime

from PyQt6 import QtGui, QtWidgets

#: Text colour per level (readable on light and dark themes); others use the theme's.
LEVEL_COLORS = {
    "debug": "#808080",
    "warning": "#c07000",
    "error": "#e03030",
}


class LogView(QtWidgets.QPlainTextEdit):
    """Messages as ``HH:MM:SS LEVEL message``, oldest dropped past ``max_lines``."""

    def __init__(self, parent=None, *, max_lines: int = 2000):
        super().__init__(parent)
        self.setReadOnly(True)
        self.setMaximumBlockCount(int(max_lines))
        self.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.WidgetWidth)
        font = QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        self.setFont(font)

    def append(self, level: str, message: str) -> None:
        """Add one message (multi-line messages stay one entry per line)."""
        level = str(level).lower()
        stamp = datetime.now().strftime("%H:%M:%S")
        color = LEVEL_COLORS.get(level)
        style = f"color:{color}; white-space:pre-wrap" if color else "white-space:pre-wrap"
        for line in str(message).splitlines() or [""]:
            text = html.escape(f"{stamp} {level.upper():<7} {line}")
            self.appendHtml(f'<span style="{style}">{text}</span>')
        self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
        self.horizontalScrollBar().setValue(0)

    def lines(self) -> list[str]:
        """The log as plain text lines."""
        return self.toPlainText().splitlines()
