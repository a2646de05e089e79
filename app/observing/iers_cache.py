"""A fast start for the Earth-orientation table (astropy's bundled IERS-A, never downloaded).

On the first UTC → UT1 conversion of a process, astropy parses the bundled
``finals2000A.all`` (CDS text, 20 000 rows): 1.5–2.5 s, most of what a small
``uvlab simulate`` or the lab's first job spends. The columns astropy's
:class:`~astropy.utils.iers.IERS_Auto` table interpolates are saved once as
``.npz`` in the user's cache, keyed by the astropy-iers-data version.
Later processes read them in milliseconds: :func:`columns` hands them to
:mod:`uvlab.app.observing.eop` without importing astropy at all (0.7 s of every start),
and :func:`install` rebuilds astropy's table from them for code that uses
astropy's Time.

Where: ``$UVLAB_CACHE`` (``off`` disables the cache), else
``$XDG_CACHE_HOME/uvlab``, else ``~/.cache/uvlab``. A cache that cannot be
read or written is skipped (astropy then reads its own file as usual); a
damaged one is rebuilt.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

import numpy as np

#: Columns of the combined IERS-A/B table that astropy's interpolation reads, and their units.
COLUMNS = {
    "MJD": "d",
    "UT1_UTC": "s",
    "UT1Flag": None,
    "PM_x": "arcsec",
    "PM_y": "arcsec",
    "PolPMFlag": None,
    "dX_2000A": "marcsec",
    "dY_2000A": "marcsec",
    "NutFlag": None,
}
META = ("predictive_index", "predictive_mjd")

_lock = threading.Lock()
_state: str | None = None
_columns: dict[str, np.ndarray] | None = None


def _iers():
    """astropy.utils.iers, set never to download (no network here, nor in CI).

    Nor are the bundled tables judged stale by the wall clock: with
    auto_max_age = None astropy neither warns that the leap-second file
    expired nor refuses UT1 predictions older than 30 days.
    """
    from astropy.utils import iers

    iers.conf.auto_download = False
    iers.conf.auto_max_age = None
    return iers


def cache_dir() -> Path | None:
    """The folder of uvlab's cache, or None when ``UVLAB_CACHE=off``."""
    env = os.environ.get("UVLAB_CACHE")
    if env:
        return None if env.strip().lower() == "off" else Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"  # XDG: relative is invalid
    return base / "uvlab"


def cache_file(folder: Path) -> Path:
    """The cache file for the installed astropy-iers-data version (the table's source).

    ImportError when astropy-iers-data is not installed.
    """
    import astropy_iers_data  # 1 ms; importlib.metadata would cost 60 ms of every start

    return folder / f"iers-a-{astropy_iers_data.__version__}-v2.npz"


def save_table(table, path: Path) -> None:
    """Write ``table``'s interpolated columns and meta to ``path`` atomically."""
    arrays = {}
    for name, unit in COLUMNS.items():
        col = table[name]
        arrays[name] = np.asarray(col.to_value(unit) if unit else col)
    for key in META:
        arrays[f"meta_{key}"] = np.asarray(table.meta[key])
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".iers-", suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def read_arrays(path: Path) -> tuple[dict[str, np.ndarray], dict]:
    """The columns (in :data:`COLUMNS`' units) and meta of a cache file; ValueError if damaged."""
    with np.load(path, allow_pickle=False) as data:
        cols = {name: np.asarray(data[name]) for name in COLUMNS}
        meta = {key: data[f"meta_{key}"].item() for key in META}
    if cols["MJD"].size < 2 or not np.all(np.diff(cols["MJD"]) > 0):
        raise ValueError(f"{path}: MJD column is not increasing")
    return cols, meta


def load_table(path: Path):
    """An :class:`~astropy.utils.iers.IERS_Auto` table rebuilt from a cache file."""
    import astropy.units as u

    cols, meta = read_arrays(path)
    cols = {n: cols[n] * u.Unit(unit) if unit else cols[n] for n, unit in COLUMNS.items()}
    return _iers().IERS_Auto(cols, meta=meta)


def columns() -> dict[str, np.ndarray]:
    """The table's MJD (d), UT1_UTC (s), PM_x and PM_y (arcsec), read once per process.

    From the cache without importing astropy; on a first run (or a damaged
    cache) astropy parses its table and fills the cache; with the cache off,
    astropy's parsed table is used directly.
    """
    global _columns
    with _lock:
        if _columns is None:
            _columns = _read_columns()
        return _columns


def _read_columns() -> dict[str, np.ndarray]:
    folder = cache_dir()
    try:
        path = None if folder is None else cache_file(folder)
    except ImportError:
        path = None
    if path is not None:
        for _ in range(2):
            if path.is_file():
                try:
                    return read_arrays(path)[0]
                except (OSError, ValueError, KeyError):
                    pass  # damaged or from another layout: rebuild
            try:
                save_table(_iers().IERS_Auto.open(), path)
            except OSError:
                break
    table = _iers().IERS_Auto.open()
    return {n: np.asarray(table[n].to_value(u) if u else table[n]) for n, u in COLUMNS.items()}


def install() -> str:
    """Install astropy's Earth-orientation table from the cache, filling it if needed.

    Returns how: ``"cached"`` (read from the cache), ``"built"`` (parsed by
    astropy, then saved) or ``"astropy"`` (no usable cache: astropy's own
    table, parsed as usual). Only the first call of a process does any work.
    """
    global _state
    with _lock:
        if _state is None:
            _state = _install()
        return _state


def _install() -> str:
    folder = cache_dir()
    if folder is None:
        return "astropy"
    try:
        path = cache_file(folder)
    except ImportError:
        return "astropy"
    iers = _iers()
    if path.is_file():
        try:
            iers.earth_orientation_table.set(load_table(path))
            return "cached"
        except (OSError, ValueError, KeyError):
            pass  # damaged or from another layout: rebuild below
    table = iers.IERS_Auto.open()
    try:
        save_table(table, path)
    except OSError:
        return "astropy"
    return "built"


def reset() -> None:
    """Forget what :func:`install` and :func:`columns` did (tests).

    astropy's own table is used again.
    """
    global _state, _columns
    with _lock:
        _state = _columns = None
        _iers().earth_orientation_table.set(None)
