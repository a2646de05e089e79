"""Bad input gives one clear MSError naming the path, and never changes the MS."""

from __future__ import annotations

import shutil

import pytest

from tests.support.ms_factory import make_ms, tree_digest
from uvlab.app.ms import MSError, open_ms, read_visibilities


def _fails(path, match, call=open_ms, **kwargs):
    """Call ``call(path)``, expect MSError matching ``match``; the MS must not change."""
    before = tree_digest(path) if path.is_dir() else None
    with pytest.raises(MSError, match=match) as e:
        call(path, **kwargs)
    assert "\n" not in str(e.value) and str(e.value).startswith(str(path))
    if before is not None:
        assert tree_digest(path) == before
    return str(e.value)


def test_nonexistent_path_and_not_an_ms(tmp_path):
    _fails(tmp_path / "nowhere.ms", "no such file or folder")
    _fails(tmp_path / "nowhere.ms", "no such file or folder", read_visibilities)
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a table")
    _fails(folder, r"not a MeasurementSet \(the folder holds no casacore table.dat\)")
    afile = tmp_path / "file.ms"
    afile.write_text("x")
    _fails(afile, "not a MeasurementSet")


def test_a_table_that_is_not_an_ms(ms_copy):
    path = ms_copy("lwasv_4ant.ms")
    _fails(path / "ANTENNA", r"not a MeasurementSet \(no .*DATA_DESCRIPTION")


def test_missing_table_file(ms_copy):
    path = ms_copy("lwasv_4ant.ms")
    (path / "table.f0").unlink()
    msg = _fails(path, "table file table.f0 is missing")
    assert msg.endswith("the MeasurementSet is damaged or incomplete")
    _fails(path, "table file table.f0 is missing", read_visibilities)


def test_missing_subtable_and_subtable_file(ms_copy):
    path = ms_copy("lwasv_4ant.ms")
    shutil.rmtree(path / "SPECTRAL_WINDOW")
    _fails(path, "subtable SPECTRAL_WINDOW is missing or not a table")
    other = ms_copy("paper_xy.ms")
    (other / "POLARIZATION" / "table.f0").unlink()
    _fails(other, r"table file POLARIZATION/table.f0 is missing", read_visibilities, stokes="XY")


def test_unknown_field_spw_column_channels(ms_copy):
    path = ms_copy("lwasv_4ant.ms")
    _fails(path, r"no field 2; it has 1 field: 0 'ZA1915057'$", read_visibilities, field=2)
    _fails(path, r"no field named 'M87'; it has 1 field", read_visibilities, field="M87")
    _fails(path, r"no spectral window 3; it has 1: 0 \(4 ch at 40.000 MHz\)",
           read_visibilities, spw=3)  # fmt: skip
    _fails(path, r"no CORRECTED_DATA column; data columns present: DATA$",
           read_visibilities, column="CORRECTED_DATA")  # fmt: skip
    _fails(path, r"'FLAG' is not a visibility column", read_visibilities, column="FLAG")
    _fails(path, r"channel selection 6:9:None is empty; spectral window 0 has 4 channels",
           read_visibilities, channels=(6, 9))  # fmt: skip
    _fails(path, r"holds XX XY YX YY; choose Stokes one of I, Q, U, V, XX",
           read_visibilities, stokes="RR")  # fmt: skip


def test_empty_selection_and_everything_flagged(tmp_path, rng):
    ms = make_ms(tmp_path / "flagged.ms", rng, flag_fraction=1.0)
    _fails(ms.path, r"every visibility selected is flagged \(field 0 'F0', spectral window 0, I,",
           read_visibilities)  # fmt: skip
    auto = make_ms(tmp_path / "late.ms", rng)
    _fails(auto.path, r"no cross-correlation rows for field 0 'F0', spectral window 0 within",
           read_visibilities, time_range=(0.0, 1.0))  # fmt: skip
