"""Random antenna gains (uvlab.gpu.predict.gains): their statistics and reproducibility.

Oracles: the requested RMS of the amplitude and phase errors (within 5 % over 10⁵
samples), the Ornstein–Uhlenbeck autocorrelation exp(−Δt/τ) at lags τ/10 and τ, and
independence when τ = 0.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from uvlab.gpu.predict.gains import random_gains


def lag_corr(x, lag):
    """Autocorrelation of (time, n) series at ``lag`` samples, pooled over n."""
    x = x - x.mean(axis=0)
    return float(np.sum(x[lag:] * x[:-lag]) / np.sum(x * x) * len(x) / (len(x) - lag))


def test_rms_and_correlation_time():
    tau = 600.0
    times = np.arange(2000) * (tau / 10)
    g = random_gains(times, 100, 2, amp_rms=0.1, phase_rms_rad=math.radians(20.0),
                     corr_time_s=tau, seed=11)  # fmt: skip
    assert g.shape == (2000, 100, 2)
    np.testing.assert_array_equal(g[:, :, 0], g[:, :, 1])  # flat bandpass
    amp = np.abs(g[:, :, 0]) - 1.0
    phase = np.angle(g[:, :, 0])
    assert np.sqrt(np.mean(amp**2)) == pytest.approx(0.1, rel=0.05)
    assert np.degrees(np.sqrt(np.mean(phase**2))) == pytest.approx(20.0, rel=0.05)
    assert lag_corr(amp, 1) == pytest.approx(math.exp(-0.1), abs=0.03)
    assert lag_corr(phase, 10) == pytest.approx(math.exp(-1.0), abs=0.05)


def test_white_when_tau_is_zero_and_constant_when_infinite():
    times = np.arange(3000) * 10.0
    white = random_gains(times, 20, 1, amp_rms=0.2, corr_time_s=0.0, seed=1)
    assert abs(lag_corr(np.abs(white[:, :, 0]) - 1, 1)) < 0.03
    const = random_gains(times, 20, 1, amp_rms=0.2, phase_rms_rad=0.1,
                         corr_time_s=math.inf, seed=1)  # fmt: skip
    np.testing.assert_allclose(const, np.broadcast_to(const[:1], const.shape), rtol=1e-14)
    assert np.std(np.abs(const[0, :, 0])) > 0.05  # but different per antenna


def test_seeded_and_feeds():
    t = np.arange(10) * 8.0
    a = random_gains(t, 4, 3, amp_rms=0.1, phase_rms_rad=0.2, seed=5, feeds=2)
    b = random_gains(t, 4, 3, amp_rms=0.1, phase_rms_rad=0.2, seed=5, feeds=2)
    c = random_gains(t, 4, 3, amp_rms=0.1, phase_rms_rad=0.2, seed=6, feeds=2)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
    assert a.shape == (10, 4, 3, 2, 2)
    np.testing.assert_array_equal(a[..., 0, 1], 0)
    np.testing.assert_array_equal(a[..., 1, 0], 0)
    assert not np.allclose(a[..., 0, 0], a[..., 1, 1])  # independent feeds
    np.testing.assert_array_equal(random_gains(t, 4, 3, seed=1), 1.0)  # no errors asked
    with pytest.raises(ValueError, match="≥ 0"):
        random_gains(t, 4, 3, amp_rms=-0.1)
