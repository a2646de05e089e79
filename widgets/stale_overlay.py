"""StaleOverlay: marks a view whose picture no longer matches the controls.

A picture left on screen after a failed or running job must never pass for
the current one (issue 28). The overlay is a child of the marked widget that
covers it: it veils the picture (dimmed with a translucent grey) and draws a
banner at the top saying why and what to do. It lets the mouse through, so
the view can still be zoomed and read. Being a child of the widget, it is in
the widget's ``grab()``: a stale picture is exported marked as stale.

Two levels: ``"running"`` (a light banner, no veil: a result is on its way)
and ``"stale"`` (veil and an amber banner: the run failed or was cancelled).
"""

from __future__ import annotations

from PyQt6 import QtCore, QtGui, QtWidgets

#: The kinds of mark: a job on its way, or a picture out of date.
LEVELS = ("running", "stale")
#: Alpha (0–255) of the grey veil over a stale picture.
VEIL_ALPHA = 150
_BANNER = {"running": QtGui.QColor(40, 90, 160, 215), "stale": QtGui.QColor(150, 95, 0, 235)}


class StaleOverlay(QtWidgets.QWidget):
    """A veil and a banner over ``host``, shown while its picture is out of date.

    Parameters
    ----------
    host : QWidget
        The widget to cover (usually a view's ``plot_widget``, so that the
        view's tool row stays usable and its PNG export carries the mark).
    """

    def __init__(self, host: QtWidgets.QWidget):
        super().__init__(host)
        self._text = ""
        self._level = "stale"
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_NoSystemBackground)
        host.installEventFilter(self)
        self.setGeometry(host.rect())
        self.hide()

    def mark(self, text: str, level: str = "stale") -> None:
        """Show the banner ``text`` (why, and what to do) at ``level`` (see :data:`LEVELS`)."""
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; choose from {LEVELS}")
        self._text, self._level = text, level
        self.setToolTip(text)
        self.setGeometry(self.parentWidget().rect())
        self.raise_()
        self.show()
        self.update()

    def unmark(self) -> None:
        """The picture is current again: hide the veil and banner."""
        self._text = ""
        self.hide()

    def text(self) -> str:
        """The banner's text ('' when not marked)."""
        return self._text

    def level(self) -> str | None:
        """``"running"`` or ``"stale"`` while marked, else None."""
        return self._level if self._text else None

    def eventFilter(self, obj: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if obj is self.parentWidget() and event.type() == QtCore.QEvent.Type.Resize:
            self.setGeometry(obj.rect())
        return False

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        painter = QtGui.QPainter(self)
        if self._level == "stale":
            painter.fillRect(self.rect(), QtGui.QColor(60, 60, 60, VEIL_ALPHA))
        font = QtGui.QFont(self.font())
        font.setBold(True)
        painter.setFont(font)
        pad = max(3, QtGui.QFontMetrics(font).height() // 3)
        width = self.width() - 2 * pad
        flags = QtCore.Qt.AlignmentFlag.AlignCenter | QtCore.Qt.TextFlag.TextWordWrap
        box = painter.boundingRect(QtCore.QRect(pad, pad, width, 10_000), flags, self._text)
        banner = QtCore.QRect(0, 0, self.width(), box.height() + 2 * pad)
        painter.fillRect(banner, _BANNER[self._level])
        painter.setPen(QtGui.QColor("white"))
        painter.drawText(banner.adjusted(pad, pad, -pad, -pad), flags, self._text)
        painter.end()
