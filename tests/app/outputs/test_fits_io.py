"""FITS output: the file's own WCS maps engine pixels back to the sky (DESIGN §1)."""

import warnings

import numpy as np
import pytest
from astropy.coordinates import SkyCoord
from astropy.io import fits
from astropy.wcs import WCS

from uvlab.app.outputs.fits_io import read_image_fits, write_image_fits
from uvlab.gpu.geometry import lmn_to_radec, radec_to_lmn
from uvlab.gpu.image_spec import ARCSEC, ImageSpec


@pytest.mark.parametrize("dec0", [-60.0, -30.0, 0.0, 45.0, 85.0])
def test_wcs_maps_engine_pixels_to_sky(tmp_path, rng, dec0):
    ra0 = 201.365
    spec = ImageSpec(128, 3.0 * ARCSEC)
    path = write_image_fits(
        tmp_path / "x.fits",
        np.zeros((128, 128)),
        spec,
        ra0,
        dec0,
        freq_hz=1.4e9,
        history={"algorithm": "conv"},
    )
    wcs = WCS(fits.getheader(path)).celestial
    for _ in range(10):
        j, i = rng.uniform(5, 123, 2)
        l = -(i - 64) * spec.cell_rad
        m = (j - 64) * spec.cell_rad
        ra, dec = lmn_to_radec(l, m, np.radians(ra0), np.radians(dec0))
        x, y = wcs.world_to_pixel(
            SkyCoord(np.degrees(ra), np.degrees(dec), unit="deg", frame="fk5")
        )
        assert x == pytest.approx(i, abs=1e-6)
        assert y == pytest.approx(j, abs=1e-6)
        # and the engine's own inverse agrees
        lmn = radec_to_lmn(ra, dec, np.radians(ra0), np.radians(dec0))
        assert spec.pixel_of(lmn[0], lmn[1]) == pytest.approx((j, i), abs=1e-9)


def test_header_and_roundtrip(tmp_path, rng):
    spec = ImageSpec(32, 1.5 * ARCSEC)
    img = rng.normal(size=(32, 32))
    path = write_image_fits(
        tmp_path / "d.fits", img, spec, 10.0, -30.0, freq_hz=1.2e9, stokes="Q", history={"npix": 32}
    )
    data, h = read_image_fits(path)
    np.testing.assert_allclose(data, img.astype(np.float32))
    assert h["CTYPE1"] == "RA---SIN" and h["CDELT1"] < 0
    assert h["CTYPE2"] == "DEC--SIN" and h["CDELT2"] > 0
    assert h["CRPIX1"] == 17 and h["CRPIX2"] == 17
    assert h["CRVAL3"] == 1.2e9 and h["CTYPE4"] == "STOKES" and h["CRVAL4"] == 2
    assert h["BUNIT"] == "Jy/beam"
    assert any("npix = 32" in str(c) for c in h["HISTORY"])


def test_shape_mismatch_rejected(tmp_path):
    with pytest.raises(ValueError, match="npix"):
        write_image_fits(
            tmp_path / "x.fits", np.zeros((4, 4)), ImageSpec(8, ARCSEC), 0, 0, freq_hz=1e9
        )


def test_observation_cards_and_a_beam_that_astropy_and_radio_beam_read(tmp_path):
    """Issue 16: the keywords CASA and WSClean write, read back by astropy and radio-beam."""
    import math
    import warnings

    import astropy.units as u
    from astropy.coordinates import EarthLocation
    from astropy.io import fits
    from astropy.time import Time
    from astropy.wcs import WCS
    from radio_beam import Beam as RadioBeam

    from uvlab.gpu.deconvolution.beam import Beam

    spec = ImageSpec(32, 2.0 * math.pi / 180 / 3600)
    dec = math.degrees(math.radians(30.0))  # 29.999999999999996
    arcsec = math.pi / 180 / 3600
    beam = Beam(10.0 * arcsec, 6.0 * arcsec, 25.0)
    obs = {
        "start_mjd_s": 60754.25 * 86400.0,
        "telescope": "VLA",
        "observer": "someone",
        "object": "3C286",
        "obsgeo_m": (-1601185.4, -5041977.5, 3554875.9),
    }
    path = write_image_fits(
        tmp_path / "x.fits", np.zeros((32, 32)), spec, 150.0, dec, freq_hz=1.4e9,
        beam=beam, observation=obs,
    )  # fmt: skip
    h = fits.getheader(path)
    assert h["CRVAL2"] == 30.0 and h["CRVAL1"] == 150.0
    assert (h["TELESCOP"], h["OBSERVER"], h["OBJECT"], h["TIMESYS"]) == (
        "VLA", "someone", "3C286", "UTC",
    )  # fmt: skip
    assert Time(h["DATE-OBS"], scale="utc").mjd == pytest.approx(60754.25, abs=1e-8)
    assert h["RESTFRQ"] == 1.4e9 and h["SPECSYS"] == "TOPOCENT"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # astropy reads every card without complaint
        w = WCS(h)
    site = EarthLocation.from_geocentric(*obs["obsgeo_m"], unit=u.m)
    assert w.wcs.obsgeo[:3] == pytest.approx([site.x.value, site.y.value, site.z.value])
    rb = RadioBeam.from_fits_header(h)
    assert rb.major.to_value(u.arcsec) == pytest.approx(10.0)
    assert rb.minor.to_value(u.arcsec) == pytest.approx(6.0)
    assert rb.pa.to_value(u.deg) == pytest.approx(25.0)


@pytest.mark.parametrize(
    "xyz",
    [(5109360.0, 2006852.0, -3238948.0), (-1601185.4, -5041977.5, 3554875.9),
     (1000.0, 2000.0, 6356752.0)],
    ids=["meerkat", "vla", "near-pole"],
)  # fmt: skip
def test_obsgeo_lbh_are_wcslibs_own(xyz):
    """OBSGEO-L/B/H equal what wcslib derives from X/Y/Z (astropy's ``WCS.fix``), so astropy
    opens and fixes the header without a warning; WGS84's would be ~3 m off and warned."""
    from uvlab.app.outputs.fits_io import _wcslib_geodetic

    w = WCS(naxis=2)
    w.wcs.obsgeo = [*xyz, np.nan, np.nan, np.nan]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w.fix()
    want = np.asarray(w.wcs.obsgeo[3:6])
    got = _wcslib_geodetic(xyz)
    np.testing.assert_allclose(got[:2], want[:2], rtol=0, atol=1e-8)
    assert abs(got[2] - want[2]) < 0.02
    h = fits.Header({"NAXIS": 2, "CTYPE1": "RA---SIN", "CTYPE2": "DEC--SIN"})
    for axis, value in zip("XYZLBH", [*xyz, *got], strict=True):
        h[f"OBSGEO-{axis}"] = float(value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        WCS(h).fix()
