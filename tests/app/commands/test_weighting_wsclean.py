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

from tests.support.cli import error_line, one_process_and_chunked, run_cli
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


def _oracle_psf(ms, padding, scheme, robust, super_weight=1.0, rank=(0.0, 16)):
    u, v, w = _samples(ms)
    wt = wsclean_weights(u, v, w, NPIX, SPEC.cell_rad, padding, scheme, robust, super_weight,
                         *rank)  # fmt: skip
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


@pytest.mark.parametrize(
    ("scheme", "robust", "flags", "super_weight", "rank"),
    [
        ("uniform", 0.0, ("--weighting-rank-filter", 3), 1.0, (3.0, 16)),
        ("briggs", -0.5, ("--weighting-rank-filter", 3), 1.0, (3.0, 16)),
        ("uniform", 0.0, ("--super-weight", 2, "--weighting-rank-filter", 3), 2.0, (3.0, 16)),
        ("briggs", -0.5, ("--super-weight", 2, "--weighting-rank-filter", 3), 2.0, (3.0, 16)),
        ("uniform", 0.0, ("--super-weight", 1.5, "--weighting-rank-filter", 1.2,
                          "--weighting-rank-filter-size", 5), 1.5, (1.2, 5)),
    ],
)  # fmt: skip
def test_super_weight_and_rank_filter_give_the_oracles_psf(
    track, tmp_path, scheme, robust, flags, super_weight, rank
):
    """WSClean's ``-super-weight`` and rank filter on its cells give the oracle's PSF at
    every pixel (measured: 1.5e-8 to 2.7e-8 of the peak); without them the oracle's PSF is
    another (by 2.6e-3 and 1.4e-3 for the filter alone, uniform and Briggs −0.5; 7.3e-2,
    7.2e-2 and 5.2e-2 with a super weight, whose coarser cells the filter at level 3 leaves
    alone under Briggs −0.5 but moves uniform's by 2.2e-2)."""
    ours = _psf(track, tmp_path / "ws", scheme, robust, "--density-cells", "wsclean", *flags)
    want = _oracle_psf(track, 1.2, scheme, robust, super_weight, rank)
    assert np.abs(ours - want).max() < 1e-6
    plain = _oracle_psf(track, 1.2, scheme, robust)
    assert np.abs(plain - want).max() > 1e-3


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


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (("--super-weight", 0.5), "--super-weight"),
        (("--super-weight", "inf"), "--super-weight"),
        (("--weighting-rank-filter", 0.5), "--weighting-rank-filter"),
        (("--weighting-rank-filter", -1), "--weighting-rank-filter"),
        (("--weighting-rank-filter", 3, "--weighting-rank-filter-size", 1),
         "--weighting-rank-filter-size"),
        (("--weighting-rank-filter", 3, "--weighting-rank-filter-size", 2.5),
         "--weighting-rank-filter-size"),
        (("--weighting-rank-filter-size", 8), "--weighting-rank-filter-size"),
    ],
)  # fmt: skip
def test_bad_super_weight_or_rank_filter_is_a_usage_error(track, tmp_path, flags, named):
    """One line naming the flag, exit 2; a window size without a level is refused too."""
    code, _, err = run_cli(
        "image", "--ms", track, "--npix", NPIX, "--weighting", "uniform", *flags,
        "--out", tmp_path / "x",
    )  # fmt: skip
    line = error_line(err)
    assert code == 2 and named in line


@pytest.mark.parametrize(
    ("scheme", "robust", "rank", "clean"),
    [
        ("uniform", 0.0, ("2", "9"), ()),
        ("briggs", -2.0, ("1.2", "5"), ("--niter", 20, "--deconvolver", "hogbom")),
    ],
)
def test_chunked_path_filters_the_summed_counts(
    track, cluster, tmp_path, scheme, robust, rank, clean
):
    """On two workers in chunks of 2000 rows the rank filter runs once on the summed counts
    (``density_totals``) and the images equal the one-process ones (CLEAN's too: its 2N
    PSF weights by the N² image's filtered cells). Had the parts not been filtered they
    would differ (checked: by 1.2e-2 and 1.0e-2 of the peak)."""
    level, size = rank
    args = ["image", "--ms", track, "--npix", NPIX, "--cell-arcsec", CELL_ARCSEC, "--weighting",
            scheme, "--robust", robust, "--density-cells", "wsclean", "--super-weight", 1.5,
            "--weighting-rank-filter", level, "--weighting-rank-filter-size", size, "--no-png",
            "--device", "cpu", *clean]  # fmt: skip
    one_process_and_chunked(args, tmp_path, cluster, ["--chunk-rows", 2000])
    kinds = ("psf", "model", "residual", "image") if clean else ("dirty", "psf")
    for kind in kinds:
        want = fits.getdata(tmp_path / f"one-{kind}.fits")
        got = fits.getdata(tmp_path / f"many-{kind}.fits")
        np.testing.assert_allclose(got, want, atol=1e-6 * np.abs(want).max())
    history = "".join(fits.getheader(tmp_path / "many-psf.fits")["HISTORY"])
    assert f"super_weight=1.5 rank_filter={level} rank_filter_size={size}" in history
