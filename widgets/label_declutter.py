"""Labels on a plot that never overlap: the first ones kept, any that would touch them hidden.

Text labels in a :class:`pyqtgraph.ViewBox` (antenna names, beam gains, the Compare
tab's run names) keep their size on screen while the points they name close up as the
view zooms out: a dense array's core piles its names on top of each other and over the
other antennas. :func:`kept` chooses, in order of preference, the labels whose
rectangles on screen lie inside the plot, clear of those already kept and of the other
points' markers; :func:`declutter` shows those and hides the rest, and is run again
whenever the view's range or size changes (zoom in, and hidden names come back). A
hidden label's point still tells its name in its tooltip.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PyQt6 import QtCore

#: Pixels kept clear around each label.
MARGIN_PX = 1.0


def _edges(rects: Sequence[QtCore.QRectF]) -> np.ndarray:
    """(n, 4) left, top, right, bottom of ``rects``."""
    return np.array([(r.left(), r.top(), r.right(), r.bottom()) for r in rects], float).reshape(
        -1, 4
    )


def _meets(edge: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Whether the rectangle ``edge`` (4,) overlaps each of ``others`` (n, 4) with area."""
    return (
        (others[:, 0] < edge[2])
        & (edge[0] < others[:, 2])
        & (others[:, 1] < edge[3])
        & (edge[1] < others[:, 3])
    )


def _search(free: list, pad: np.ndarray, budget: int) -> list[int] | None:
    """Depth first, in order of preference: a place for every label, clear of each other.

    ``free[i]``: label i's (index, edges) of its places inside the bounds and clear of
    the obstacles. None when there is none, or none found in ``budget`` steps.
    """
    steps = 0

    def go(i: int, shown: np.ndarray) -> list[int] | None:
        nonlocal steps
        if i == len(free):
            return []
        for j, edge in free[i]:
            steps += 1
            if steps > budget:
                return None
            if not _meets(edge + pad, shown).any():
                rest = go(i + 1, np.vstack([shown, edge]))
                if rest is not None:
                    return [j, *rest]
        return None

    return go(0, np.zeros((0, 4)))


def kept(
    rects: Sequence[QtCore.QRectF | Sequence[QtCore.QRectF]],
    *,
    obstacles: Sequence[QtCore.QRectF] = (),
    own: Sequence[int] | None = None,
    bounds: QtCore.QRectF | None = None,
    margin: float = MARGIN_PX,
    search: int = 0,
) -> list[int]:
    """Where to show each label (in order of preference) so that none overlaps another.

    ``rects[i]`` is label i's rectangle, or its rectangles at each place it may go
    (beside its point, on one side then another). Greedy: label i goes to the first
    of its places that, grown by ``margin`` on every side, lies inside ``bounds`` (if
    given) and meets none of the labels placed before it and none of ``obstacles`` but
    its own (``obstacles[own[i]]``: the marker of the point it names). With ``search``
    > 0, first a depth-first search of at most that many steps for places that show
    every label (a few labels with many places: a plot's runs, not an array's
    antennas). Returns, per label, the index of its place, or -1: not shown.
    """
    walls = _edges(obstacles)
    own = np.full(len(rects), -1) if own is None else np.asarray(own, dtype=int)
    b = None if bounds is None else _edges([bounds])[0]
    pad = np.array([-margin, -margin, margin, margin])
    free = []  # each label's places inside the bounds, clear of the obstacles
    for i, places in enumerate(rects):
        places = [places] if isinstance(places, QtCore.QRectF) else places
        mine = []
        for j, edge in enumerate(_edges(places)):
            if b is not None and not (
                edge[0] >= b[0] and edge[1] >= b[1] and edge[2] <= b[2] and edge[3] <= b[3]
            ):
                continue
            if walls.size:
                hits = _meets(edge + pad, walls)
                if 0 <= own[i] < len(hits):
                    hits[own[i]] = False
                if hits.any():
                    continue
            mine.append((j, edge))
        free.append(mine)
    if search > 0 and (found := _search(free, pad, search)) is not None:
        return found
    shown = np.zeros((0, 4))
    where = []
    for mine in free:
        chosen = -1
        for j, edge in mine:
            if not _meets(edge + pad, shown).any():
                chosen = j
                shown = np.vstack([shown, edge])
                break
        where.append(chosen)
    return where


def label_rect(view_box, text, anchor=None) -> QtCore.QRectF:
    """A :class:`pyqtgraph.TextItem`'s rectangle in scene pixels, from its position and anchor.

    Computed, not read from the item, so that it is right before the item is next
    painted (a TextItem places itself when drawn); ``anchor`` (x, y) instead of its own.
    """
    at = view_box.mapViewToScene(text.pos())
    size = text.textItem.boundingRect().size()
    ax, ay = (text.anchor.x(), text.anchor.y()) if anchor is None else anchor
    w, h = size.width(), size.height()
    return QtCore.QRectF(at.x() - ax * w, at.y() - ay * h, w, h)


def marker_rects(view_box, x, y, size_px: float) -> list[QtCore.QRectF]:
    """The scene rectangles of markers ``size_px`` wide at data points (x, y)."""
    half = size_px / 2.0
    rects = []
    for xx, yy in zip(np.asarray(x, float), np.asarray(y, float)):
        at = view_box.mapViewToScene(QtCore.QPointF(xx, yy))
        rects.append(QtCore.QRectF(at.x() - half, at.y() - half, size_px, size_px))
    return rects


def declutter(
    view_box,
    texts: Sequence,
    *,
    anchors=None,
    markers: Sequence[QtCore.QRectF] = (),
    own=None,
    search: int = 0,
) -> int:
    """Show the ``texts`` (in order of preference) inside the view, clear of each other.

    ``anchors``: the anchors each text may take, in order of preference (default: its
    own), or a function of the text that gives them (anchors are fractions of the
    text's size: a gap in pixels depends on it); a text shown takes the first that
    places it clear. ``markers``, ``own`` and ``search`` as :func:`kept`'s
    ``obstacles``, ``own`` and ``search``. Returns how many are shown.
    """
    if anchors is None:
        choices = [None] * len(texts)
        places = [label_rect(view_box, t) for t in texts]
    else:
        choices = [anchors(t) if callable(anchors) else anchors for t in texts]
        places = [[label_rect(view_box, t, a) for a in c] for t, c in zip(texts, choices)]
    bounds = view_box.sceneBoundingRect()
    where = kept(places, obstacles=markers, own=own, bounds=bounds, search=search)
    for t, j, c in zip(texts, where, choices):
        if j >= 0 and c is not None and tuple(t.anchor) != tuple(c[j]):
            t.setAnchor(c[j])
        t.setVisible(j >= 0)
    return sum(j >= 0 for j in where)
