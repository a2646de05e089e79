"""One place to configure pyqtgraph for every uvlab view.

Importing this module binds pyqtgraph to PyQt6 (by importing PyQt6 first) and
sets ``imageAxisOrder='row-major'`` so an ImageItem shows ``img[j, i]`` with
row j along y and column i along x, as uvlab's image arrays are indexed.
"""

from __future__ import annotations

import pyqtgraph as pg
from PyQt6 import QtCore  # noqa: F401  (import first so pyqtgraph picks PyQt6)

pg.setConfigOptions(imageAxisOrder="row-major", antialias=False)

#: Colour maps offered by the image view: display name → (source, pyqtgraph name).
#: ``"blue-red"`` (CET-D1, blue → white → red) is a diverging map for signed
#: images (residuals, differences). Every map ships with pyqtgraph: matplotlib's
#: would import pyplot, over a second of the window's start.
COLORMAPS: dict[str, tuple[str | None, str]] = {
    "viridis": (None, "viridis"),
    "inferno": (None, "inferno"),
    "magma": (None, "magma"),
    "plasma": (None, "plasma"),
    "cividis": (None, "cividis"),
    "gray": ("uvlab", "gray"),
    "blue-red": (None, "CET-D1"),
}

#: Colour maps meant for signed data: levels are made symmetric about zero.
DIVERGING = frozenset({"blue-red"})

#: Twelve distinguishable colours (Tableau 10 plus two), for categories.
PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
    "#17becf",
    "#8c564b",
)


def get_colormap(name: str) -> pg.ColorMap:
    """Look up a colour map by its display name in :data:`COLORMAPS`.

    Raises
    ------
    ValueError
        For a name that is not offered.
    """
    try:
        source, key = COLORMAPS[name]
    except KeyError:
        raise ValueError(f"unknown colour map {name!r}; choose from {list(COLORMAPS)}") from None
    if source == "uvlab":  # plain black → white, R = G = B
        return pg.ColorMap([0.0, 1.0], [(0, 0, 0), (255, 255, 255)], name=key)
    return pg.colormap.get(key)


def plain_axes(plot_item: pg.PlotItem) -> None:
    """Turn off automatic SI-prefix scaling of tick labels on every axis.

    Our axis labels carry their own units (arcmin, kλ, ms), and on a log axis
    pyqtgraph would append a wrong ``(x0.001)`` to the label.
    """
    for name in ("left", "bottom", "right", "top"):
        plot_item.getAxis(name).enableAutoSIPrefix(False)


__all__ = ["COLORMAPS", "DIVERGING", "PALETTE", "get_colormap", "pg", "plain_axes"]
