"""ElidedLabel: one line cut at a word boundary to its width, the whole text in its tooltip."""

from __future__ import annotations

import pytest
from PyQt6 import QtGui

from uvlab.widgets.elided_label import ELLIPSIS, ElidedLabel, elide_words

TEXT = "Compared 4 entries in 13.10 s (reference: dft subsampled every 8 pixels)"


@pytest.fixture
def metrics(qtbot):
    label = ElidedLabel()
    qtbot.addWidget(label)
    return QtGui.QFontMetrics(label.font())


def test_a_text_that_fits_is_whole(metrics):
    assert elide_words(TEXT, metrics, metrics.horizontalAdvance(TEXT)) == TEXT


@pytest.mark.parametrize("share", [0.3, 0.5, 0.7, 0.95])
def test_a_cut_falls_after_a_whole_word_and_fits(metrics, share):
    width = round(share * metrics.horizontalAdvance(TEXT))
    shown = elide_words(TEXT, metrics, width)
    assert metrics.horizontalAdvance(shown) <= width
    assert shown.endswith(" " + ELLIPSIS)
    head = shown[: -len(ELLIPSIS) - 1]
    words = TEXT.split(" ")
    # the head is the first k words of the text, less trailing punctuation
    assert any(" ".join(words[:k]).rstrip(",;:(") == head for k in range(1, len(words)))
    # and the longest such head that fits: one more word would not
    k = len(head.split(" "))
    longer = " ".join(words[: k + 1]).rstrip(",;:(") + " " + ELLIPSIS
    assert metrics.horizontalAdvance(longer) > width


def test_no_word_fits_falls_back_to_a_cut_in_the_word(metrics):
    shown = elide_words("Supercalifragilistic", metrics, metrics.horizontalAdvance("Super"))
    assert shown.endswith(ELLIPSIS) and len(shown) < len("Supercalifragilistic")


def test_the_label_keeps_the_whole_text_and_tells_it_in_its_tooltip(qtbot):
    label = ElidedLabel(TEXT)
    qtbot.addWidget(label)
    label.resize(200, 20)
    label.show()
    qtbot.waitExposed(label)
    assert label.text() == TEXT and label.is_elided() and label.toolTip() == TEXT
    assert label.fontMetrics().horizontalAdvance(label.shown_text()) <= label.width()
    label.resize(2000, 20)
    qtbot.waitUntil(lambda: not label.is_elided())
    assert label.shown_text() == TEXT and label.toolTip() == ""
    label.setText("Ready")
    assert label.text() == label.shown_text() == "Ready"
