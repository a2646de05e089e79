"""Pruners (Muscat alg. 2.7, eq. 7.1) and the Hermitian half-plane fold and FFT."""

import numpy as np
import pytest

from uvlab.gpu.gridders.correction import pixel_offsets
from uvlab.gpu.gridders.half_image import fold_half, half_to_image
from uvlab.gpu.gridders.pruning import Pruner, flip_rows, make_pruner


def dense_prune(grid, taps, alpha):
    """``out[c] = Σ_d taps[d]·grid[(c·α + d) mod M_f]`` by plain loops (axis 0)."""
    mf = grid.shape[0]
    half = (len(taps) - 1) // 2
    out = np.zeros((mf // alpha, *grid.shape[1:]), dtype=complex)
    for c in range(mf // alpha):
        for k, d in enumerate(range(-half, half + 1)):
            out[c] += taps[k] * grid[(c * alpha + d) % mf]
    return out


@pytest.mark.parametrize(("alpha", "ntaps"), [(4, 25), (3, 19), (8, 113)])
def test_pruner_matches_dense_loop(rng, alpha, ntaps):
    taps = rng.normal(size=ntaps)
    grid = rng.normal(size=(alpha * 24, 5)) + 1j * rng.normal(size=(alpha * 24, 5))
    p = Pruner(taps, alpha)
    np.testing.assert_allclose(p.apply(grid, axis=0), dense_prune(grid, taps, alpha), atol=1e-12)
    np.testing.assert_allclose(
        p.apply(grid.T, axis=1), dense_prune(grid, taps, alpha).T, atol=1e-12
    )


def hermitian(full):
    """``(F(k) + conj F(−k))/2`` of a periodic 2-D grid."""
    mirrored = flip_rows(np.conj(flip_rows(full.T).T))
    return 0.5 * (full + mirrored)


def test_half_axis_pruning_equals_full_axis_pruning(rng):
    alpha, mv, mf = 4, 12, 64
    taps = make_pruner("lm", 8, alpha).taps
    full = hermitian(rng.normal(size=(mv, mf)) + 1j * rng.normal(size=(mv, mf)))
    pruned_full = Pruner(taps, alpha).apply(full, axis=1)
    got = Pruner(taps, alpha).apply_half(full[:, : mf // 2 + 1], mf)
    np.testing.assert_allclose(got, pruned_full[:, : mf // alpha // 2 + 1], atol=1e-12)


def test_fold_and_c2r_equal_full_complex_fft(rng):
    """Extra u columns folded into the Hermitian half give Re of the full-plane IFFT."""
    mv, mu, pad, npix = 10, 16, 3, 8
    ext = rng.normal(size=(mv, mu // 2 + 1 + 2 * pad)) + 1j * rng.normal(size=(mv, mu // 2 + 7))
    full = np.zeros((mv, mu), dtype=complex)
    for c in range(ext.shape[1]):
        full[:, (c - pad) % mu] += ext[:, c]
    n = pixel_offsets(npix)
    want = (np.fft.ifft2(full) * mu * mv).real[np.ix_(n % mv, n % mu)]
    got = half_to_image(fold_half(ext, mu, pad), mu, npix)
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_in_place_c2r_gives_the_same_image_without_a_rows_array(rng):
    """``inplace``: the v-transformed rows kept in the grid's first N rows (the grid spent),
    the same image bit for bit, and the peak of NumPy's allocations lower by at least the
    (N, Mu/2 + 1) complex array the copy holds; a block of columns at a time
    (``BLOCK_CELLS``), as at 2880²'s 2N PSF."""
    import tracemalloc

    from uvlab.gpu.blocks import BLOCK_CELLS

    mv, mu, pad, npix = 2048, 2048, 3, 1024
    assert mv * (mu // 2 + 1) > 2 * BLOCK_CELLS  # several blocks of columns
    ext = rng.normal(size=(mv, mu // 2 + 1 + 2 * pad)) + 0j
    half = fold_half(ext, mu, pad)
    want = half_to_image(half.copy(), mu, npix)
    peaks = []
    for inplace in (False, True):
        work = half.copy()
        tracemalloc.start()
        try:
            got = half_to_image(work, mu, npix, inplace=inplace)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        assert np.array_equal(got, want)
    rows_bytes = 16 * npix * (mu // 2 + 1)
    assert peaks[1] <= peaks[0] - rows_bytes, [p / 2**20 for p in peaks]


def pruning_error(kernel, support, alpha=4, n=128, rng=None):
    """Muscat §7.7: prune an oversampled grid, compare the central half with the exact IFFT.

    The fine grid's image (α·n pixels) is random everywhere, so the pruner
    must reject everything outside the central n/2 pixels it keeps.
    """
    mf = alpha * n
    img = rng.normal(size=mf) + 1j * rng.normal(size=mf)
    grid = np.fft.fft(img)  # uv grid of an image with content everywhere
    p = make_pruner(kernel, support, alpha)
    coarse = p.apply(grid, axis=0)
    keep = pixel_offsets(n // 2)
    got = np.fft.ifft(coarse)[keep % n] * n / mf
    t = keep / mf
    got = got / p.response(t)
    want = img[keep % mf]
    return np.abs(got - want).max() / np.abs(img).max()


def test_least_misfit_pruner_suppresses_aliasing_far_below_pswf(rng):
    err = {k: pruning_error(*k, rng=rng) for k in [("pswf", 6), ("lm", 8), ("lm", 14)]}
    assert err[("lm", 8)] < err[("pswf", 6)] / 100
    assert err[("lm", 14)] < err[("lm", 8)] / 1000
    assert err[("lm", 14)] < 1e-11
