"""``uvlab image --pb-correct``: PREFIX-pb.fits is the power beam, PREFIX-image-pb.fits
the image over it, blanked below the limit.

Oracles: the Airy power pattern (2·J1(x)/x)² from scipy at every pixel; a 1 Jy source
that an Airy beam dimmed to E² in the data reads ~1 Jy again after the correction.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from astropy.io import fits

from tests.support.cli import run_cli, write_sky

C = 299792458.0


def test_pb_image_and_corrected_flux(tmp_path):
    special = pytest.importorskip("scipy.special")
    dec0 = 30.0
    dec = dec0 + 0.1
    ra = 150.0 + 0.12 / math.cos(math.radians(dec))
    sky = write_sky(tmp_path / "s.txt", [("s", ra, dec, 1.0, 0, 0, 0)])
    code, _, err = run_cli(
        "simulate", "--array", "vla.d", "--ra", "150", "--dec", dec0, "--ha-start", "-2",
        "--ha-stop", "2", "--int-s", "300", "--sky", sky, "--primary-beam", "airy",
        "--no-smearing", "--device", "cpu", "--out", tmp_path / "a.ms",
    )  # fmt: skip
    assert code == 0, err
    out = tmp_path / "img"
    code, _, err = run_cli("image", "--ms", tmp_path / "a.ms", "--npix", "256", "--cell-arcsec",
                           "10", "--no-png", "--pb-correct", "--out", out)  # fmt: skip
    assert code == 0, err
    pb = fits.getdata(f"{out}-pb.fits").squeeze()
    dirty = fits.getdata(f"{out}-dirty.fits").squeeze()
    corr = fits.getdata(f"{out}-image-pb.fits").squeeze()
    n, cell = 256, math.radians(10 / 3600)
    i = np.arange(n)
    ll, mm = np.meshgrid(-(i - n // 2) * cell, (i - n // 2) * cell)
    x = math.pi * 25.0 * np.hypot(ll, mm) * 1.4e9 / C
    want = np.where(x == 0, 1.0, (2 * special.j1(x) / np.where(x == 0, 1, x)) ** 2)
    np.testing.assert_allclose(pb, want, atol=1e-6)
    j, k = np.unravel_index(np.argmax(dirty), dirty.shape)
    assert 0.6 < dirty[j, k] < 0.95  # dimmed by the beam
    assert corr[j, k] == pytest.approx(1.0, abs=0.02)
    assert np.isnan(corr[pb < 0.005]).all() and not np.isnan(corr[pb >= 0.005]).any()
    # --size W H: the beam is cropped with the image, about the same centre
    code, _, err = run_cli("image", "--ms", tmp_path / "a.ms", "--size", "128", "64",
                           "--cell-arcsec", "10", "--no-png", "--pb-correct",
                           "--out", tmp_path / "crop")  # fmt: skip
    assert code == 0, err
    small = fits.getdata(tmp_path / "crop-pb.fits").squeeze()
    assert small.shape == (64, 128)
    np.testing.assert_allclose(small, pb[128 - 32 : 128 + 32, 128 - 64 : 128 + 64], atol=1e-6)


def test_unusable_cube_writes_nothing(tmp_path):
    code, _, err = run_cli(
        "simulate", "--array", "kat-7", "--ra", "45", "--dec", "-50", "--ha-start", "-1",
        "--ha-stop", "1", "--int-s", "900", "--sky", write_sky(tmp_path / "s.txt",
        [("s", 45.0, -50.0, 1, 0, 0, 0)]), "--device", "cpu", "--out", tmp_path / "k.ms",
    )  # fmt: skip
    assert code == 0, err
    fits.PrimaryHDU(np.ones((4, 4))).writeto(tmp_path / "bad.fits")
    bad = ("--pb-correct", "--pb-model", tmp_path / "bad.fits")
    code, _, err = run_cli("image", "--ms", tmp_path / "k.ms", "--npix", "64", *bad,
                           "--out", tmp_path / "o")  # fmt: skip
    assert code == 1 and "bad.fits" in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.glob("o*"))
