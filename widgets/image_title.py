"""A plot title that never asks for room: one line in the widget's font, elided to the plot.

pyqtgraph's title row is 30 px tall and its LabelItem asks for its text's
width, which would widen a small view; here the row is one line of the font
and the text is elided to the width the plot's column gives it (the full
title is the label's tooltip).
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PyQt6 import QtCore, QtGui

if TYPE_CHECKING:
    from pyqtgraph import PlotItem


def show_title(plot_item: PlotItem, title: str, font: QtGui.QFont) -> None:
    """Show ``title`` on ``plot_item`` (none when empty), elided, with the whole as tooltip."""
    label = plot_item.titleLabel
    label.setToolTip(title)
    if not title:
        plot_item.setTitle(None)
        return
    plot_item.setTitle(" ")
    label._uvlab_shown = None  # setTitle replaced the text: elide_title must set it again
    elide_title(plot_item, title, font)


def elide_title(plot_item: PlotItem, title: str, font: QtGui.QFont) -> None:
    """Show ``title`` elided to the title label's width; it never asks for more room.

    Call it again when the label's geometry changes.
    """
    label = plot_item.titleLabel
    if not title:
        return
    fm = QtGui.QFontMetricsF(font)
    width = label.geometry().width() - fm.averageCharWidth()
    text = fm.elidedText(title, QtCore.Qt.TextElideMode.ElideRight, max(width, 0.0))
    size = f"{font.pointSizeF():g}pt" if font.pointSizeF() > 0 else f"{font.pixelSize()}px"
    shown = html.escape(text or "…")
    if getattr(label, "_uvlab_shown", None) != (shown, size):
        label._uvlab_shown = (shown, size)
        label.setText(shown, size=size)
    # LabelItem asks for its text's width; ask for none, the plot's column decides
    label.setMinimumWidth(0)
    label.setPreferredWidth(0)
    # pyqtgraph gives the title row 30 px; one line of this font is enough
    height = label.item.boundingRect().height()
    label.setMaximumHeight(height)
    plot_item.layout.setRowFixedHeight(0, height)


def shown_title(plot_item: PlotItem, title: str) -> str:
    """The title as drawn on ``plot_item`` (elided), plain text; "" without a title."""
    shown = getattr(plot_item.titleLabel, "_uvlab_shown", None)
    return html.unescape(shown[0]) if shown and title else ""
