"""ElidedLabel: one line of text cut at a word boundary to fit, the whole text in its tooltip.

A :class:`QtWidgets.QLabel` clips a line too long for its width wherever the edge
falls, mid-word ("… dft subsa"). :func:`elide_words` drops whole words from the end
instead and marks the cut with "…"; :class:`ElidedLabel` shows that at its width,
whatever the width, and gives the whole text as its tooltip whenever it is cut.
"""

from __future__ import annotations

from PyQt6 import QtCore, QtGui, QtWidgets

#: What marks the words left out.
ELLIPSIS = "…"


def elide_words(text: str, metrics: QtGui.QFontMetrics, width: int) -> str:
    """``text`` as it fits ``width`` pixels: whole, or cut after a word and ending in "…".

    Words are split at spaces; the cut drops trailing punctuation (``"(reference:"``
    becomes ``"(reference"``) before the "…". When not even the first word fits, Qt's
    own elision cuts it (there is no word boundary left to cut at).
    """
    if metrics.horizontalAdvance(text) <= width:
        return text
    words = text.split(" ")
    for k in range(len(words) - 1, 0, -1):
        head = " ".join(words[:k]).rstrip(" ,;:(·—-")
        if head and metrics.horizontalAdvance(head + " " + ELLIPSIS) <= width:
            return head + " " + ELLIPSIS
    return metrics.elidedText(text, QtCore.Qt.TextElideMode.ElideRight, max(width, 0))


class ElidedLabel(QtWidgets.QLabel):
    """A one-line label that elides at word boundaries; :meth:`text` is the whole text.

    Its width comes from the layout (its own width never widens a panel); the text
    shown is :meth:`shown_text`, and the tooltip holds the whole text while it is cut.
    """

    def __init__(self, text: str = "", parent=None):
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred
        )
        self.setWordWrap(False)
        self.setText(text)

    def setText(self, text: str) -> None:  # Qt override: keep the whole text
        self._full = str(text)
        self._elide()

    def text(self) -> str:  # Qt override: the whole text, not the part shown
        return self._full

    def shown_text(self) -> str:
        """The text drawn at the label's current width."""
        return super().text()

    def is_elided(self) -> bool:
        return self.shown_text() != self._full

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def minimumSizeHint(self) -> QtCore.QSize:  # one line, any width
        return QtCore.QSize(0, super().minimumSizeHint().height())

    def _elide(self) -> None:
        m = self.contentsMargins()
        width = self.width() - m.left() - m.right() - 2 * self.margin() - 2 * max(self.indent(), 0)
        shown = elide_words(self._full, self.fontMetrics(), max(width, 0))
        if super().text() != shown:
            super().setText(shown)
        self.setToolTip(self._full if shown != self._full else "")
