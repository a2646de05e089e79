"""Pictures the project draws as image skies: a radio galaxy, a spiral, a ring.

Each is a relative :class:`~uvlab.app.skymodel.image_sky.ImageSky` (centred on the phase
centre, ``width_arcmin`` wide) of a given total flux.
"""

from __future__ import annotations

import math

import numpy as np

from uvlab.app.skymodel.checks import SkyModelError
from uvlab.app.skymodel.image_sky import ARCSEC, ImageSky

#: Drawn demo pictures (:func:`demo_picture`).
DEMO_PICTURES = ("radio-galaxy", "spiral", "ring")


def demo_picture(
    name: str, width_arcmin: float = 4.0, flux_jy: float = 1.0, npix: int = 256
) -> ImageSky:
    """A picture the project draws: ``radio-galaxy``, ``spiral`` or ``ring``.

    - ``radio-galaxy``: a compact core, two jets and two edge-brightened lobes
      with hot spots (a Fanaroff–Riley II double), 90 % of the flux in the lobes;
    - ``spiral``: an exponential disc with two logarithmic arms (pitch 20°) and a bulge;
    - ``ring``: a thin shell brighter on one side (a supernova remnant, an
      Einstein ring).
    """
    key = name.strip().lower()
    if key not in DEMO_PICTURES:
        raise SkyModelError(f"unknown demo picture {name!r}; choose one of {DEMO_PICTURES}")
    t = (np.arange(npix) - (npix - 1) / 2.0) / (npix / 2.0)  # [-1, 1] across
    x, y = np.meshgrid(t, t)  # image[y, x], y north, x west

    def gauss(x0, y0, sx, sy, angle=0.0):
        c, s = math.cos(angle), math.sin(angle)
        dx, dy = x - x0, y - y0
        a, b = c * dx + s * dy, -s * dx + c * dy
        return np.exp(-0.5 * ((a / sx) ** 2 + (b / sy) ** 2))

    if key == "radio-galaxy":
        lobes = sum(gauss(sx * 0.55, sx * 0.12, 0.16, 0.11, 0.2) for sx in (-1, 1))
        spots = sum(gauss(sx * 0.68, sx * 0.15, 0.03, 0.03) for sx in (-1, 1))
        jets = sum(gauss(sx * 0.28, sx * 0.06, 0.2, 0.012, 0.21) for sx in (-1, 1))
        core = gauss(0.0, 0.0, 0.015, 0.015)
        img = 0.9 * lobes / lobes.sum() + 0.5 * spots / spots.sum()
        img += 0.05 * jets / jets.sum() + 0.05 * core / core.sum()
    elif key == "spiral":
        r = np.hypot(x, y) + 1e-9
        theta = np.arctan2(y, x)
        arms = np.cos(2.0 * (theta - np.log(r) / math.tan(math.radians(20.0)))) ** 8
        disc = np.exp(-r / 0.25)
        img = disc * (0.3 + arms) + 0.6 * gauss(0.0, 0.0, 0.05, 0.04)
        img[r > 0.95] = 0.0
    else:  # ring
        r = np.hypot(x, y)
        theta = np.arctan2(y, x)
        img = np.exp(-0.5 * ((r - 0.55) / 0.04) ** 2) * (1.0 + 0.6 * np.cos(theta - 0.8))
    img = np.clip(img, 0.0, None)
    img *= flux_jy / img.sum()
    pixel = width_arcmin * 60.0 * ARCSEC / npix
    return ImageSky(img, key, pixel_rad=pixel)
