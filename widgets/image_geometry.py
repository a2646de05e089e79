"""Where a sky image's pixels sit on the (l, m) arcmin axes of an image view.

uvlab images are ``img[j, i]`` with ``l = −(i − N/2)·cell`` and
``m = (j − N/2)·cell`` (DESIGN §1, :mod:`uvlab.gpu.image_spec`); the views
draw l and m in arcmin, so each pixel centre is placed at its (l, m) by a
QTransform instead of rescaling the data (STYLE §4).
"""

from __future__ import annotations

import numpy as np
from PyQt6 import QtCore, QtGui

from uvlab.gpu.image_spec import ImageSpec

#: One arcminute, radians (direction cosines): the views' axes are in arcmin.
ARCMIN = np.pi / (180.0 * 60.0)


def pixel_transform(spec: ImageSpec) -> QtGui.QTransform:
    """Map ImageItem pixel corners to (l, m) arcmin: centre of (j, i) → (l_i, m_j)."""
    c = spec.cell_rad / ARCMIN
    off = c * (spec.npix // 2 + 0.5)
    return QtGui.QTransform(-c, 0.0, 0.0, c, off, -off)


def image_extent(spec: ImageSpec) -> tuple[tuple[float, float], tuple[float, float]]:
    """((l_lo, l_hi), (m_lo, m_hi)) arcmin of the image's outer pixel edges."""
    r = pixel_transform(spec).mapRect(QtCore.QRectF(0.0, 0.0, spec.npix, spec.npix))
    return (r.left(), r.right()), (r.top(), r.bottom())
