"""``--phase-center``: visibilities re-phased as CASA's phaseshift does, w-term and all."""

from __future__ import annotations

import numpy as np
import pytest
from astropy.io import fits
from astropy.wcs import WCS
from casacore import tables

from tests.support.cli import run_cli
from uvlab.app.lab.jobs import MSSelection
from uvlab.app.lab.samples import WorkCache
from uvlab.app.ms.phaseshift import rotate_uvw

OLD, NEW = (150.0, 30.0), (150.3, 30.2)  # the source sits at NEW, 0.35° from OLD
SKY = "# uvlab sky model v1\nsrc point 150.3 30.2 1.0 0 0 0 0 1.4e9 0 0 0\n"
IMAGE = ("--npix", 128, "--cell-arcsec", 10, "--eps", "1e-6", "--device", "cpu", "--no-png")


@pytest.fixture(scope="module")
def two_ms(tmp_path_factory):
    """The same observation and source, phased at OLD and (directly, by simulate) at NEW."""
    folder = tmp_path_factory.mktemp("shift")
    (folder / "src.sky").write_text(SKY)
    out = {}
    for name, (ra, dec) in (("old", OLD), ("new", NEW)):
        code, _, err = run_cli(
            "simulate", "--array", "vla.d", "--ra", ra, "--dec", dec,
            "--start", "2025-03-01T06:00:00", "--duration-h", 2, "--int-s", 600,
            "--nchan", 2, "--sky", folder / "src.sky", "--no-smearing", "--device", "cpu",
            "--out", folder / f"{name}.ms",
        )  # fmt: skip
        assert code == 0, err
        out[name] = folder / f"{name}.ms"
    return folder, out


def test_shifted_visibilities_of_a_source_at_the_new_centre_are_its_flux(two_ms):
    _, ms = two_ms
    data, _ = WorkCache().ms_data(MSSelection(str(ms["old"]), phase_centre=NEW))
    # closed form: a 1 Jy point at the phase centre has V = 1 on every baseline and channel
    assert np.abs(data.vis - 1.0).max() < 1e-5
    old, _ = WorkCache().ms_data(MSSelection(str(ms["old"])))
    assert np.abs(old.vis - 1.0).max() > 1.0  # before the shift: fringes of a 0.35° offset
    assert np.degrees([data.ra0_rad, data.dec0_rad]) == pytest.approx(NEW, abs=1e-12)


def test_rotated_uvw_equal_those_simulated_at_the_new_centre(two_ms):
    _, ms = two_ms
    uvw_old, uvw_new = (tables.table(str(ms[k]), ack=False).getcol("UVW") for k in ("old", "new"))
    rotated = rotate_uvw(uvw_old, np.radians(OLD), np.radians(NEW))
    scale = np.abs(uvw_new).max()
    assert np.abs(uvw_old - uvw_new).max() / scale > 1e-3  # the frames do differ
    assert np.abs(rotated - uvw_new).max() / scale < 2e-6  # uvlab's ERFA uvw (DESIGN §1)


def test_image_with_shift_equals_image_phased_there(two_ms):
    folder, ms = two_ms
    code, _, err = run_cli("image", "--ms", ms["old"], "--phase-center", "10:01:12", "+30:12:00",
                           *IMAGE, "--out", folder / "shifted")  # fmt: skip
    assert code == 0, err
    code, _, err = run_cli("image", "--ms", ms["new"], *IMAGE, "--out", folder / "direct")
    assert code == 0, err
    shifted = fits.getdata(folder / "shifted-dirty.fits").squeeze()
    direct = fits.getdata(folder / "direct-dirty.fits").squeeze()
    j, i = np.unravel_index(np.argmax(shifted), shifted.shape)
    assert (j, i) == (64, 64)  # the source, at the map centre
    assert abs(shifted[j, i] - direct[j, i]) < 1e-3 and abs(shifted[j, i] - 1.0) < 1e-3
    assert np.abs(shifted - direct).max() < 1e-4
    header = fits.getheader(folder / "shifted-dirty.fits")
    assert (header["CRVAL1"], header["CRVAL2"]) == pytest.approx(NEW, abs=1e-9)
    pos = WCS(header).celestial.pixel_to_world(i, j)
    assert (pos.ra.deg, pos.dec.deg) == pytest.approx(NEW, abs=1e-9)


@pytest.mark.parametrize("value", [["150"], ["150", "95"], ["10:00", "x"]])
def test_bad_phase_centre_is_a_usage_error(two_ms, value):
    folder, ms = two_ms
    code, _, err = run_cli("image", "--ms", ms["old"], "--phase-center", *value, *IMAGE,
                           "--out", folder / "bad")  # fmt: skip
    assert code == 2 and "--phase-center" in err, err
    assert not list(folder.glob("bad*"))
