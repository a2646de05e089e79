"""The client's 2-D real FFTs with one array (gpu/deconvolution/lean_fft.py).

Oracle: NumPy's own ``rfft2``/``irfft2``, bit for bit, and the peak of NumPy's
allocations (tracemalloc) one (2N)²-sized array lower than theirs.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from uvlab.gpu.deconvolution import lean_fft

M = 512


def peak_of(fn):
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        out = fn()
        return out, tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def test_the_same_bits_with_one_array_fewer(rng):
    if not lean_fft._OUT:
        pytest.skip("NumPy < 2 has no out= for its FFTs: the plain calls run")
    a = rng.normal(size=(M, M))
    want, plain = peak_of(lambda: np.fft.rfft2(a))
    got, lean = peak_of(lambda: lean_fft.rfft2(a))
    assert np.array_equal(got, want)
    one = want.nbytes
    assert lean <= plain - 0.9 * one, (lean / one, plain / one)

    ft = want * np.fft.rfft2(rng.normal(size=(M, M)))
    back_want, plain = peak_of(lambda: np.fft.irfft2(ft, s=(M, M)))
    spent = ft.copy()
    back, lean = peak_of(lambda: lean_fft.irfft2_spent(spent, (M, M)))
    assert np.array_equal(back, back_want)
    assert lean <= plain - 0.9 * one, (lean / one, plain / one)
