"""``uvlab image --density-frame lsrk``: tclean's density cells, against a NumPy count and DFT.

The oracle counts each sample in the cell ``floor(s·u/du)`` (both halves) with s = 1 − β
from astropy (the barycentric correction plus the Sun's LSRK motion), and images the
uniform weights with a direct float64 DFT. What tclean itself showed is in
tests/app/commands/test_weighting_vs_tclean.py (marked ``casa``).
"""

from __future__ import annotations

import astropy.units as u
import numpy as np
import pytest
from astropy.coordinates import EarthLocation, SkyCoord
from astropy.io import fits
from astropy.time import Time

from tests.support.cli import run_cli
from uvlab.app.observing.lsrk import C_KMS, SUN_LSRK_KMS

NPIX, CELL_ARCSEC = 64, 4.0
CELL = np.radians(CELL_ARCSEC / 3600)


@pytest.fixture(scope="module")
def track(vla_c_track):
    return vla_c_track


def _astropy_ratio(ms):
    from casacore.tables import table

    with table(str(ms), ack=False) as t:
        time = np.median(t.getcol("TIME"))
    with table(f"{ms}/ANTENNA", ack=False) as t:
        site = t.getcol("POSITION").mean(axis=0)
    src = SkyCoord(150 * u.deg, 30 * u.deg)
    loc = EarthLocation.from_geocentric(*site, unit=u.m)
    v = src.radial_velocity_correction(
        "barycentric", obstime=Time(time / 86400, format="mjd"), location=loc
    )
    return 1.0 - (v.to_value(u.km / u.s) + SUN_LSRK_KMS @ src.cartesian.xyz.value) / C_KMS


def _oracle_psf(ms, scale):
    from casacore.tables import table

    with table(str(ms), ack=False) as t:
        uvw = t.getcol("UVW")
    with table(f"{ms}/SPECTRAL_WINDOW", ack=False) as t:
        freq = t.getcol("CHAN_FREQ")[0, 0]
    uv = uvw[:, :2] * freq / 299792458.0
    du = 1.0 / (NPIX * CELL)
    both = np.concatenate([uv, -uv]) * scale
    cells, inverse = np.unique(np.floor(both / du), axis=0, return_inverse=True)
    density = np.bincount(inverse.ravel(), minlength=len(cells))[inverse.ravel()[: len(uv)]]
    w = 1.0 / density
    k = np.arange(NPIX) - NPIX // 2
    l, m = -k * CELL, k * CELL  # image[j, i]: l from i (east left), m from j
    cu = np.cos(2 * np.pi * np.outer(uv[:, 0], l))
    su = np.sin(2 * np.pi * np.outer(uv[:, 0], l))
    cv = np.cos(2 * np.pi * np.outer(uv[:, 1], m))
    sv = np.sin(2 * np.pi * np.outer(uv[:, 1], m))
    # Σ w cos(a + b) = Σ w (cos a cos b − sin a sin b), as (j, i) matrices
    return ((cv * w[:, None]).T @ cu - (sv * w[:, None]).T @ su) / w.sum()


def _psf(ms, tmp_path, frame):
    out = tmp_path / frame
    code, _, err = run_cli(
        "image", "--ms", ms, "--npix", NPIX, "--cell-arcsec", CELL_ARCSEC, "--weighting",
        "uniform", "--density-frame", frame, "--eps", "1e-7", "--no-png", "--out", out,
    )  # fmt: skip
    assert code == 0, err
    return fits.getdata(f"{out}-psf.fits").squeeze()


def test_lsrk_cells_give_the_oracles_psf(track, tmp_path):
    scale = _astropy_ratio(track)
    assert 1e-5 < abs(scale - 1) < 2e-4
    want = _oracle_psf(track, scale)
    assert np.abs(_psf(track, tmp_path, "lsrk") - want).max() < 1e-6  # 3e-8 seen
    topo = _psf(track, tmp_path, "topo")
    np.testing.assert_allclose(topo, _oracle_psf(track, 1.0), atol=1e-6)
    assert np.abs(topo - want).max() > 1e-3  # 1.9e-3: the frames' cells differ here
