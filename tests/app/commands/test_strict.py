"""``--strict``: what a sky reader would approximate is a warning, or with --strict an error."""

from __future__ import annotations

import math

import pytest

from tests.support.cli import run_cli
from tests.support.component_lists import write_component_list
from tests.support.ms_factory import data_digest

AS = math.pi / 648000
OBS = ("--array", "vla.d", "--ra", 150, "--dec", 30, "--start", "2025-03-01T06:00:00",
       "--duration-h", 0.5, "--int-s", 900, "--device", "cpu")  # fmt: skip


@pytest.fixture
def disk(tmp_path):
    """A component list of one 10″ disk: uvlab reads it as a Gaussian (an approximation)."""
    rows = [dict(Shape="Disk", Reference_Direction=[math.radians(150.01), math.radians(30.0)],
                 Flux=[1.0 + 0j, 0, 0, 0], Shape_Parameters=[10 * AS, 10 * AS, 0.0],
                 Reference_Frequency=1.4e9)]  # fmt: skip
    return write_component_list(tmp_path / "disk.cl", rows)


def _refused(code, err):
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "--strict" in err and "disk" in err


def test_simulate(tmp_path, disk):
    code, _, err = run_cli("simulate", *OBS, "--sky", disk, "--out", tmp_path / "a.ms")
    assert code == 0 and "warning" in err and "disk" in err, err
    code, _, err = run_cli("simulate", *OBS, "--sky", disk, "--strict", "--out", tmp_path / "b.ms")
    _refused(code, err)
    assert not (tmp_path / "b.ms").exists()


def test_predict(tmp_path, disk):
    ms = tmp_path / "a.ms"
    assert run_cli("simulate", *OBS, "--sky", "point", "--out", ms)[0] == 0
    before = data_digest(ms)
    code, _, err = run_cli("predict", "--ms", ms, "--sky", disk, "--strict", "--device", "cpu")
    _refused(code, err)
    assert data_digest(ms) == before  # nothing written
    code, _, err = run_cli("predict", "--ms", ms, "--sky", disk, "--device", "cpu")
    assert code == 0 and "warning" in err, err


def test_compare(tmp_path, disk):
    args = ("compare", *OBS, "--sky", disk, "--algorithms", "conv", "--npix", 64)
    code, _, err = run_cli(*args, "--strict", "--out", tmp_path / "strict")
    _refused(code, err)
    assert not (tmp_path / "strict").exists()


def test_sky_convert_and_show(tmp_path, disk):
    code, _, err = run_cli("sky", "convert", disk, tmp_path / "a.txt")
    assert code == 0 and "warning" in err and (tmp_path / "a.txt").exists(), err
    code, _, err = run_cli("sky", "convert", disk, tmp_path / "b.txt", "--strict")
    _refused(code, err)
    assert not (tmp_path / "b.txt").exists()
    code, _, err = run_cli("sky", "show", disk, "--strict")
    _refused(code, err)


def test_wsclean_unknown_column(tmp_path):
    sky = tmp_path / "w.txt"
    sky.write_text("Format = Name, Type, Ra, Dec, I, ReferenceFrequency, Foo\n"
                   "s1, POINT, 10:00:00, +30.00.00, 1.0, 1.4e9, 3\n")  # fmt: skip
    code, _, err = run_cli("sky", "convert", sky, tmp_path / "a.txt")
    assert code == 0 and "foo" in err and "ignored" in err, err
    code, _, err = run_cli("sky", "convert", sky, tmp_path / "b.txt", "--strict")
    assert code == 1 and "foo" in err and "--strict" in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "b.txt").exists()


@pytest.fixture
def fits_sky(tmp_path):
    """A FITS image sky without BUNIT: uvlab assumes Jy/pixel (an approximation it notes)."""
    import numpy as np
    from astropy.io import fits

    h = fits.Header()
    h.update(CTYPE1="RA---SIN", CTYPE2="DEC--SIN", CRVAL1=150.0, CRVAL2=30.0, CRPIX1=9.0,
             CRPIX2=9.0, CDELT1=-1 / 3600, CDELT2=1 / 3600, CUNIT1="deg", CUNIT2="deg")  # fmt: skip
    data = np.zeros((16, 16), np.float32)
    data[8, 8] = 1.0
    path = tmp_path / "nobunit.fits"
    fits.PrimaryHDU(data, header=h).writeto(path)
    return path


def test_image_sky_notes(tmp_path, fits_sky):
    code, _, err = run_cli("sky", "render", fits_sky, tmp_path / "a.fits", "--npix", 16,
                           "--ra", 150, "--dec", 30, "--strict")  # fmt: skip
    assert code == 1 and "BUNIT" in err and "--strict" in err, err
    assert not (tmp_path / "a.fits").exists()
    code, _, err = run_cli("simulate", *OBS, "--sky", "point", "--image-sky", fits_sky,
                           "--strict", "--out", tmp_path / "b.ms")  # fmt: skip
    assert code == 1 and "BUNIT" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "b.ms").exists()
    code, _, err = run_cli("simulate", *OBS, "--sky", "point", "--image-sky", fits_sky,
                           "--out", tmp_path / "c.ms")  # fmt: skip
    assert code == 0 and "warning" in err and "BUNIT" in err, err
