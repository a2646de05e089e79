"""Image geometry: axes, pixel lookup, default cell."""

import numpy as np
import pytest

from uvlab.gpu.image_spec import ARCSEC, ImageSpec, cell_for_uvw, default_cell_rad


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
    ],
)
def test_bad_specs_rejected(kw):
    with pytest.raises(ValueError):
        ImageSpec(**kw)


@pytest.mark.parametrize("sigma", [0.5, 9.0])
def test_sigma_lives_in_the_gridder_parameters_only(sigma):
    from uvlab.gpu.gridders.conv import conv_plans
    from uvlab.gpu.gridders.params import GridParams

    with pytest.raises(ValueError, match="padding σ"):
        GridParams(sigma=sigma)
    with pytest.raises(TypeError):
        ImageSpec(64, 1e-5, 2.0)  # no padding argument any more
    spec = ImageSpec(64, 1e-5)
    for s in (1.0, 1.5, 2.0):
        plan_u, _ = conv_plans(spec, GridParams(sigma=s))
        assert plan_u.n_grid >= s * 64


def test_cell_for_uvw_uses_the_longest_projected_baseline():
    uvw = np.array([[300.0, 400.0, 9e3], [-100.0, 0.0, 0.0]])  # |uv| max 500 m (w ignored)
    freq = np.array([1.0e9, 1.5e9])
    u_max = 500.0 * 1.5e9 / 299792458.0
    assert cell_for_uvw(uvw, freq) == default_cell_rad(u_max)
    assert cell_for_uvw(uvw, freq, cell_arcsec=2.5) == pytest.approx(2.5 * ARCSEC)
    with pytest.raises(ValueError, match="no baselines"):
        cell_for_uvw(np.zeros((0, 3)), freq)


@pytest.mark.parametrize("k", [1, 2, 4, 8])
def test_every_kth_pixel_is_a_grid_of_its_own_at_the_same_directions(k):
    spec = ImageSpec(64, 3 * ARCSEC)
    coarse = spec.every(k)
    assert coarse.npix * coarse.cell_rad == pytest.approx(spec.npix * spec.cell_rad)
    np.testing.assert_allclose(coarse.l_axis(), spec.l_axis()[::k], rtol=0, atol=1e-20)
    np.testing.assert_allclose(coarse.m_axis(), spec.m_axis()[::k], rtol=0, atol=1e-20)


@pytest.mark.parametrize("k", [0, 3, 64])
def test_every_needs_a_step_dividing_half_the_side(k):
    with pytest.raises(ValueError, match="must divide N/2 = 32"):
        ImageSpec(64, ARCSEC).every(k)
