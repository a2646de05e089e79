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


@pytest.mark.parametrize("size", [(900, 620), (640, 440)])
def test_a_row_of_sources_gets_each_gain_by_its_own_ring(qtbot, size):
    """Lesson 4's row (0, 10, 20, 30′ east) with rings closer than a label's width: each
    gain shown touches its own ring and covers no other ring and no other gain (above
    right of each, they read "×0.03 ×0.28 ×0.75 ×1.00", each over the next ring)."""
    from PyQt6 import QtCore

    from uvlab.widgets.primary_beam_view import RING_PX

    view = PrimaryBeamView()
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    view.set_beam(np.ones((41, 41)), math.radians(2.4 / 41))  # ±1.2°, as the lesson's
    l = np.radians(np.array([0.0, 10.0, 20.0, 30.0]) / 60)
    gains = [1.0, 0.75, 0.28, 0.03]
    view.set_sources(l, np.zeros(4), gains)
    view.flush()
    QtWidgets.QApplication.processEvents()
    vb = view.view_box
    rings = []
    for x in np.degrees(l):
        at = vb.mapViewToScene(QtCore.QPointF(x, 0.0))
        rings.append(QtCore.QRectF(at.x() - RING_PX / 2, at.y() - RING_PX / 2, RING_PX, RING_PX))
    spacing = abs(rings[1].center().x() - rings[0].center().x())
    boxes = {t.toPlainText(): t.sceneBoundingRect() for t in view.shown_labels()}
    assert spacing < max(b.width() for b in boxes.values()), "not crowded: the test shows nothing"
    assert len(boxes) >= 3, boxes
    plot = vb.sceneBoundingRect()
    for k, g in enumerate(gains):
        box = boxes.get(f"×{g:.2f}")
        if box is None:
            continue
        assert plot.contains(box)
        assert box.intersects(rings[k].adjusted(-2, -2, 2, 2)), (g, "away from its ring")
        for j, ring in enumerate(rings):
            assert j == k or not box.intersects(ring), (g, "over the ring of", gains[j])
        others = [b for name, b in boxes.items() if name != f"×{g:.2f}"]
        assert not any(box.intersects(b) for b in others), g
