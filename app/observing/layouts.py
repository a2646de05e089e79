"""Antenna layouts: the built-in arrays and user layout files (NumPy only, no astropy).

:func:`load_layout` reads a user layout file, a built-in layout by name
(:func:`list_layouts`), or several joined by ``+``. The parts live beside it:

- :mod:`uvlab.app.observing.array_layout`: the :class:`ArrayLayout` model, its checks
  and :func:`combine_layouts`;
- :mod:`uvlab.app.observing.layout_files`: the parsers of the file formats (CASA ``.cfg``,
  simms YAML, ECEF CSV) and how a layout's site is chosen.

Their public names are importable from here too.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
from pathlib import Path
from typing import NamedTuple

from uvlab.app.observing.array_layout import ArrayLayout, LayoutError, combine_layouts
from uvlab.app.observing.layout_files import (
    parse_cfg,
    parse_ecef_csv,
    parse_geodetic_yaml,
)

__all__ = [
    "ArrayLayout",
    "LayoutError",
    "combine_layouts",
    "list_layouts",
    "load_layout",
    "parse_cfg",
    "parse_ecef_csv",
    "parse_geodetic_yaml",
]


class _Builtin(NamedTuple):
    file: str
    subarray: str | None = None
    site_deg: tuple[float, float, float] | None = None  # CSV only
    dish_m: float | None = None  # CSV only


#: Built-in layouts; every resource file has one (its stem also works).
#: "meerkat" is the real 64-dish array (13.5 m) from the SKA-Mid file; CASA's
#: meerkat.cfg holds an older 80-dish design ("meerkat.design80"). HERA's site:
#: pyuvdata's telescope location; MWA's: pyuvdata's and astropy's ``of_site('mwa')``
#: (−26°42′11.94986″, 116°40′14.93485″, 377.827 m). MWA's "dish" is the 4.4 m
#: side of a 4×4-dipole tile (1.1 m spacing). LOFAR: HBA stations, "core" = the 48
#: core sub-stations, "full" = those and the 14 remote stations (no international).
#: Provenance of every file: its header and ``resources/arrays/README.md``.
_BUILTINS: dict[str, _Builtin] = {
    "meerkat": _Builtin("skamid.geodetic.yaml", "meerkat"),
    "meerkat-plus": _Builtin("skamid.geodetic.yaml", "meerkat-plus"),
    "meerkat.design80": _Builtin("meerkat.cfg"),
    "skamid": _Builtin("skamid.geodetic.yaml"),
    "skamid-aastar": _Builtin("skamid.geodetic.yaml", "skamid-aastar"),
    "kat-7": _Builtin("kat-7.geodetic.yaml"),
    **{f"vla.{c}": _Builtin(f"vla.{c}.cfg") for c in "abcd"},
    "vlba": _Builtin("vlba.cfg"),
    "wsrt": _Builtin("WSRT.cfg"),
    "atca.6a": _Builtin("atca_6a.cfg"),
    "atca.750a": _Builtin("atca_750a.cfg"),
    **{f"alma.cycle12.{c}": _Builtin(f"alma.cycle12.{c}.cfg") for c in ("1", "5", "10")},
    "sma.compact": _Builtin("sma.compact.cfg"),
    "sma.extended": _Builtin("sma.extended.cfg"),
    "ngvla": _Builtin("ngvla-revD.main.cfg"),
    "hera": _Builtin("hera_ant_pos.csv", None, (21.428303826863, -30.721526120689, 1051.69), 14.0),
    "mwa": _Builtin("mwa_ant_pos.csv", None, (116.670815236111, -26.703319405556, 377.827), 4.4),
    "lofar.core": _Builtin("lofar.itrf.yaml", "core"),
    "lofar.full": _Builtin("lofar.itrf.yaml"),
    "askap": _Builtin("askap.itrf.yaml"),
    "gmrt": _Builtin("gmrt.cfg"),
    "skalow": _Builtin("skalow.geodetic.yaml"),
}


def list_layouts() -> list[str]:
    """Names of the built-in layouts (file stems are accepted by :func:`load_layout` too)."""
    return list(_BUILTINS)


def _parse(text: str, suffix: str, source: str, name: str, spec: _Builtin) -> ArrayLayout:
    suffix = suffix.lower()
    if suffix == ".cfg":
        return parse_cfg(text, source, name)
    if suffix in (".yaml", ".yml"):
        return parse_geodetic_yaml(text, source, name, spec.subarray)
    if suffix == ".csv":
        return parse_ecef_csv(text, source, name, spec.site_deg, spec.dish_m)
    raise LayoutError(f"{source}: unknown layout format {suffix!r} (.cfg, .yaml, .csv)")


def _stem(filename: str) -> str:
    return re.sub(r"(\.geodetic|\.itrf)?\.(yaml|yml|cfg|csv)$", "", filename.lower())


def _builtin_key(key: str) -> str | None:
    if key in _BUILTINS:
        return key
    for name, spec in _BUILTINS.items():
        low = spec.file.lower()
        if spec.subarray is None and key in (low, _stem(low), low.rsplit(".", 1)[0]):
            return name
    return None


def load_layout(name_or_path: str | Path) -> ArrayLayout:
    """A user layout file (an existing path wins), or a built-in layout by name or file stem.

    Names joined by ``+`` (``vla.a+vla.d``) are combined (:func:`combine_layouts`).

    Raises
    ------
    LayoutError
        Unknown name, missing file, or a bad file (message names file and line).
    """
    path = Path(name_or_path).expanduser()
    if not path.is_file() and "+" in str(name_or_path):  # "vla.a+vla.d": combined
        parts = [part.strip() for part in str(name_or_path).split("+")]
        if any(not part for part in parts):
            raise LayoutError(f"{name_or_path!r}: an empty name beside '+'")
        return combine_layouts([load_layout(part) for part in parts])
    if path.is_file():
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise LayoutError(f"{path}: cannot read the layout file: {exc.strerror}") from None
        return _parse(text, path.suffix, str(path), _stem(path.name), _Builtin(path.name))
    key = _builtin_key(str(name_or_path).strip().lower())
    if key is None:
        if "/" in str(name_or_path) or path.suffix.lower() in (".cfg", ".yaml", ".yml", ".csv"):
            raise LayoutError(f"{name_or_path}: no such layout file")
        raise LayoutError(f"unknown layout {name_or_path!r}; built-in: {', '.join(_BUILTINS)}")
    return _builtin_layout(key)


@functools.cache
def _builtin_layout(key: str) -> ArrayLayout:
    """A built-in layout, parsed once per process (an ArrayLayout is immutable: its
    arrays are read-only), so a job or a GUI check does not re-read the file (≈ 35 ms
    for MeerKAT's YAML)."""
    spec = _BUILTINS[key]
    text = importlib.resources.files("uvlab.resources.arrays").joinpath(spec.file).read_text()
    return _parse(text, Path(spec.file).suffix, f"uvlab.resources.arrays/{spec.file}", key, spec)
