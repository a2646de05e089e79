"""A shown SkyImageView and the image geometry its tests use (tests/widgets/test_image_*.py)."""

from __future__ import annotations

import numpy as np
from PyQt6 import QtCore, QtWidgets

from uvlab.gpu.image_spec import ARCSEC, ImageSpec
from uvlab.widgets.image_view import SkyImageView

N = 64
SPEC = ImageSpec(N, 12 * ARCSEC)
RA0, DEC0 = np.radians(201.365), np.radians(-43.019)


def shown_view(qtbot, size=(640, 560)) -> SkyImageView:
    """A SkyImageView of ``size`` px, shown and exposed."""
    v = SkyImageView()
    qtbot.addWidget(v)
    v.resize(*size)
    v.show()
    qtbot.waitExposed(v)
    return v


def pixel_scene_pos(view, j, i) -> QtCore.QPointF:
    """Scene position of pixel (j, i)'s centre, from its (l, m) by the DESIGN §1 formula."""
    QtWidgets.QApplication.processEvents()
    l_arcmin, m_arcmin = -(i - N / 2) * 12 / 60, (j - N / 2) * 12 / 60
    return view.view_box.mapViewToScene(QtCore.QPointF(l_arcmin, m_arcmin))
