"""uvlab's cache of astropy's Earth-orientation table. Oracle: astropy's own parsed table."""

import os
import subprocess
import sys

import numpy as np
import pytest
from astropy.time import Time
from astropy.utils import iers

from uvlab.app.observing import iers_cache

#: 1973 to 2027: measured (IERS-B), rapid (IERS-A) and predicted rows.
DATES = Time(np.linspace(41700.0, 61700.0, 4001), format="mjd", scale="utc")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("UVLAB_CACHE", str(tmp_path / "cache"))
    iers_cache.reset()
    yield tmp_path / "cache"
    iers_cache.reset()


def test_cached_table_equals_astropys(cache):
    assert iers_cache.install() == "built"
    (path,) = cache.glob("iers-a-*.npz")
    assert path.stat().st_size > 100_000
    iers_cache.reset()
    assert iers_cache.install() == "cached"
    got = iers.earth_orientation_table.get()
    want = iers.IERS_Auto.open()
    assert got is not want
    dut, status = got.ut1_utc(DATES, return_status=True)
    dut0, status0 = want.ut1_utc(DATES, return_status=True)
    np.testing.assert_array_equal(dut.to_value("s"), dut0.to_value("s"))
    np.testing.assert_array_equal(status, status0)
    for a, b in zip(got.pm_xy(DATES), want.pm_xy(DATES), strict=True):
        np.testing.assert_array_equal(a.to_value("arcsec"), b.to_value("arcsec"))
    assert iers_cache.install() == "cached"  # once per process


def test_simulated_uvw_is_unchanged_by_the_cache(cache, monkeypatch):
    from uvlab.app.observing.observation import ObservationSpec, simulate_observation

    spec = ObservationSpec("vla.a", 150.0, 20.0, ha_start_h=-2, ha_stop_h=2, int_s=1800.0)
    monkeypatch.setenv("UVLAB_CACHE", "off")  # astropy parses its own table
    iers_cache.reset()
    plain = simulate_observation(spec).uvw_rows()
    monkeypatch.setenv("UVLAB_CACHE", str(cache))
    iers_cache.reset()
    assert simulate_observation(spec).uvw_rows().tobytes() == plain.tobytes()  # fills the cache
    assert len(list(cache.glob("iers-a-*.npz"))) == 1
    iers_cache.reset()
    np.testing.assert_array_equal(simulate_observation(spec).uvw_rows(), plain)  # reads it


def test_columns_equal_astropys_table_and_need_no_astropy_once_cached(cache):
    want = iers.IERS_Auto.open()
    got = iers_cache.columns()  # first call: astropy parses, the cache is filled
    for name, unit in iers_cache.COLUMNS.items():
        col = want[name].to_value(unit) if unit else want[name]
        np.testing.assert_array_equal(got[name], np.asarray(col), err_msg=name)
    code = (
        "import sys; from uvlab.app.observing import iers_cache; c = iers_cache.columns();"
        "print(c['MJD'].size, 'astropy' in sys.modules)"
    )
    env = {**os.environ, "UVLAB_CACHE": str(cache)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == [str(got["MJD"].size), "False"], out.stderr


def test_damaged_cache_is_rebuilt(cache):
    iers_cache.install()
    (path,) = cache.glob("iers-a-*.npz")
    path.write_bytes(b"not an npz file")
    iers_cache.reset()
    assert iers_cache.install() == "built"
    iers_cache.reset()
    assert iers_cache.install() == "cached"
    path.write_bytes(b"not an npz file")
    iers_cache.reset()
    assert iers_cache.columns()["MJD"].size > 10_000  # rebuilt, then read
    iers_cache.reset()
    assert iers_cache.install() == "cached"


def test_cache_off_or_unwritable_falls_back_to_astropy(tmp_path, monkeypatch):
    monkeypatch.setenv("UVLAB_CACHE", "off")
    iers_cache.reset()
    assert iers_cache.install() == "astropy"
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("UVLAB_CACHE", str(blocker / "cache"))  # a folder inside a file
    iers_cache.reset()
    assert iers_cache.install() == "astropy"
    assert iers.earth_orientation_table.get().ut1_utc(DATES[:3]).shape == (3,)
    assert iers_cache.columns()["UT1_UTC"].size > 10_000  # astropy's table, parsed
    iers_cache.reset()


def test_cache_folder_follows_xdg_and_ignores_a_relative_one(tmp_path, monkeypatch):
    monkeypatch.delenv("UVLAB_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert iers_cache.cache_dir() == tmp_path / "uvlab"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert iers_cache.cache_dir() == tmp_path / "home" / ".cache" / "uvlab"
    monkeypatch.setenv("UVLAB_CACHE", "OFF")
    assert iers_cache.cache_dir() is None
