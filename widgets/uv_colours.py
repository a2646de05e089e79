"""The colours of the uv coverage view's two looks: by time, by baseline, or one colour.

By time, colour is an isoluminant map (blue → green → orange, so colour never fights the
density look's brightness): a density cell takes the mean time of its samples, a scatter
dot its row's time in one of a few groups. By baseline, a cell takes the colour of one of
its baselines from the palette. :class:`~uvlab.widgets.uv_coverage_view.UvCoverageView`
draws them; the histogram is :mod:`uvlab.widgets.uv_density`'s.
"""

from __future__ import annotations

import functools

import numpy as np

from uvlab.widgets._pg import PALETTE, get_colormap, pg
from uvlab.widgets.uv_density import PLAIN_COLOUR, UvDensity

#: Colour map of mean time per cell (isoluminant: blue → green → orange).
TIME_COLORMAP = "CET-I1"


@functools.cache
def colormap_rgb(name: str) -> np.ndarray:
    """(256, 3) uint8 lookup table of a pyqtgraph colour map (``CET-*`` or a uvlab name)."""
    cmap = pg.colormap.get(name) if name.startswith("CET") else get_colormap(name)
    lut = np.asarray(cmap.getLookupTable(0.0, 1.0, nPts=256, alpha=False), np.uint8)[:, :3]
    lut.flags.writeable = False
    return lut


def _dense_ids(labels: np.ndarray) -> np.ndarray:
    """Labels → 0..n−1 in sorted order (np.unique's inverse, O(n) for small ints)."""
    labels = np.asarray(labels).ravel()
    if labels.dtype.kind in "iu" and labels.size and 0 <= labels.min() and labels.max() < 1 << 24:
        present = np.zeros(int(labels.max()) + 1, bool)
        present[labels] = True
        return (np.cumsum(present) - 1)[labels]
    return np.unique(labels, return_inverse=True)[1].ravel()


def colour_sources(color_by: str, time=None, baseline=None):
    """(row weight, row label, label colours, (caption, tooltip)) of a colouring.

    ``color_by`` ``"time"`` with ``time`` given: each row's weight is its time, 0 to 1
    over the span; ``"baseline"`` with ``baseline`` given: each row's label indexes the
    palette's colours; else (``"none"``, or the live look) all None, one colour.
    """
    if color_by == "time" and time is not None:
        t = time
        span = float(np.ptp(t)) if t.size else 0.0
        frac = (t - t.min()) / span if span > 0 else np.zeros_like(t)
        how = "colour = time (blue → orange)"
        return frac, None, None, (how, "colour: mean time of the cell's samples (early → late)")
    if color_by == "baseline" and baseline is not None:
        ids = _dense_ids(baseline)
        n = len(PALETTE)
        rgb = np.array([pg.mkColor(c).getRgb()[:3] for c in PALETTE], np.uint8)
        how = ("colour = baseline", "colour: the baseline of one of the cell's samples")
        return None, (ids % n).astype(np.int32), rgb, how
    return None, None, None, ("", "")


def density_colours(density: UvDensity, label_rgb) -> np.ndarray | None:
    """(nbins, nbins, 3) uint8 colour of each cell (its mean time's or its label's), or None
    for one colour."""
    if density.mean_weight is not None:
        lut = colormap_rgb(TIME_COLORMAP)
        idx = np.clip(np.nan_to_num(density.mean_weight) * 255 + 0.5, 0, 255).astype(np.intp)
        return lut[idx]
    if density.label is not None:
        return label_rgb[np.maximum(density.label, 0)]
    return None


def scatter_groups(nrow: int, weight, label, label_rgb, n_groups: int):
    """(group of each row, (ngroups, 3) uint8 colour of each group) of the scatter look.

    By time (``weight``), ``n_groups`` groups along the time map; by ``label``, the
    labels' colours; else one group of the plain colour.
    """
    if weight is not None:
        g = np.minimum((weight * n_groups).astype(int), n_groups - 1)
        rgb = colormap_rgb(TIME_COLORMAP)[
            ((np.arange(n_groups) + 0.5) / n_groups * 255).astype(int)
        ]
        return g, rgb
    if label is not None:
        return label, label_rgb
    return np.zeros(nrow, int), np.array([PLAIN_COLOUR], np.uint8)
