"""Which spectral windows hold a field, and several windows read side by side (app/ms/spw_set.py).

Oracle: what the synthetic MS was written with (tests.support.ms_factory), its FIELD_ID
and DATA_DESC_ID columns rewritten here so that the fields hold different windows.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from casacore import tables

from tests.support.cli import run_cli
from tests.support.ms_factory import make_ms
from uvlab.app.ms import MSError, read_visibilities
from uvlab.app.ms.spw_set import SpwSet, field_spws

FIELDS = (("CAL", 1.0, -0.5), ("TARGET", 2.0, 0.3))


@pytest.fixture(scope="module")
def two_fields(tmp_path_factory):
    """Field CAL in windows 0 and 1, TARGET in window 2; window 3 has no rows at all."""
    path = tmp_path_factory.mktemp("fields") / "f.ms"
    ms = make_ms(path, np.random.default_rng(3), fields=FIELDS,
                 field_iquv=((1, 0, 0, 0), (2, 0, 0, 0)), spw_nchan=(2, 3, 4), ntime=2)  # fmt: skip
    t = tables.table(str(path), readonly=False, ack=False)
    t.putcol("FIELD_ID", np.where(ms.dd_id == 2, 1, 0).astype(np.int32))
    t.close()
    sw = tables.table(f"{path}/SPECTRAL_WINDOW", readonly=False, ack=False)
    sw.addrows(1)
    for col in ("CHAN_FREQ", "CHAN_WIDTH", "EFFECTIVE_BW", "RESOLUTION"):
        sw.putcell(col, 3, sw.getcell(col, 0))
    sw.putcell("NUM_CHAN", 3, 2)
    sw.close()
    dd = tables.table(f"{path}/DATA_DESCRIPTION", readonly=False, ack=False)
    dd.addrows(1)
    dd.putcell("SPECTRAL_WINDOW_ID", 3, 3)
    dd.close()
    return path


def test_field_spws_are_the_windows_with_rows_of_the_field(two_fields):
    assert field_spws(two_fields, 0) == (0, 1)
    assert field_spws(two_fields, "TARGET") == (2,)
    with pytest.raises(MSError, match="no field 5; it has 2 fields"):
        field_spws(two_fields, 5)


def test_spw_set_joins_the_windows_metadata(two_fields):
    parts = tuple(read_visibilities(two_fields, field=0, spw=k, stokes="XX") for k in (0, 1))
    s = SpwSet(parts)
    assert s.spws == (0, 1) and s.spw == "0,1" and s.stokes == "XX"
    assert s.field_name == "CAL" and s.nchan == 5 and s.nrow == parts[0].nrow + parts[1].nrow
    np.testing.assert_array_equal(s.freq_hz, np.r_[1.0e9 + 1e6 * np.arange(2),
                                                   1.1e9 + 1e6 * np.arange(3)])  # fmt: skip
    assert s.band_hz == pytest.approx((1.0e9 - 0.5e6, 1.1e9 + 2.5e6))
    with pytest.raises(MSError, match="different products"):
        SpwSet((parts[0], replace(parts[1], stokes="YY")))


def test_image_takes_the_fields_windows(two_fields, tmp_path):
    from uvlab.app.outputs.fits_io import read_image_fits

    base = ("image", "--ms", two_fields, "--npix", 32, "--cell-arcsec", 10, "--no-png")
    code, _out, err = run_cli(*base, "--field", "CAL", "--out", tmp_path / "cal")
    assert code == 0, err
    _, header = read_image_fits(f"{tmp_path}/cal-dirty.fits")
    assert any(h.startswith("uvlab spw = 0,1 (") for h in header["HISTORY"])
    code, _out, err = run_cli(*base, "--field", "TARGET", "--out", tmp_path / "target")
    assert code == 0, err
    _, header = read_image_fits(f"{tmp_path}/target-dirty.fits")
    assert "uvlab spw = 2" in header["HISTORY"]
    assert header["CRVAL3"] == pytest.approx(1.2e9 + 1.5e6)  # window 2 alone: its mean
    code, _out, err = run_cli(*base, "--spw", "3", "--out", tmp_path / "empty")
    assert code == 1 and "no cross-correlation rows" in err and "spectral window 3" in err, err
