"""Clean components as a sky model, for a WSClean component list.

:func:`clean_components` turns a CLEAN model image into one point component per
nonzero pixel, at the pixel's direction through the image's own WCS (DESIGN §1
FITS axes), Stokes I, flat spectrum at the image frequency — or, from joined CLEAN
with ``--fit-spectral-pol K``, the pixel's K polynomial terms as WSClean writes them:
``I`` the first at the reference frequency ν0, ``SpectralIndex`` the others,
``LogarithmicSI`` false, ``S(ν) = I + Σ_k c_k·(ν/ν0 − 1)^k``;
:func:`write_component_list` writes them with
:func:`uvlab.app.skymodel.wsclean.write_wsclean` (what ``uvlab sky`` and
WSClean read).
"""

from __future__ import annotations

import logging

import numpy as np

from uvlab.app.skymodel.component import Component
from uvlab.app.skymodel.sky_model import SkyModel

log = logging.getLogger(__name__)


def clean_components(model: np.ndarray, header, freq_hz: float, terms=None,
                     ref_freq_hz: float | None = None) -> SkyModel:  # fmt: skip
    """The nonzero pixels of ``model`` (N, N) Jy/pixel as points, placed by ``header``'s WCS.

    ``terms`` (K, N, N), optional: each pixel's polynomial terms at ``ref_freq_hz`` (the
    pixels where ``model`` or a term is nonzero). Pixels the projection puts beyond the
    sky (an image wider than the hemisphere: no direction) are left out, with a warning
    naming their number and flux.
    """
    from astropy.wcs import WCS

    wcs = WCS(header).celestial
    used = model != 0 if terms is None else (model != 0) | np.any(terms != 0, axis=0)
    rows, cols = np.nonzero(used)
    ra, dec = wcs.pixel_to_world_values(cols.astype(float), rows.astype(float))
    ra, dec = np.atleast_1d(ra), np.atleast_1d(dec)
    on_sky = np.isfinite(ra) & np.isfinite(dec)
    if not on_sky.all():
        lost = model[rows[~on_sky], cols[~on_sky]]
        log.warning(
            "%d clean component(s) of %.4g Jy lie beyond the sky (the image is wider than "
            "the hemisphere) and are left out of the component list",
            lost.size,
            lost.sum(),
        )
        rows, cols, ra, dec = rows[on_sky], cols[on_sky], ra[on_sky], dec[on_sky]
    comps = []
    for k, (j, i, a, d) in enumerate(zip(rows, cols, ra, dec)):
        if terms is None:
            flux, nu0, spectrum = float(model[j, i]), float(freq_hz), {}
        else:
            t = [float(x) for x in terms[:, j, i]]
            flux, nu0, spectrum = t[0], float(ref_freq_hz), {"spectral_terms": tuple(t[1:]),
                                                             "log_si": False}  # fmt: skip
        comps.append(Component(f"c{k}", "point", float(a), float(d), (flux, 0.0, 0.0, 0.0),
                               nu0, **spectrum))  # fmt: skip
    return SkyModel(tuple(comps), "clean components")


def write_component_list(path, model, header, freq_hz: float, terms=None, ref_freq_hz=None):
    """Write the clean components of ``model`` as a WSClean component list (atomic); the path."""
    from uvlab.app.skymodel.wsclean import write_wsclean

    sky = clean_components(model, header, freq_hz, terms, ref_freq_hz)
    return write_wsclean(sky, path, overwrite=True)
