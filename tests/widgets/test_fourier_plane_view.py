"""FourierPlaneView: the amplitude placed at its (u, v) in kλ, log-scaled; uv points mirrored."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6 import QtCore

from uvlab.widgets.fourier_plane_view import FLOOR_DEX, MAX_POINTS, FourierPlaneView


@pytest.fixture
def view(qtbot):
    v = FourierPlaneView()
    qtbot.addWidget(v)
    return v


def test_amplitude_pixels_sit_at_their_uv(view):
    n, du = 8, 250.0  # wavelengths
    amp = np.full((n, n), 1e-9)
    amp[5, 6] = 2.0  # u = (6 − 4)·du, v = (5 − 4)·du
    view.set_amplitude(amp, du)
    shown = view.image_item.image
    assert shown[5, 6] == 0.0 and shown.min() == -FLOOR_DEX  # log10(|V|/max), floored
    # the centre of pixel (q=5, k=6) sits at (u, v) = (2·du, 1·du), kλ; pixel (4, 4) at 0
    centre = view.image_item.mapToParent(QtCore.QPointF(4.5, 4.5))
    assert (centre.x(), centre.y()) == pytest.approx((0.0, 0.0))
    p = view.image_item.mapToParent(QtCore.QPointF(6.5, 5.5))
    assert (p.x(), p.y()) == pytest.approx((2 * du / 1e3, du / 1e3))
    np.testing.assert_array_equal(view.amplitude(), amp)
    assert view.du() == du


def test_uv_points_and_their_mirrors(view, rng):
    u, v = rng.uniform(-1e4, 1e4, 300), rng.uniform(-1e4, 1e4, 300)
    view.set_uv(u, v)
    x, y = view.points_item.getData()
    assert x.size == 600
    np.testing.assert_allclose(np.sort(x), np.sort(np.concatenate([u, -u]) / 1e3))
    np.testing.assert_allclose(np.sort(y), np.sort(np.concatenate([v, -v]) / 1e3))
    big = rng.uniform(-1, 1, MAX_POINTS)
    view.set_uv(big, big)
    assert view.points_item.getData()[0].size == MAX_POINTS  # a sample, with mirrors
    assert view.uv_points()[0].size == MAX_POINTS
    view.show_points.setChecked(False)
    assert not view.points_item.isVisible()


def test_bad_input_is_refused(view):
    with pytest.raises(ValueError, match="square"):
        view.set_amplitude(np.ones((3, 4)), 1.0)
    with pytest.raises(ValueError, match="du"):
        view.set_amplitude(np.ones((4, 4)), 0.0)


def test_deferred_data_draw_when_shown(view):
    view.hide()
    view.set_amplitude(np.ones((4, 4)), 10.0, defer=True)
    view.set_uv([1.0], [2.0], defer=True)
    assert view.needs_drawing() and view.image_item.image is None
    assert view.amplitude().shape == (4, 4) and view.uv_points()[0].tolist() == [1.0]
    view.show()
    assert not view.needs_drawing() and view.image_item.image is not None
    assert view.points_item.getData()[0].size == 2


def test_note_is_cut_at_a_word_where_narrow_and_whole_in_its_tooltip(view, qtbot, rng):
    """In a lecture grid's narrow cell the note ended mid-word ("(10000 o"); now it ends
    at a word with "…", inside the label, and the tooltip holds it whole."""
    big = rng.uniform(-1, 1, MAX_POINTS)
    view.set_uv(big, big)
    whole = f"{MAX_POINTS:,} samples and their mirrors ({MAX_POINTS // 2:,} of them drawn)"
    assert view.note.text() == whole
    view.resize(300, 300)
    view.show()
    qtbot.waitExposed(view)
    note = view.note
    qtbot.waitUntil(lambda: note.is_elided())
    shown = note.shown_text()
    assert shown.endswith(" …") and whole.startswith(shown[:-2])
    assert whole[len(shown) - 2] == " " or not whole[len(shown) - 2].isalnum()  # at a word
    assert note.fontMetrics().horizontalAdvance(shown) <= note.width()
    assert note.toolTip() == whole
    view.resize(900, 300)
    qtbot.waitUntil(lambda: not note.is_elided())
    assert note.shown_text() == whole and note.toolTip() == ""
