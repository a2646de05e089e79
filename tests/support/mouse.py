"""Real mouse events sent to a widget (a press, moves, a release: a drag as a hand makes it)."""

from __future__ import annotations

from PyQt6 import QtCore, QtGui, QtWidgets


def send(widget, kind, pos, buttons) -> None:
    """Send a left-button mouse event of ``kind`` at ``pos`` (widget px) with ``buttons`` down."""
    ev = QtGui.QMouseEvent(
        kind,
        QtCore.QPointF(pos),
        QtCore.QPointF(widget.mapToGlobal(pos)),
        QtCore.Qt.MouseButton.LeftButton,
        buttons,
        QtCore.Qt.KeyboardModifier.NoModifier,
    )
    QtWidgets.QApplication.sendEvent(widget, ev)


def drag(widget, start: QtCore.QPoint, end: QtCore.QPoint, steps: int = 8) -> None:
    """Press at ``start``, move in ``steps`` to ``end``, release there (widget px)."""
    left, none = QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.MouseButton.NoButton
    send(widget, QtCore.QEvent.Type.MouseButtonPress, start, left)
    for k in range(1, steps + 1):
        f = k / steps
        p = QtCore.QPoint(
            round(start.x() + f * (end.x() - start.x())),
            round(start.y() + f * (end.y() - start.y())),
        )
        send(widget, QtCore.QEvent.Type.MouseMove, p, left)
    send(widget, QtCore.QEvent.Type.MouseButtonRelease, end, none)
