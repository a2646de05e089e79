"""FITS beam cubes (uvlab.app.instrument.beam_cube): the format round trip and what is refused."""

from __future__ import annotations

import math

import numpy as np
import pytest
from astropy.io import fits

from uvlab.app.instrument.beam_cube import BeamCubeError, load_beam_cube, write_beam_cube


def test_round_trip_and_sampling_on_nodes(tmp_path):
    rng = np.random.default_rng(0)
    data = rng.random((2, 5, 7))
    lax, max_, fax = (-0.03, 0.01, 7), (-0.02, 0.01, 5), (1.0e9, 2e8, 2)
    write_beam_cube(tmp_path / "b.fits", data, lax, max_, fax)
    cube = load_beam_cube(tmp_path / "b.fits")
    np.testing.assert_array_equal(cube.data, data)
    np.testing.assert_allclose(cube.l_axis[:2], lax[:2], rtol=1e-12)
    np.testing.assert_allclose(cube.m_axis[:2], max_[:2], rtol=1e-12)
    assert cube.freq_axis == pytest.approx(fax)
    # node (ν 1, m 3, l 4): l = −0.03 + 0.04, m = −0.02 + 0.03
    lmn = np.array([[0.01, 0.01, math.sqrt(1 - 2e-4)]])
    assert cube.sample(lmn, [1.2e9])[0, 0, 0, 0] == pytest.approx(data[1, 3, 4], rel=1e-10)


def test_descending_frequency_and_units(tmp_path):
    hdu = fits.PrimaryHDU(np.stack([np.full((3, 3), 1.0), np.full((3, 3), 3.0)]))
    header = {"CTYPE1": "X", "CTYPE2": "Y", "CTYPE3": "FREQ", "CDELT1": 0.01,
              "CDELT2": 0.01, "CDELT3": -100.0, "CRVAL3": 1500.0, "CUNIT1": "rad",
              "CUNIT2": "rad", "CUNIT3": "MHz", "CRPIX1": 2, "CRPIX2": 2, "CRPIX3": 1}  # fmt: skip
    for k, v in header.items():
        hdu.header[k] = v
    hdu.writeto(tmp_path / "d.fits")
    cube = load_beam_cube(tmp_path / "d.fits")
    assert cube.freq_axis == pytest.approx((1.4e9, 1e8, 2))
    assert cube.l_axis == pytest.approx((-0.01, 0.01, 3))
    np.testing.assert_allclose(cube.sample([[0, 0, 1]], [1.45e9]), 2.0)  # halfway, flipped


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ({}, "axes 1 and 2 must be"),
        ({"CTYPE1": "L", "CTYPE2": "M", "CTYPE3": "STOKES"}, "axis 3 must be FREQ"),
        ({"CTYPE1": "L", "CTYPE2": "M", "CTYPE3": "FREQ", "PC1_2": 0.5}, "rotated"),
        ({"CTYPE1": "L", "CTYPE2": "M", "CTYPE3": "FREQ", "CUNIT1": "arcsec"}, "units"),
    ],
)
def test_unusable_wcs_is_one_line_naming_the_file(tmp_path, header, message):
    hdu = fits.PrimaryHDU(np.ones((2, 4, 4)))
    for k, v in header.items():
        hdu.header[k] = v
    hdu.writeto(tmp_path / "bad.fits")
    with pytest.raises(BeamCubeError, match=message) as info:
        load_beam_cube(tmp_path / "bad.fits")
    assert str(tmp_path / "bad.fits") in str(info.value) and "\n" not in str(info.value)


def test_not_fits_and_non_finite(tmp_path):
    (tmp_path / "t.fits").write_text("hello")
    with pytest.raises(BeamCubeError, match="not a readable FITS"):
        load_beam_cube(tmp_path / "t.fits")
    data = np.ones((1, 4, 4))
    data[0, 1, 1] = np.nan
    write_beam_cube(tmp_path / "n.fits", data, (0, 1e-3, 4), (0, 1e-3, 4), (1e9, 1.0, 1))
    with pytest.raises(BeamCubeError, match="non-finite"):
        load_beam_cube(tmp_path / "n.fits")
