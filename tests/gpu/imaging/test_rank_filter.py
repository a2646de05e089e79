"""WSClean's ``-super-weight`` and ``-weighting-rank-filter`` against a cell-by-cell oracle.

The oracle (tests/support/wsclean_weights.py) counts and filters WSClean's v ≥ 0 half grid
in loops, as ``ImageWeights`` does; uvlab filters its two-halves grid with summed-area
tables (:mod:`uvlab.gpu.imaging.rank_filter`).
"""

import numpy as np
import pytest

from tests.support.wsclean_weights import super_weight_side, wsclean_weights
from uvlab.gpu.image_spec import ARCSEC, ImageSpec
from uvlab.gpu.imaging.parts import density_totals
from uvlab.gpu.imaging.weighting import (
    Weighting,
    density_counts,
    imaging_weights,
    super_weight_npix,
)

SPEC = ImageSpec(32, 10 * ARCSEC)
#: The window sums are differences of summed-area tables, WSClean's a loop's: the clipped
#: weights agree to rounding (measured: 7e-11 relative at worst, Briggs −2, whose empty
#: cells' weights of 1 dwarf the filled ones').
RTOL = 1e-9


@pytest.fixture(scope="module")
def samples():
    """A dense core and sparse outskirts, all within the band: cells the filter clips."""
    rng = np.random.default_rng(7)
    du = 1.0 / (SPEC.npix * SPEC.cell_rad)
    u, v = np.concatenate([rng.normal(0, 2 * du, (2, 2500)), rng.uniform(-15, 15, (2, 60)) * du], 1)
    w = rng.uniform(0.5, 2.0, u.size)
    return u, v, w


CASES = [  # scheme, robust, cells, super weight, rank level, rank size
    ("uniform", 0.0, "wsclean", 1.0, 3.0, 16),
    ("uniform", 0.0, "wsclean", 2.0, 3.0, 16),
    ("briggs", -0.5, "wsclean", 2.0, 3.0, 16),  # Briggs ≤ 1, empty cells 1: nothing clipped
    ("briggs", -2.0, "wsclean", 1.0, 1.5, 5),
    ("uniform", 0.0, "wsclean", 1.7, 1.0, 2),
    ("uniform", 0.0, "casa", 2.0, 2.0, 7),
    ("uniform", 0.0, "wsclean", 3.0, 0.0, 16),
]
#: The cases whose filter clips these samples' weights (by 0.24 to 0.73 of the peak).
CLIPS = {0, 1, 3, 4, 5}


def _weighting(scheme, robust, cells, sw, level, size):
    return Weighting(scheme, robust, density_cells=cells, super_weight=sw, rank_filter=level,
                     rank_filter_size=size)  # fmt: skip


@pytest.mark.parametrize(("k", "case"), list(enumerate(CASES)))
def test_weights_equal_wscleans_loop(samples, k, case):
    """Every sample's weight equals the oracle's, one process (and the CLEAN PSF's 2N
    weighting, ``density_npix`` = N) and in parts (the filter on the summed counts); the
    filter did clip (the unfiltered weights differ). CASA's cells take the super weight and
    the filter too, on the N² image's grid."""
    u, v, w = samples
    scheme, robust, cells, sw, level, size = case
    padding = 1.2 if cells == "wsclean" else 1.0  # CASA's cells: WSClean's rule at M = N
    want = wsclean_weights(u, v, w, SPEC.npix, SPEC.cell_rad, padding, scheme, robust, sw, level,
                           size)  # fmt: skip
    wt = _weighting(*case)
    np.testing.assert_allclose(imaging_weights(u, v, w, SPEC, wt), want, rtol=RTOL)
    wide = ImageSpec(2 * SPEC.npix, SPEC.cell_rad)
    got = imaging_weights(u, v, w, wide, Weighting(**{**vars(wt), "density_npix": SPEC.npix}))
    np.testing.assert_allclose(got, want, rtol=RTOL)
    dspec = wt.density_spec(SPEC)
    halves = [slice(0, 1000), slice(1000, None)]
    counts = sum(density_counts(u[h], v[h], w[h], dspec) for h in halves)
    totals = density_totals(counts, wt)
    assert (totals.grid is None) == (totals.factors is not None) == (level > 0)
    parts = np.concatenate([
        imaging_weights(u[h], v[h], w[h], SPEC, wt, mean_density=totals.mean,
                        factor=totals.looked_up(u[h], v[h], dspec))
        if level else
        imaging_weights(u[h], v[h], w[h], SPEC, wt, mean_density=totals.mean,
                        density=totals.looked_up(u[h], v[h], dspec))
        for h in halves
    ])  # fmt: skip
    np.testing.assert_allclose(parts, want, rtol=RTOL)
    if k in CLIPS:
        unfiltered = wsclean_weights(u, v, w, SPEC.npix, SPEC.cell_rad, padding, scheme, robust, sw)
        assert np.abs(unfiltered - want).max() > 0.05 * want.max()


def test_rank_filter_on_the_gpu_matches_numpy(xp, samples):
    u, v, w = samples
    for case in CASES[:3]:
        wt = _weighting(*case)
        got = imaging_weights(xp.asarray(u), xp.asarray(v), xp.asarray(w), SPEC, wt)
        got = got.get() if hasattr(got, "get") else got
        np.testing.assert_allclose(got, imaging_weights(u, v, w, SPEC, wt), rtol=RTOL)


@pytest.mark.parametrize("npix", [2, 4, 38, 64, 76, 156, 4916])
@pytest.mark.parametrize("sw", [1.0, 1.5, 2.0, 2.5, 3.0, 7.3, 1000.0])
def test_super_weight_npix_is_wscleans(npix, sw):
    """round(M/F) half away from zero, made even; at least 2."""
    assert super_weight_npix(npix, sw) == max(2, super_weight_side(npix, sw))


def test_a_part_without_the_filtered_totals_is_refused(samples):
    u, v, w = samples
    wt = _weighting(*CASES[0])
    totals = density_totals(density_counts(u, v, w, wt.density_spec(SPEC)))
    density = totals.looked_up(u, v, wt.density_spec(SPEC))
    with pytest.raises(ValueError, match="rank filter"):
        imaging_weights(u, v, w, SPEC, wt, density=density)


@pytest.mark.parametrize(
    ("field", "bad"),
    [("super_weight", 0.5), ("super_weight", float("inf")), ("super_weight", float("nan")),
     ("rank_filter", 0.5), ("rank_filter", -1.0), ("rank_filter", float("nan")),
     ("rank_filter_size", 1), ("rank_filter_size", 2.0), ("rank_filter_size", True)],
)  # fmt: skip
def test_bad_super_weight_and_rank_filter_rejected(field, bad):
    with pytest.raises(ValueError, match=field.replace("_", " ")):
        Weighting("uniform", **{field: bad})
