"""Image sky models (app/skymodel/image_sky.py, image_sky_files.py, demo_pictures.py):
pictures, FITS images, demo pictures.

Oracles: astropy's WCS and SkyCoord for where a FITS pixel lies, scipy.ndimage for
the resampling primitives, Pillow-written pictures with known bright pixels, and
the flux a model says it has.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from uvlab.app.skymodel import SkyModelError
from uvlab.app.skymodel.demo_pictures import DEMO_PICTURES, demo_picture
from uvlab.app.skymodel.image_sky import ARCSEC, _box_average, _sample
from uvlab.app.skymodel.image_sky_files import load_image_sky, read_fits_sky, read_picture
from uvlab.gpu.image_spec import ImageSpec


def write_png(path, pixels):
    from PIL import Image

    Image.fromarray(np.asarray(pixels, dtype=np.uint8)).save(path)
    return path


def test_resampling_primitives_match_scipy(rng):
    from scipy.ndimage import map_coordinates, uniform_filter

    a = rng.random((40, 50))
    for k in (2, 3, 4, 7):
        ref = uniform_filter(a, size=k, mode="constant")
        np.testing.assert_allclose(_box_average(a, k), ref, atol=1e-13)
    y, x = rng.uniform(-2, 42, 500), rng.uniform(-2, 52, 500)
    ref = map_coordinates(a, [y, x], order=1, mode="grid-constant", cval=0.0)
    np.testing.assert_allclose(_sample(a, y, x), ref, atol=1e-13)


def test_a_picture_is_north_up_east_left_and_keeps_its_flux(tmp_path):
    pix = np.zeros((40, 60))
    pix[5, 10] = 255  # top-left of the picture: north-east of its centre
    sky = read_picture(write_png(tmp_path / "p.png", pix), width_arcmin=1.0, flux_jy=2.5)
    assert sky.total_jy == pytest.approx(2.5) and sky.relative
    assert sky.pixel_rad == pytest.approx(60 * ARCSEC / 60)  # 1′ over 60 columns
    spec = ImageSpec(128, 0.5 * ARCSEC)  # finer than the picture: interpolated
    model, total = sky.on_grid(spec, 150.0, 30.0)
    assert total == pytest.approx(2.5, rel=1e-9)  # bilinear with area scaling keeps the flux
    j, i = np.unravel_index(np.argmax(model), model.shape)
    l, m = spec.l_axis()[i], spec.m_axis()[j]
    # column 10 of 60 is 19.5 pixels east of the centre, row 5 of 40 14.5 pixels north
    assert l / sky.pixel_rad == pytest.approx(19.5, abs=0.6) and l > 0
    assert m / sky.pixel_rad == pytest.approx(14.5, abs=0.6) and m > 0


@pytest.mark.parametrize("cell_arcsec", [0.3, 1.0, 2.5, 6.0])
def test_a_demo_picture_keeps_its_flux_on_finer_and_coarser_grids(cell_arcsec):
    sky = demo_picture("radio-galaxy", width_arcmin=4.0, flux_jy=3.0)
    spec = ImageSpec(2 * math.ceil(300 / cell_arcsec), cell_arcsec * ARCSEC)  # covers 5′
    _, total = sky.on_grid(spec, 10.0, -40.0)
    assert total == pytest.approx(3.0, rel=0.02)


def test_every_demo_picture_is_drawn_with_its_flux():
    for name in DEMO_PICTURES:
        sky = demo_picture(name, flux_jy=1.5, npix=64)
        assert sky.image.shape == (64, 64) and sky.total_jy == pytest.approx(1.5)
        assert (sky.image >= 0).all()
    assert load_image_sky("picture:ring").name == "ring"


def fits_with_one_bright_pixel(path, ra0, dec0, cell_deg, x, y, flux, **header):
    from astropy.io import fits

    data = np.zeros((64, 64))
    data[y, x] = flux
    h = fits.Header()
    h["CTYPE1"], h["CRVAL1"], h["CRPIX1"], h["CDELT1"] = "RA---SIN", ra0, 33.0, -cell_deg
    h["CTYPE2"], h["CRVAL2"], h["CRPIX2"], h["CDELT2"] = "DEC--SIN", dec0, 33.0, cell_deg
    for k, v in header.items():
        h[k] = v
    fits.PrimaryHDU(data, h).writeto(path)
    return path


def test_a_fits_sky_lands_where_its_wcs_says(tmp_path):
    from astropy.wcs import WCS

    cell = 2.0 / 3600.0
    path = fits_with_one_bright_pixel(
        tmp_path / "m.fits", 150.0, 30.0, cell, 40, 20, 0.7, BUNIT="Jy/pixel"
    )
    sky = read_fits_sky(path)
    assert not sky.relative and sky.total_jy == pytest.approx(0.7)
    ra, dec = WCS(str(path)).wcs_pix2world([[40, 20]], 0)[0]
    # the model grid about another phase centre, 1″ cells: the source moves with its RA/Dec
    spec = ImageSpec(256, 1.0 * ARCSEC)
    model, total = sky.on_grid(spec, 150.01, 30.005)
    assert total == pytest.approx(0.7, rel=1e-6)  # pixel areas differ slightly about another centre
    target = WCS(naxis=2)
    target.wcs.ctype = ["RA---SIN", "DEC--SIN"]
    target.wcs.crpix = [129.0, 129.0]
    target.wcs.crval = [150.01, 30.005]
    target.wcs.cdelt = [-1 / 3600.0, 1 / 3600.0]
    xi, yj = target.wcs_world2pix([[ra, dec]], 0)[0]
    # flux-weighted centroid of the resampled pixel, against astropy's position
    jj, ii = np.mgrid[0:256, 0:256]
    assert (ii * model).sum() / total == pytest.approx(xi, abs=0.05)
    assert (jj * model).sum() / total == pytest.approx(yj, abs=0.05)


def test_jy_per_beam_is_converted_with_the_headers_beam(tmp_path):
    cell = 1.0 / 3600.0
    bmaj, bmin = 5.0 / 3600.0, 3.0 / 3600.0
    path = fits_with_one_bright_pixel(
        tmp_path / "b.fits", 10.0, -20.0, cell, 30, 30, 1.0, BUNIT="JY/BEAM", BMAJ=bmaj, BMIN=bmin
    )
    sky = read_fits_sky(path)
    beam_pixels = math.pi * bmaj * bmin / (4 * math.log(2)) / cell**2
    assert sky.total_jy == pytest.approx(1.0 / beam_pixels, rel=1e-6)
    assert any("Jy/beam" in n for n in sky.notes)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.with_suffix(".png").write_text("not a picture"), "not a picture"),
        (lambda p: write_png(p.with_suffix(".png"), np.zeros((8, 8))), "zero everywhere"),
        (
            lambda p: fits_with_one_bright_pixel(
                p.with_suffix(".fits"), 1, 2, 1e-3, 1, 1, 1.0, BUNIT="K"
            ),
            "not a flux density",
        ),
        (lambda p: _fits_without_wcs(p.with_suffix(".fits")), "no celestial WCS"),
    ],
)
def test_bad_image_skies_give_one_line_naming_the_file(tmp_path, make, message):
    make(tmp_path / "bad")
    path = next(tmp_path.iterdir())
    with pytest.raises(SkyModelError, match=message) as err:
        load_image_sky(path, width_arcmin=1.0)
    assert path.name in str(err.value) and "\n" not in str(err.value)


def _fits_without_wcs(path):
    from astropy.io import fits

    fits.PrimaryHDU(np.ones((8, 8))).writeto(path)
    return path


def test_a_picture_needs_its_width(tmp_path):
    path = write_png(tmp_path / "p.png", np.full((4, 4), 9))
    with pytest.raises(SkyModelError, match="angular width"):
        load_image_sky(path)
