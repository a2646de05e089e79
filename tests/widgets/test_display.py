"""Display helpers: stretches and sexagesimal text, against numpy and astropy."""

from __future__ import annotations

import numpy as np
import pytest
from astropy import units as u
from astropy.coordinates import Angle

from uvlab.widgets._display import apply_stretch, auto_levels, format_dms, format_hms


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
