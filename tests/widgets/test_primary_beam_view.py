"""PrimaryBeamView: the map placed in degrees, the components marked and labelled."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PyQt6 import QtWidgets

from uvlab.widgets.primary_beam_view import MAX_LABELS, PrimaryBeamView


def test_map_sources_and_field(qtbot):
    view = PrimaryBeamView()
    qtbot.addWidget(view)
    n, step = 21, 1e-3
    power = np.random.default_rng(0).random((n, n))
    view.set_beam(power, step, image_half_rad=4e-3, title="airy", defer=True)
    assert view.needs_drawing() and view.power() is power and view.step() == step
    view.set_sources([0.0, 5e-3], [0.0, -2e-3], [1.0, 0.25])
    assert view.flush() and not view.needs_drawing()
    rect = view.image_item.mapRectToParent(view.image_item.boundingRect())
    assert rect.left() == pytest.approx(math.degrees(-10.5 * step))
    assert rect.width() == pytest.approx(math.degrees(n * step))
    x, y = view.marks.getData()
    np.testing.assert_allclose(x, np.degrees([0.0, 5e-3]))
    np.testing.assert_allclose(y, np.degrees([0.0, -2e-3]))
    assert sorted(t.toPlainText() for t in view._labels) == ["×0.25", "×1.00"]
    assert max(view.field_item.getData()[0]) == pytest.approx(math.degrees(4e-3))
    assert view.title.text() == "airy"


def test_labels_are_bounded_and_do_not_overlap(qtbot):
    """A crowded sky: the gains shown lie inside the plot, none over another."""
    view = PrimaryBeamView()
    qtbot.addWidget(view)
    view.resize(600, 500)
    view.show()
    qtbot.waitExposed(view)
    view.set_beam(np.ones((11, 11)), 1e-3)
    rng = np.random.default_rng(28)
    l = np.r_[np.linspace(-5e-3, 5e-3, 200), rng.normal(0, 1e-3, 40)]
    m = np.r_[np.zeros(200), rng.normal(0, 1e-3, 40)]
    view.set_sources(l, m, np.ones_like(l))
    view.flush()
    QtWidgets.QApplication.processEvents()
    assert 0 < len(view._labels) <= MAX_LABELS
    shown = [t.sceneBoundingRect() for t in view.shown_labels()]
    assert len(shown) >= 3
    assert not any(a.intersects(b) for k, a in enumerate(shown) for b in shown[k + 1 :])
    plot = view.view_box.sceneBoundingRect()
    assert all(plot.contains(r) for r in shown)


def test_message_clears_and_bad_input_is_refused(qtbot):
    view = PrimaryBeamView()
    qtbot.addWidget(view)
    view.set_beam(np.ones((5, 5)), 1e-3)
    view.set_message("No primary beam")
    assert view.power() is None and view.title.text() == "No primary beam"
    with pytest.raises(ValueError, match="square"):
        view.set_beam(np.ones((3, 4)), 1e-3)
    with pytest.raises(ValueError, match="step"):
        view.set_beam(np.ones((3, 3)), 0.0)
    with pytest.raises(ValueError, match="differ"):
        view.set_sources([0.0], [0.0, 1.0], [1.0])
