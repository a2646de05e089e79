"""A fast start for astropy's Earth-orientation table (bundled IERS-A, never downloaded).

On the first UTC → UT1 conversion of a process, astropy parses the bundled
``finals2000A.all`` (CDS text, 20 000 rows): 1.5–2.5 s, most of what a small
``uvlab simulate`` or the lab's first job spends. The columns astropy's
:class:`~astropy.utils.iers.IERS_Auto` table interpolates are saved once as
``.npz`` in the user's cache, keyed by the astropy and astropy-iers-data
versions, and later processes rebuild the same table from it in
milliseconds and install it with ``iers.earth_orientation_table.set``.

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
from astropy.utils import iers

# Never download (no network here, nor in CI), and never judge the bundled tables
# stale by the wall clock: with auto_max_age = None astropy neither warns that the
# leap-second file expired nor refuses UT1 predictions older than 30 days.
iers.conf.auto_download = False
iers.conf.auto_max_age = None

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


def cache_dir() -> Path | None:
    """The folder of uvlab's cache, or None when ``UVLAB_CACHE=off``."""
    env = os.environ.get("UVLAB_CACHE")
    if env:
        return None if env.strip().lower() == "off" else Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"  # XDG: relative is invalid
    return base / "uvlab"


def cache_file(folder: Path) -> Path:
    """The cache file for the installed astropy and astropy-iers-data versions."""
    import astropy
    import astropy_iers_data

    tag = f"{astropy.__version__}-{astropy_iers_data.__version__}"
    return folder / f"iers-a-{tag}.npz"


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


def load_table(path: Path):
    """An :class:`~astropy.utils.iers.IERS_Auto` table rebuilt from a cache file."""
    import astropy.units as u

    with np.load(path, allow_pickle=False) as data:
        cols = {
            name: (data[name] * u.Unit(unit) if unit else data[name])
            for name, unit in COLUMNS.items()
        }
        meta = {key: data[f"meta_{key}"].item() for key in META}
    if cols["MJD"].size < 2 or not np.all(np.diff(cols["MJD"].value) > 0):
        raise ValueError(f"{path}: MJD column is not increasing")
    return iers.IERS_Auto(cols, meta=meta)


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
    """Forget what :func:`install` did (tests); astropy's own table is used again."""
    global _state
    with _lock:
        _state = None
        iers.earth_orientation_table.set(None)
