"""uvlab's cache of astropy's Earth-orientation table. Oracle: astropy's own parsed table."""

import numpy as np
import pytest
from astropy.time import Time
from astropy.utils import iers

from uvlab.app import iers_cache

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


def test_simulated_uvw_is_unchanged_by_the_cache(cache):
    from uvlab.app.observation import ObservationSpec, simulate_observation

    spec = ObservationSpec("vla.a", 150.0, 20.0, ha_start_h=-2, ha_stop_h=2, int_s=1800.0)
    iers.earth_orientation_table.set(iers.IERS_Auto.open())
    plain = simulate_observation(spec).uvw_rows()
    assert iers_cache.install() == "built"
    iers_cache.reset()
    assert iers_cache.install() == "cached"
    np.testing.assert_array_equal(simulate_observation(spec).uvw_rows(), plain)


def test_damaged_cache_is_rebuilt(cache):
    iers_cache.install()
    (path,) = cache.glob("iers-a-*.npz")
    path.write_bytes(b"not an npz file")
    iers_cache.reset()
    assert iers_cache.install() == "built"
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
