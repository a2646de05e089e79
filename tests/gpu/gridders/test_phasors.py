"""Phase factors by recurrence along an evenly spaced axis (gpu/gridders/phasors.py).

Oracle: ``np.exp`` of every factor (the direct exponentials the recurrence replaces), to
1e-12 (each factor has modulus 1, so absolute is relative) for phases up to ~250 cycles,
and in general within a few roundings of the largest phase, ``8·ε·2π·max|x·a|``: ``np.exp``
itself is no closer than ``ε·2π·|x·a|`` to the true factor.
"""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.gpu.gridders.phasors import axis_phasors, evenly_spaced
from uvlab.gpu.image_spec import ARCSEC, ImageSpec


def direct(x, axis, sign):
    return np.exp(sign * 2j * np.pi * np.outer(axis, x))


@pytest.mark.parametrize(
    ("npix", "cell_arcsec", "step"), [(512, 2.0, 16), (512, 2.0, 1), (258, 30.0, 3), (64, 90.0, 5)]
)
@pytest.mark.parametrize("sign", [-1, 1])
def test_the_recurrence_is_the_direct_exponential_to_1e_12(rng, npix, cell_arcsec, step, sign):
    spec = ImageSpec(npix, cell_arcsec * ARCSEC)
    # |x·l| up to 250 cycles at the field's edge (|u| ≤ 1e5 λ on 2″ cells, 512²)
    x = rng.uniform(-1e5, 1e5, 300) * (2.0 / cell_arcsec) * (512 / npix)
    for axis in (spec.l_axis()[::step], spec.m_axis()[::step]):
        got = axis_phasors(x, axis, sign)
        assert got.shape == (axis.size, x.size) and got.flags.c_contiguous
        assert np.abs(got - direct(x, axis, sign)).max() <= 1e-12
        wide = 8 * x  # 2000 cycles: within a few roundings of the phase
        err = np.abs(axis_phasors(wide, axis, sign) - direct(wide, axis, sign))
        phase = 2 * np.pi * np.abs(np.outer(axis, wide)).max()
        assert err.max() <= 8 * np.finfo(float).eps * phase


def test_an_uneven_axis_takes_the_direct_exponentials(rng):
    axis = np.array([0.0, 1e-4, 3e-4, 3.5e-4])
    x = rng.uniform(-1e4, 1e4, 50)
    assert not evenly_spaced(axis) and evenly_spaced(axis[:2])
    np.testing.assert_array_equal(axis_phasors(x, axis, -1), direct(x, axis, -1))
    np.testing.assert_array_equal(axis_phasors(x, axis[:1], 1), direct(x, axis[:1], 1))
    assert axis_phasors(x, axis[:0]).shape == (0, 50)


def test_anchor_one_is_every_factor_direct(rng):
    axis = ImageSpec(40, 10 * ARCSEC).l_axis()
    x = rng.uniform(-1e4, 1e4, 30)
    np.testing.assert_array_equal(axis_phasors(x, axis, -1, anchor=1), direct(x, axis, -1))


@pytest.mark.gpu
def test_gpu_factors_equal_the_cpu_ones(rng):
    import cupy

    axis = ImageSpec(128, 20 * ARCSEC).m_axis()[::4]
    x = rng.uniform(-3e4, 3e4, 500)
    got = axis_phasors(cupy.asarray(x), axis, -1)
    assert isinstance(got, cupy.ndarray)
    assert np.abs(got.get() - direct(x, axis, -1)).max() <= 1e-12
