"""Clean components as a sky model, for a WSClean component list.

:func:`clean_components` turns a CLEAN model image into one point component per
nonzero pixel, at the pixel's direction through the image's own WCS (DESIGN §1
FITS axes), Stokes I, flat spectrum at the image frequency;
:func:`write_component_list` writes them with
:func:`uvlab.app.skymodel.wsclean.write_wsclean` (what ``uvlab sky`` and
WSClean read).
"""

from __future__ import annotations

import numpy as np

from uvlab.app.skymodel.components import Component, SkyModel


def clean_components(model: np.ndarray, header, freq_hz: float) -> SkyModel:
    """The nonzero pixels of ``model`` (N, N) Jy/pixel as points, placed by ``header``'s WCS."""
    from astropy.wcs import WCS

    wcs = WCS(header).celestial
    rows, cols = np.nonzero(model)
    ra, dec = wcs.pixel_to_world_values(cols.astype(float), rows.astype(float))
    comps = tuple(
        Component(f"c{k}", "point", float(a), float(d), (float(model[j, i]), 0.0, 0.0, 0.0),
                  float(freq_hz))
        for k, (j, i, a, d) in enumerate(zip(rows, cols, np.atleast_1d(ra), np.atleast_1d(dec)))
    )  # fmt: skip
    return SkyModel(comps, "clean components")


def write_component_list(path, model, header, freq_hz: float):
    """Write the clean components of ``model`` as a WSClean component list (atomic); the path."""
    from uvlab.app.skymodel.wsclean import write_wsclean

    return write_wsclean(clean_components(model, header, freq_hz), path, overwrite=True)
