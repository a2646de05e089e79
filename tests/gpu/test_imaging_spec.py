"""Image geometry: axes, pixel lookup, default cell."""

import numpy as np
import pytest

from uvlab.gpu.imaging.spec import ARCSEC, ImageSpec, default_cell_rad


def test_axes_follow_design_convention():
    s = ImageSpec(8, 2 * ARCSEC)
    assert s.l_axis()[4] == 0 and s.m_axis()[4] == 0
    assert s.l_axis()[5] < 0 < s.l_axis()[3]  # columns run toward decreasing RA
    assert s.m_axis()[5] > 0
    assert s.pixel_of(s.l_axis()[2], s.m_axis()[7]) == pytest.approx((7, 2))


@pytest.mark.parametrize("uvmax", [1234.5, 3.7e4, 9.9e5])
def test_default_cell_is_at_most_a_third_of_resolution(uvmax):
    cell = default_cell_rad(uvmax)
    assert cell <= 1 / (3 * uvmax)
    assert cell > 0.9 / (3 * uvmax)
    digits = f"{cell / ARCSEC:.6g}".replace(".", "").lstrip("0")
    assert len(digits.rstrip("0")) <= 2


@pytest.mark.parametrize(
    "kw",
    [
        dict(npix=7, cell_rad=1e-5),
        dict(npix=0, cell_rad=1e-5),
        dict(npix=64, cell_rad=-1.0),
        dict(npix=64, cell_rad=np.nan),
        dict(npix=64, cell_rad=1e-5, pad=9),
    ],
)
def test_bad_specs_rejected(kw):
    with pytest.raises(ValueError):
        ImageSpec(**kw)
