"""CLEAN masks: boolean images, True where components may be placed."""

from __future__ import annotations

import numpy as np


def box_mask(npix: int, boxes, xp=np):
    """A (npix, npix) boolean mask, True inside any of ``boxes``.

    Parameters
    ----------
    npix : int
        Image side N.
    boxes : iterable of (j0, i0, j1, i1)
        Inclusive pixel corners (row, column) of each box, in uvlab's
        ``img[j, i]`` indexing; corners in either order, clipped to the image.
    xp : module
        numpy or cupy: where the mask is made.

    Raises
    ------
    ValueError
        When a box lies wholly outside the image.
    """
    mask = np.zeros((int(npix), int(npix)), dtype=bool)
    for box in boxes:
        j0, i0, j1, i1 = (int(v) for v in box)
        j0, j1 = sorted((j0, j1))
        i0, i1 = sorted((i0, i1))
        if j1 < 0 or i1 < 0 or j0 >= npix or i0 >= npix:
            raise ValueError(f"mask box {tuple(box)} lies outside the {npix}² image")
        mask[max(j0, 0) : min(j1, npix - 1) + 1, max(i0, 0) : min(i1, npix - 1) + 1] = True
    return mask if xp is np else xp.asarray(mask)
