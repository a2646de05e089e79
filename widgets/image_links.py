"""Tie image views together: shared zoom and pan, and one crosshair for all."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from uvlab.widgets.image_view import SkyImageView


def link_views(*views: SkyImageView) -> None:
    """Link zoom and pan of several image views (all share (l, m) arcmin axes)."""
    for v in views[1:]:
        v.plot_item.setXLink(views[0].plot_item)
        v.plot_item.setYLink(views[0].plot_item)


def follow_zoom(view: SkyImageView, peers: Callable[[], Iterable[SkyImageView]]) -> None:
    """A zoom or pan by the user in ``view`` gives ``peers()`` its centre and extent.

    For views of different sizes, where pyqtgraph's ``setXLink``/``setYLink``
    fight with the locked aspect ratios: each peer keeps its own aspect ratio
    and counts as zoomed by the user (it stops refitting to new images). The
    view's *Fit* fits the peers too. ``peers`` is called each time, so the set
    may change (compare mode's columns).
    """

    def follow(_mask) -> None:
        (x0, x1), (y0, y1) = view.view_box.viewRange()
        for dst in peers():
            if dst is not view and dst.image() is not None:
                dst.set_view_range((x0, x1), (y0, y1), by_user=True)

    def fit() -> None:
        for dst in peers():
            if dst is not view:
                dst.fit_to_image()

    view.view_box.sigRangeChangedManually.connect(follow)
    view.zoom_reset.connect(fit)


def link_zoom(*views: SkyImageView) -> None:
    """Share zoom, pan and *Fit* between image views of different sizes (:func:`follow_zoom`)."""
    for v in views:
        follow_zoom(v, lambda: views)


def link_crosshairs(*views: SkyImageView) -> None:
    """Make moving the crosshair in any view move it in all the others."""
    for a in views:
        for b in views:
            if a is not b:
                a.crosshair_moved.connect(b.set_crosshair)
