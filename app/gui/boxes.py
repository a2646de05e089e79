"""A titled group box around views: the frame every tab of the window uses."""

from __future__ import annotations

from PyQt6 import QtWidgets


def boxed(title: str, *items) -> QtWidgets.QGroupBox:
    """A QGroupBox titled ``title`` holding ``items`` (widgets or layouts) in a column."""
    box = QtWidgets.QGroupBox(title)
    lay = QtWidgets.QVBoxLayout(box)
    lay.setContentsMargins(2, 2, 2, 2)
    for item in items:
        if isinstance(item, QtWidgets.QWidget):
            lay.addWidget(item)
        else:
            lay.addLayout(item)
    return box
