"""Weighting schemes against a plain per-sample computation."""

import numpy as np
import pytest

from tests.support.wsclean_weights import wsclean_grid_side, wsclean_weights
from uvlab.gpu.image_spec import ARCSEC, ImageSpec
from uvlab.gpu.imaging.weighting import Weighting, imaging_weights, wsclean_weight_npix


def plain_density(u, v, w, spec):
    """Σw per uv cell, CASA's cells: k·du ≤ u < (k+1)·du, both Hermitian halves counted."""
    du = 1.0 / (spec.npix * spec.cell_rad)
    cells = {}
    for uu, vv, ww in zip(u, v, w):
        for s in (1, -1):
            key = (int(np.floor(s * uu / du)), int(np.floor(s * vv / du)))
            cells[key] = cells.get(key, 0.0) + ww
    return np.array(
        [cells[(int(np.floor(uu / du)), int(np.floor(vv / du)))] for uu, vv in zip(u, v)]
    )


@pytest.fixture
def samples(rng):
    spec = ImageSpec(32, 10 * ARCSEC)
    du = 1.0 / (spec.npix * spec.cell_rad)
    u, v = rng.normal(0, 4 * du, (2, 300))
    w = rng.uniform(0.5, 2.0, 300)
    w[:10] = 0.0
    return spec, u, v, w


def test_natural_is_identity(samples):
    spec, u, v, w = samples
    np.testing.assert_array_equal(imaging_weights(u, v, w, spec, Weighting()), w)


def test_uniform_matches_plain(samples):
    spec, u, v, w = samples
    dens = plain_density(u, v, w, spec)
    want = np.where(dens > 0, w / np.where(dens > 0, dens, 1), 0)
    np.testing.assert_allclose(imaging_weights(u, v, w, spec, Weighting("uniform")), want)


@pytest.mark.parametrize("robust", [-2.0, -0.5, 0.0, 1.0, 2.0])
def test_briggs_matches_formula(samples, robust):
    spec, u, v, w = samples
    dens = plain_density(u, v, w, spec)
    f2 = (5 * 10 ** (-robust)) ** 2 / (np.sum(dens * w) / np.sum(w))
    want = w / (1 + f2 * dens)
    got = imaging_weights(u, v, w, spec, Weighting("briggs", robust))
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_briggs_limits(samples):
    spec, u, v, w = samples
    nat = imaging_weights(u, v, w, spec, Weighting("briggs", 2.0))
    uni = imaging_weights(u, v, w, spec, Weighting("briggs", -2.0))
    unif = imaging_weights(u, v, w, spec, Weighting("uniform"))
    ok = w > 0
    # Shapes (up to a constant factor) approach natural and uniform at the ends.
    assert np.corrcoef(nat[ok], w[ok])[0, 1] > 0.99
    assert np.corrcoef(uni[ok], unif[ok])[0, 1] > 0.99
    assert np.all(nat[~ok] == 0) and np.all(uni[~ok] == 0)


def test_taper_closed_form(samples):
    spec, u, v, w = samples
    theta = 20 * ARCSEC
    got = imaging_weights(u, v, w, spec, Weighting(taper_arcsec=20.0))
    want = w * np.exp(-((np.pi * theta) ** 2) * (u**2 + v**2) / (4 * np.log(2)))
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_gpu_matches_cpu(xp, samples):
    spec, u, v, w = samples
    for wt in (Weighting("uniform"), Weighting("briggs", 0.5, 10.0)):
        got = imaging_weights(xp.asarray(u), xp.asarray(v), xp.asarray(w), spec, wt)
        got = got.get() if hasattr(got, "get") else got
        np.testing.assert_allclose(got, imaging_weights(u, v, w, spec, wt), rtol=1e-12)


@pytest.mark.parametrize("bad", [dict(scheme="super"), dict(robust=3.0), dict(taper_arcsec=-1)])
def test_bad_weighting_rejected(bad):
    with pytest.raises(ValueError):
        Weighting(**bad)


def test_density_cells_are_casas(xp):
    """Cells k·du ≤ u < (k+1)·du (CASA's Int(u·N·cell + N/2)), the mirror in cell −k−1.

    Pinned from CASA: with these cells uniform and Briggs −1/0/+1 PSFs agree with the
    imager tool's to ≤ 2.3e-4 of the peak over the central half (natural: 1.3e-4);
    with cells centred on k·du they differed by 2.6e-2 (uniform) and 1.8e-2 (Briggs 0)
    (tests/app/commands/test_weighting_vs_casa.py, marked ``casa``).
    """
    from uvlab.gpu.imaging.weighting import cell_density

    spec = ImageSpec(16, 10 * ARCSEC)
    du = 1.0 / (spec.npix * spec.cell_rad)
    u = xp.asarray([0.6, 0.9, 1.1, -0.2, -0.3]) * du  # cells 0, 0, 1, −1, −1
    v = xp.asarray([0.1, 0.2, 0.1, 0.5, 0.5]) * du  # cells 0, 0, 0, 0, 0
    w = xp.asarray([1.0, 2.0, 4.0, 8.0, 16.0])
    got = cell_density(u, v, w, spec)
    # the mirrors of cells (0, 0) and (1, 0) are (−1, −1) and (−2, −1): none coincide here
    np.testing.assert_allclose(xp.asnumpy(got) if xp is not np else got, [3, 3, 4, 24, 24])
    # round-to-nearest cells would have put 0.6·du with 1.1·du (cell 1): 5, not 3


@pytest.mark.parametrize("scheme", ["uniform", "briggs"])
def test_density_cells_of_another_image_size(scheme):
    """``density_npix`` = N counts density on the N² image's uv cells whatever image is made:
    the weights at 2N equal those of the N² image exactly; on 2N's own cells they differ."""
    rng = np.random.default_rng(4)
    u, v = rng.normal(0, 300, 4000), rng.normal(0, 300, 4000)
    w = rng.uniform(0.5, 2.0, 4000)
    spec = ImageSpec(64, 1.0 / (2.5 * 1200))
    wide = ImageSpec(128, spec.cell_rad)
    want = imaging_weights(u, v, w, spec, Weighting(scheme, -0.5))
    got = imaging_weights(u, v, w, wide, Weighting(scheme, -0.5, density_npix=64))
    np.testing.assert_array_equal(got, want)
    own = imaging_weights(u, v, w, wide, Weighting(scheme, -0.5))
    assert np.abs(own - want).max() > 0.1 * np.abs(want).max()
    with pytest.raises(ValueError, match="density_npix"):
        Weighting(scheme, density_npix=7)


@pytest.mark.parametrize(
    ("scheme", "robust"), [("uniform", 0.0), ("briggs", -1.0), ("briggs", 0.5)]
)
def test_density_scale_counts_cells_of_scaled_uv(scheme, robust):
    """``density_scale`` s counts each sample in the cell of s·(u, v) (tclean's LSRK cells:
    s = ν_LSRK/ν_TOPO), both halves, and keeps its own data weight and f² normalisation.

    Pinned from CASA: s = 1 + 6.7e-5 on a VLA-C track moved uniform and Briggs −1/0 PSFs
    from 2.8e-3, 2.8e-3 and 1.6e-3 of the peak from tclean's to ≤ 3.9e-4 at every pixel
    (tests/app/commands/test_weighting_vs_tclean.py, marked ``casa``).
    """
    rng = np.random.default_rng(29)
    spec = ImageSpec(32, 10 * ARCSEC)
    du = 1.0 / (spec.npix * spec.cell_rad)
    u, v = rng.normal(0, 5 * du, (2, 400))
    w = rng.uniform(0.5, 2.0, 400)
    s = 1.0 + 1.7e-2  # large enough to move many samples across a boundary
    dens = plain_density(s * u, s * v, w, spec)
    if scheme == "uniform":
        want = w / dens
    else:
        want = w / (1 + (5 * 10 ** (-robust)) ** 2 / (np.sum(dens * w) / np.sum(w)) * dens)
    got = imaging_weights(u, v, w, spec, Weighting(scheme, robust, density_scale=s))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    plain = imaging_weights(u, v, w, spec, Weighting(scheme, robust))
    assert np.abs(plain - want).max() > 0.1 * np.abs(want).max()  # the cells did change


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), 1.5])
def test_bad_density_scale_rejected(bad):
    with pytest.raises(ValueError, match="density_scale"):
        Weighting("uniform", density_scale=bad)


@pytest.mark.parametrize(
    ("scheme", "robust", "padding"),
    [("uniform", 0.0, 1.2), ("briggs", -1.0, 1.2), ("briggs", 0.5, 1.2), ("uniform", 0.0, 1.37)],
)
def test_wsclean_cells_equal_wscleans_half_plane_count(scheme, robust, padding):
    """``density_cells="wsclean"``: WSClean's count (v ≥ 0 half of its padded image's grid,
    mirrored samples, its Briggs normalisation; tests/support/wsclean_weights.py) exactly,
    at N and in the 2N CLEAN PSF's weighting (``density_npix`` = N); CASA's cells differ."""
    rng = np.random.default_rng(31)
    spec = ImageSpec(32, 10 * ARCSEC)
    du = 1.0 / (spec.npix * spec.cell_rad)
    u, v = rng.normal(0, 4 * du, (2, 3000))  # within the band |u|, |v| < 16·du
    w = rng.uniform(0.5, 2.0, 3000)
    want = wsclean_weights(u, v, w, spec.npix, spec.cell_rad, padding, scheme, robust)
    wt = Weighting(scheme, robust, density_cells="wsclean", density_padding=padding)
    np.testing.assert_allclose(imaging_weights(u, v, w, spec, wt), want, rtol=1e-12)
    wide = ImageSpec(64, spec.cell_rad)  # the CLEAN PSF: the N² image's WSClean cells
    got = imaging_weights(u, v, w, wide, Weighting(**{**vars(wt), "density_npix": 32}))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    casa = imaging_weights(u, v, w, spec, Weighting(scheme, robust))
    assert np.abs(casa - want).max() > 0.1 * np.abs(want).max()


@pytest.mark.parametrize("npix", [2, 32, 64, 128, 200, 256, 4096])
@pytest.mark.parametrize("padding", [1.0, 1.1, 1.2, 1.5, 2.0])
def test_wsclean_weight_npix_is_its_padded_side(npix, padding):
    """WSClean's rounding, doubles included (200 · 1.1 = 220.00000000000003 → 224)."""
    assert wsclean_weight_npix(npix, padding) == wsclean_grid_side(npix, padding)
    assert wsclean_weight_npix(npix, padding) % 4 == 0
    assert npix * padding <= wsclean_weight_npix(npix, padding) < npix * padding + 5


@pytest.mark.parametrize(
    ("field", "bad"), [("density_cells", "aips"), ("density_padding", 0.9),
                       ("density_padding", float("nan")), ("density_padding", 5.0)],
)  # fmt: skip
def test_bad_density_cells_rejected(field, bad):
    with pytest.raises(ValueError, match=field.replace("_", " ")):
        Weighting("uniform", **{field: bad})


def test_density_scale_on_the_gpu_matches_numpy(xp, samples):
    """The scaled and WSClean cells (``density_spec``) are the same on CuPy as on NumPy."""
    spec, u, v, w = samples
    for wt in (
        Weighting("uniform", density_scale=1.017),
        Weighting("briggs", -1.0, 0.0, 0, 0.99),
        Weighting("uniform", density_cells="wsclean"),
    ):
        got = imaging_weights(xp.asarray(u), xp.asarray(v), xp.asarray(w), spec, wt)
        got = got.get() if hasattr(got, "get") else got
        np.testing.assert_allclose(got, imaging_weights(u, v, w, spec, wt), rtol=1e-12)
        assert (
            np.abs(got - imaging_weights(u, v, w, spec, Weighting(wt.scheme, wt.robust))).max() > 0
        )


def test_density_counts_of_no_samples_are_float_zeros_that_add_in_place():
    """A chunk with no usable sample counts nothing, as float64: the cluster adds the
    chunks' counts into one array in place (NumPy's bincount of nothing is int64)."""
    from uvlab.gpu.imaging.weighting import density_counts

    spec = ImageSpec(8, 10 * ARCSEC)
    empty = density_counts(np.zeros(0), np.zeros(0), np.zeros(0), spec)
    some = density_counts(np.array([100.0]), np.array([-50.0]), np.array([2.0]), spec)
    assert empty.dtype == np.float64 and empty.shape == some.shape and not empty.any()
    empty += some
    assert empty.sum() == 2.0


def test_density_counts_add_into_earlier_counts_in_place():
    """Parts' counts added into one array (``into``) equal the counts of all the samples."""
    from uvlab.gpu.imaging.weighting import density_counts

    spec = ImageSpec(16, 10 * ARCSEC)
    rng = np.random.default_rng(5)
    u, v, w = rng.uniform(-600, 600, 200), rng.uniform(-600, 600, 200), rng.uniform(0, 2, 200)
    whole = density_counts(u, v, w, spec)
    acc = density_counts(u[:70], v[:70], w[:70], spec)
    got = density_counts(u[70:], v[70:], w[70:], spec, into=acc)
    assert got is acc and np.allclose(got, whole, rtol=1e-15, atol=0) and whole.sum() > 0
    with pytest.raises(ValueError, match="another density grid"):
        density_counts(u, v, w, ImageSpec(8, 10 * ARCSEC), into=acc)
