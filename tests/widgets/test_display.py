"""Display helpers: stretches and sexagesimal text, against numpy and astropy."""

from __future__ import annotations

import numpy as np
import pytest
from astropy import units as u
from astropy.coordinates import Angle

from uvlab.widgets._display import (
    ASINH_SOFTENING,
    abs_peak,
    apply_stretch,
    auto_levels,
    data_ticks,
    finite_range,
    finite_values,
    format_dms,
    format_hms,
    make_stretch,
)


def test_asinh_keeps_sign_and_order(rng):
    img = rng.normal(size=(16, 16))
    shown = apply_stretch(img, "asinh")
    np.testing.assert_array_equal(np.sign(shown), np.sign(img))
    order = np.argsort(img.ravel())
    assert np.all(np.diff(shown.ravel()[order]) >= 0)


def test_nan_stays_nan_and_levels_ignore_it():
    img = np.array([[np.nan, -1.0], [0.0, 4.0]])
    for name in ("linear", "log", "asinh"):
        shown = apply_stretch(img, name)
        assert (
            np.isnan(shown[0, 0]) and np.isfinite(shown[1:, :]).all() and np.isfinite(shown[0, 1])
        )
    assert auto_levels(apply_stretch(img, "linear")) == (-1.0, 4.0)
    assert auto_levels(apply_stretch(img, "linear"), symmetric=True) == (-4.0, 4.0)
    with pytest.raises(ValueError):
        apply_stretch(img, "sqrt")


def test_asinh_formula_and_softening(rng):
    img = rng.normal(size=(32, 32))
    img[3, 4] = -9.0  # the peak |value| sets the softening, whatever its sign
    s = ASINH_SOFTENING * 9.0
    np.testing.assert_allclose(apply_stretch(img, "asinh"), np.arcsinh(img / s), rtol=1e-6)
    assert make_stretch(img, "asinh").scale == pytest.approx(s)
    assert make_stretch(img, "asinh").label("Jy/beam") == "Jy/beam (asinh stretch)"


@pytest.mark.parametrize("bad", [None, np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_finite_range_and_peak_match_the_masked_reductions(rng, bad, sign):
    img = sign * np.abs(rng.normal(size=(64, 64)))  # all one sign: the peak is max or -min
    if bad is not None:
        img[3, :5] = bad
    finite = img[np.isfinite(img)]
    assert finite_range(img) == (finite.min(), finite.max())
    assert abs_peak(finite_range(img)) == np.max(np.abs(finite))  # exactly: the same float
    np.testing.assert_array_equal(np.sort(finite_values(img)), np.sort(finite))
    assert finite_range(np.full((4, 4), np.nan)) is None and abs_peak(None) == 0.0


def test_auto_levels_low_percentile_to_peak(rng):
    x = rng.normal(size=20_000)
    x[17] = -100.0  # one wild negative pixel must not set the bottom of the scale
    x[99] = 50.0
    lo, hi = auto_levels(x.reshape(100, 200))
    k = int(np.floor(0.005 * (x.size - 1)))  # numpy's "lower" percentile: a data value
    assert lo == np.sort(x)[k] and lo > -4.0
    assert hi == 50.0


def test_data_ticks_sit_where_the_stretch_puts_their_values():
    stretch = make_stretch(np.array([-0.01, 1.0]), "asinh")
    span = float(stretch(1.0) - stretch(-0.01))
    ticks = data_ticks(stretch, -0.01, 1.0, span)
    values = [float(text) for _, text in ticks]
    assert 0.0 in values and 1.0 in values and len(values) >= 6  # decades below the peak
    for pos, text in ticks:
        assert pos == pytest.approx(np.arcsinh(float(text) / (ASINH_SOFTENING * 1.0)), rel=1e-6)
        assert -0.01 <= float(text) <= 1.0
    gaps = np.diff([pos for pos, _ in ticks])
    assert (gaps >= 0.08 * span - 1e-9).all()


@pytest.mark.parametrize(
    "deg", [0.0, 201.365, 359.99999999, 15.0 * (59 / 60 + 59.999 / 3600), 123.456789]
)
def test_hms_matches_astropy(deg):
    expected = (
        Angle(deg, u.deg).wrap_at(360 * u.deg).to_string(u.hour, sep="hms", precision=2, pad=True)
    )
    if expected.startswith("24h"):  # astropy does not wrap a rounded-up 24h
        expected = "00" + expected[2:]
    assert format_hms(np.radians(deg)) == expected


@pytest.mark.parametrize("deg", [-43.019, -0.00001, 0.0, 89.99999999, -30.5, 12.3456])
def test_dms_matches_astropy(deg):
    expected = Angle(deg, u.deg).to_string(u.deg, sep="dms", precision=1, pad=True, alwayssign=True)
    assert format_dms(np.radians(deg)) == expected
