"""`uvlab demo` end to end: files written, and the brightest source where the sky says."""

import json

import numpy as np
from astropy.coordinates import SkyCoord
from astropy.io import fits
from astropy.wcs import WCS

from uvlab.app.cli import main
from uvlab.app.lab.session import DEFAULT_SESSION
from uvlab.app.skymodel import load_sky


def test_demo_writes_fits_png_and_timing(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--npix", "128", "--device", "cpu"]) == 0
    for name in ("dirty.fits", "psf.fits", "overview.png", "timing.json", "scene.json"):
        assert (out / name).stat().st_size > 0, name
    timing = json.loads((out / "timing.json").read_text())
    assert {"uvw", "predict", "grid"} <= set(timing["timing_s"])
    assert "total" in capsys.readouterr().out

    with fits.open(out / "psf.fits") as h:
        psf = h[0].data[0, 0]
    assert psf[64, 64] == np.max(psf)
    assert abs(psf[64, 64] - 1.0) < 1e-5

    with fits.open(out / "dirty.fits") as h:
        img = h[0].data[0, 0].astype(float)
        wcs = WCS(h[0].header).celestial
    obs = DEFAULT_SESSION.observation
    sky = load_sky("teaching", ra0_deg=obs.ra_deg, dec0_deg=obs.dec_deg)
    brightest = max(sky.components, key=lambda c: c.stokes[0])
    where = SkyCoord(brightest.ra_deg, brightest.dec_deg, unit="deg", frame="fk5")
    x, y = wcs.world_to_pixel(where)
    j, i = np.unravel_index(np.argmax(img), img.shape)
    assert abs(i - x) <= 0.5 and abs(j - y) <= 0.5
