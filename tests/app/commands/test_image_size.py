"""``uvlab image --size W H``: the centre crop of the square image, with CASA's reference pixel."""

from __future__ import annotations

import numpy as np
import pytest
from astropy.io import fits
from astropy.wcs import WCS

from tests.support.cli import run_cli, write_sky
from tests.support.oracles import pixel_radec
from uvlab.app.skymodel import load_sky

RA0, DEC0, CELL_ARCSEC = 150.0, 30.0, 12.0
CELL = np.radians(CELL_ARCSEC / 3600)
DI, DJ = 9, -20  # the source: 9 pixels towards +i (west, l < 0) and 20 south
COMMON = ("--cell-arcsec", CELL_ARCSEC, "--eps", "1e-6", "--device", "cpu", "--no-png")


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    folder = tmp_path_factory.mktemp("size")
    ra, dec = pixel_radec(RA0, DEC0, CELL, DI, DJ)
    sky = write_sky(folder / "sky.txt", [("s", ra, dec, 1.0, 0, 0, 0)])
    code, _, err = run_cli("simulate", "--array", "vla.d", "--ra", RA0, "--dec", DEC0,
                           "--ha-start", -1, "--ha-stop", 1, "--int-s", 600, "--sky", sky,
                           "--no-smearing", "--device", "cpu",
                           "--out", folder / "s.ms")  # fmt: skip
    assert code == 0, err
    return folder, folder / "s.ms", (ra, dec)


@pytest.mark.parametrize(("w", "h"), [(128, 64), (48, 128), (100, 128)])
def test_size_is_the_centre_crop_with_casa_crpix(ms, w, h):
    folder, path, (ra, dec) = ms
    code, _, err = run_cli("image", "--ms", path, "--npix", 128, *COMMON, "--force",
                           "--out", folder / "sq")  # fmt: skip
    assert code == 0, err
    out = folder / f"r{w}x{h}"
    code, stdout, err = run_cli("image", "--ms", path, "--size", w, h, *COMMON, "--out", out)
    assert code == 0, err
    assert f"{w}×{h}" in stdout
    for kind in ("dirty", "psf"):
        square = fits.getdata(folder / f"sq-{kind}.fits").squeeze()
        rect = fits.getdata(f"{out}-{kind}.fits").squeeze()
        j0, i0 = 64 - h // 2, 64 - w // 2  # numpy slicing written out here, not centre_crop
        np.testing.assert_array_equal(rect, square[j0 : j0 + h, i0 : i0 + w])
    header = fits.getheader(f"{out}-dirty.fits")
    assert (header["NAXIS1"], header["NAXIS2"]) == (w, h)
    assert (header["CRPIX1"], header["CRPIX2"]) == (w / 2 + 1, h / 2 + 1)
    assert (header["CRVAL1"], header["CRVAL2"]) == pytest.approx((RA0, DEC0), abs=1e-9)
    # astropy puts the source where the peak is: pixel (W/2 + 9, H/2 − 20), 0-based
    # (i = N/2 − l/cell)
    x, y = WCS(header).celestial.world_to_pixel_values(ra, dec)
    assert (float(x), float(y)) == pytest.approx((w // 2 + DI, h // 2 + DJ), abs=1e-6)
    img = fits.getdata(f"{out}-dirty.fits").squeeze()
    assert np.unravel_index(np.argmax(img), img.shape) == (h // 2 + DJ, w // 2 + DI)
    assert img.max() == pytest.approx(1.0, abs=2e-3)


def test_size_with_clean_crops_every_product(ms):
    folder, path, (ra, dec) = ms
    out = folder / "clean"
    code, _, err = run_cli("image", "--ms", path, "--size", 96, 64, *COMMON, "--niter", 30,
                           "--out", out)  # fmt: skip
    assert code == 0, err
    for kind in ("model", "residual", "image"):
        h = fits.getheader(f"{out}-{kind}.fits")
        assert (h["NAXIS1"], h["NAXIS2"], h["CRPIX1"], h["CRPIX2"]) == (96, 64, 49, 33)
    # the list is placed by the cropped model's header: its brightest component is the source
    comps = load_sky(folder / "clean-sources.txt").components
    top = max(comps, key=lambda c: c.stokes[0])
    assert (top.ra_deg, top.dec_deg) == pytest.approx((ra, dec), abs=1e-7)


@pytest.mark.parametrize(
    "flags", [("--size", 64, 63), ("--size", 0, 64), ("--size", 64, 64, "--npix", 64)]
)
def test_bad_size_is_a_usage_error(ms, flags):
    folder, path, _ = ms
    code, _, err = run_cli("image", "--ms", path, *flags, *COMMON, "--out", folder / "bad")
    assert code == 2 and "--size" in err and len(err.strip().splitlines()) == 1, err
    assert not list(folder.glob("bad*"))
