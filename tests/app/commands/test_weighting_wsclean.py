"""``uvlab image --density-cells wsclean``: WSClean's cells, against a NumPy count and a DFT.

The oracle (tests/support/wsclean_weights.py) counts the samples as WSClean's ``ImageWeights``
does, on the v ≥ 0 half of a grid the size of the image padded by ``-padding``, and images
the weights with a direct float64 DFT. Against WSClean itself: test_weighting_vs_wsclean.py
(marked ``wsclean``; the program is not on PyPI, Debian packages it).
"""

from __future__ import annotations

import numpy as np
import pytest
from astropy.io import fits

from tests.support.cli import run_cli
from tests.support.oracles import C_LIGHT, dft_image
from tests.support.wsclean_weights import wsclean_weights
from uvlab.gpu.image_spec import ARCSEC, ImageSpec

NPIX, CELL_ARCSEC = 64, 4.0
SPEC = ImageSpec(NPIX, CELL_ARCSEC * ARCSEC)


@pytest.fixture(scope="module")
def track(vla_c_track):
    return vla_c_track


def _samples(ms):
    """(u, v) in wavelengths of every row and channel, and their (equal) data weights."""
    from casacore.tables import table

    with table(str(ms), ack=False) as t:
        uvw, weight = t.getcol("UVW"), t.getcol("WEIGHT")
    with table(f"{ms}/SPECTRAL_WINDOW", ack=False) as t:
        freq = t.getcol("CHAN_FREQ")[0]
    assert np.ptp(weight) == 0  # equal weights: the Stokes I weight's scale cancels
    u = (uvw[:, 0, None] * freq / C_LIGHT).ravel()
    v = (uvw[:, 1, None] * freq / C_LIGHT).ravel()
    return u, v, np.ones(u.size)


def _oracle_psf(ms, padding, scheme, robust):
    u, v, w = _samples(ms)
    wt = wsclean_weights(u, v, w, NPIX, SPEC.cell_rad, padding, scheme, robust)
    return dft_image(u, v, wt, SPEC) / wt.sum()


def _psf(ms, out, scheme, robust, *cells):
    code, _, err = run_cli(
        "image", "--ms", ms, "--npix", NPIX, "--cell-arcsec", CELL_ARCSEC, "--weighting",
        scheme, "--robust", robust, *cells, "--eps", "1e-7", "--no-png", "--out", out,
    )  # fmt: skip
    assert code == 0, err
    return fits.getdata(f"{out}-psf.fits").squeeze()


@pytest.mark.parametrize(
    ("scheme", "robust", "padding"),
    [("uniform", 0.0, None), ("briggs", -0.5, None), ("uniform", 0.0, 1.7)],
)
def test_wsclean_cells_give_the_oracles_psf(track, tmp_path, scheme, robust, padding):
    """WSClean's cells (default -padding 1.2: a 76² grid for 64²; 1.7: 112²) give the
    oracle's PSF (measured: 2.9e-8, 2.3e-8 and 1.1e-8 of the peak at worst); CASA's cells,
    the default, give another (4.0e-2, 3.6e-2 and 7.6e-2 from the oracle's)."""
    flags = ["--density-cells", "wsclean"]
    flags += [] if padding is None else ["--density-padding", padding]
    ours = _psf(track, tmp_path / "ws", scheme, robust, *flags)
    want = _oracle_psf(track, padding or 1.2, scheme, robust)
    assert np.abs(ours - want).max() < 1e-6
    casa = _psf(track, tmp_path / "casa", scheme, robust)
    assert np.abs(casa - want).max() > 1e-2


def test_density_padding_without_wsclean_cells_is_a_usage_error(track, tmp_path):
    code, _, err = run_cli(
        "image", "--ms", track, "--npix", NPIX, "--weighting", "uniform",
        "--density-padding", 1.5, "--out", tmp_path / "x",
    )  # fmt: skip
    assert code == 2 and "--density-padding" in err and "--density-cells wsclean" in err
    code, _, err = run_cli(
        "image", "--ms", track, "--npix", NPIX, "--density-cells", "wsclean",
        "--density-padding", 0.5, "--out", tmp_path / "y",
    )  # fmt: skip
    assert code == 2 and "--density-padding" in err
