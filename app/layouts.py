"""Antenna layouts: the built-in arrays and user layout files (NumPy only, no astropy).

Formats (provenance of the built-in files: ``resources/arrays/README.md``):

- CASA simobserve ``.cfg``: ``# observatory=NAME``, ``# coordsys=XYZ|LOC|GEO``
  headers, then ``x y z diam [name]`` lines. XYZ: absolute ITRF metres; LOC:
  east/north/up metres about the observatory's position in :mod:`uvlab.app.sites`
  (as CASA's ``simutil.locxyz2itrf``); GEO: lon, lat (degrees), height (metres).
- simms YAML: ``centre: [lon, lat, h]``, ``antlocations``, ``size``, optional
  ``antnames``, ``subarray`` (``coord_sys: itrf`` also accepted).
- CSV of ECEF metres relative to a site (pyuvdata's HERA, MWA) or absolute.

The site (reference for ENU, hour angle, ``equatorial()``) is the LOC
observatory, else the stated position if inside the array's footprint, else
the antennas' mean (:func:`uvlab.app.sites.choose_site`).
"""

from __future__ import annotations

import functools
import importlib.resources
import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from uvlab.app import sites
from uvlab.app.sites import choose_site, ecef_to_geodetic, enu_matrix, geodetic_to_ecef
from uvlab.gpu.geometry import ecef_to_equatorial


class LayoutError(ValueError):
    """A layout file or name that cannot be read; the message names file and line."""


@dataclass(frozen=True, eq=False)
class ArrayLayout:
    """An antenna array on the Earth.

    Attributes
    ----------
    name : str
    antenna_names : tuple of str, (nant,)
    ecef : (nant, 3) float64
        Absolute ITRF positions, metres.
    dish_diameter : (nant,) float64
        Metres.
    site_lon_rad, site_lat_rad, site_height_m : float
        WGS84 geodetic position of the array's reference point.
    source : str
        File path or resource name it came from.
    subarray : (nant,) int or None
        For layouts combined from several (:func:`combine_layouts`, e.g. VLA A + D):
        the layout each antenna came from. Baselines join antennas of one subarray
        only, as the configurations were observed apart and their data joined.
    """

    name: str
    antenna_names: tuple[str, ...]
    ecef: np.ndarray
    dish_diameter: np.ndarray
    site_lon_rad: float
    site_lat_rad: float
    site_height_m: float
    source: str
    subarray: np.ndarray | None = None

    def __post_init__(self):
        ecef = np.array(self.ecef, dtype=np.float64).reshape(-1, 3)
        dish = np.broadcast_to(np.asarray(self.dish_diameter, dtype=np.float64), len(ecef)).copy()
        if len(ecef) < 2:
            raise LayoutError(f"{self.source}: a layout needs at least 2 antennas, got {len(ecef)}")
        if len(self.antenna_names) != len(ecef) or len(set(self.antenna_names)) != len(ecef):
            raise LayoutError(f"{self.source}: need {len(ecef)} unique antenna names")
        if not (np.all(np.isfinite(ecef)) and np.all(np.isfinite(dish)) and np.all(dish > 0)):
            raise LayoutError(f"{self.source}: non-finite position or non-positive dish diameter")
        check_on_earth(ecef, self.antenna_names, self.source)
        site = (self.site_lon_rad, self.site_lat_rad, self.site_height_m)
        if problem := sites.geodetic_problem(np.degrees(site[0]), np.degrees(site[1]), site[2]):
            raise LayoutError(f"{self.source}: the array's site {problem}")
        if self.subarray is not None:
            sub = np.asarray(self.subarray)
            if sub.shape != (len(ecef),) or not np.issubdtype(sub.dtype, np.integer):
                raise LayoutError(f"{self.source}: need one integer subarray per antenna")
            sub = sub.astype(np.int32)
            sub.setflags(write=False)
            object.__setattr__(self, "subarray", sub)
        ecef.setflags(write=False)
        dish.setflags(write=False)
        object.__setattr__(self, "ecef", ecef)
        object.__setattr__(self, "dish_diameter", dish)
        object.__setattr__(self, "antenna_names", tuple(str(n) for n in self.antenna_names))

    @property
    def nant(self) -> int:
        """Number of antennas."""
        return len(self.ecef)

    def site_ecef(self) -> np.ndarray:
        """(3,) ECEF of the site reference point, metres."""
        return geodetic_to_ecef(self.site_lon_rad, self.site_lat_rad, self.site_height_m)

    def enu(self) -> np.ndarray:
        """(nant, 3) east, north, up metres about the site."""
        return (self.ecef - self.site_ecef()) @ enu_matrix(self.site_lon_rad, self.site_lat_rad).T

    def geodetic(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per-antenna WGS84 (lon_rad, lat_rad, height_m), each (nant,)."""
        return ecef_to_geodetic(self.ecef)

    def equatorial(self) -> np.ndarray:
        """(nant, 3) local equatorial (Lx, Ly, Lz) metres of ``ecef − site``.

        ``uvlab.gpu.geometry.baseline_uvw(layout.equatorial(), ha, dec)`` with
        the hour angle at the site longitude gives per-antenna uvw (DESIGN §1).
        """
        return ecef_to_equatorial(self.ecef - self.site_ecef(), self.site_lon_rad)

    def baselines(self) -> tuple[np.ndarray, np.ndarray]:
        """ant1, ant2 (nbl,) int: all p < q (within one subarray), MS order (for p: for q > p)."""
        p, q = np.triu_indices(self.nant, k=1)
        if self.subarray is not None:
            keep = self.subarray[p] == self.subarray[q]
            p, q = p[keep], q[keep]
        return p.astype(np.int32), q.astype(np.int32)

    def max_baseline_m(self) -> float:
        """Longest baseline, metres (within a subarray for combined layouts)."""
        a1, a2 = self.baselines()
        return float(np.linalg.norm(self.ecef[a2] - self.ecef[a1], axis=1).max(initial=0.0))


#: Sites of combined layouts may lie this far apart at most (configurations of one array).
COMBINE_SITE_M = 100e3


def combine_layouts(layouts, name: str | None = None) -> ArrayLayout:
    """Several layouts as one observation's subarrays (APSYNSIM's combined arrays).

    Antennas keep their positions and dishes, named ``layout:antenna``; baselines
    join antennas of one layout only (:attr:`ArrayLayout.subarray`), as when a
    source is observed in VLA A and D configurations and the data are imaged
    together. The site is the first layout's; the others must lie within
    :data:`COMBINE_SITE_M` of it (LayoutError otherwise).
    """
    layouts = list(layouts)
    if len(layouts) < 2:
        raise LayoutError("combining needs at least two layouts")
    first = layouts[0]
    site = first.site_ecef()
    for lay in layouts[1:]:
        far = float(np.linalg.norm(lay.site_ecef() - site))
        if far > COMBINE_SITE_M:
            raise LayoutError(
                f"{lay.name}: its site is {far / 1e3:.0f} km from {first.name}'s; only "
                "configurations of one array (within 100 km) can be combined"
            )
    labels = [lay.name for lay in layouts]
    if len(set(labels)) < len(labels):
        labels = [f"{i + 1}.{lab}" for i, lab in enumerate(labels)]
    return ArrayLayout(
        name=name or "+".join(lay.name for lay in layouts),
        antenna_names=tuple(
            f"{lab}:{n}" for lab, lay in zip(labels, layouts) for n in lay.antenna_names
        ),
        ecef=np.concatenate([lay.ecef for lay in layouts]),
        dish_diameter=np.concatenate([lay.dish_diameter for lay in layouts]),
        site_lon_rad=first.site_lon_rad,
        site_lat_rad=first.site_lat_rad,
        site_height_m=first.site_height_m,
        source=" + ".join(lay.source for lay in layouts),
        subarray=np.concatenate([np.full(lay.nant, k) for k, lay in enumerate(layouts)]),
    )


def check_on_earth(ecef, names, source: str, lines=None, hint: str = "") -> None:
    """Refuse antenna positions that are non-finite or not near the Earth's surface.

    Parameters
    ----------
    ecef : (nant, 3) float, ITRF metres
    names : sequence of str, (nant,)
    source : str
        The file, named in the message (with the antenna's line when ``lines`` is given).
    hint : str
        Appended to the message (e.g. ``"; coordsys=XYZ is ..."``).

    Raises
    ------
    LayoutError
        For the first antenna off the Earth (:func:`uvlab.app.sites.off_earth`).
    """
    ecef = np.asarray(ecef, dtype=np.float64).reshape(-1, 3)
    bad = np.flatnonzero(sites.off_earth(ecef))
    if bad.size:
        i = int(bad[0])
        where = f"{source}:{lines[i]}" if lines is not None else source
        more = f"; {bad.size} of {len(ecef)} antennas are off the Earth" if bad.size > 1 else ""
        problem = sites.position_problem(ecef[i])
        raise LayoutError(f"{where}: antenna {names[i]} {problem}{more}{hint}")


def _check_local(xyz, names, source: str, lines, what: str) -> None:
    """Refuse local offsets (metres about a site) that are non-finite or far beyond any array."""
    reach = sites.geocentric_radius(xyz)
    bad = np.flatnonzero(~np.isfinite(reach) | (reach > sites.MAX_LOCAL_OFFSET_M))
    if bad.size:
        i = int(bad[0])
        raise LayoutError(
            f"{source}:{lines[i]}: antenna {names[i]} is {reach[i] / 1e3:.6g} km from the site; "
            f"{what} must lie within {sites.MAX_LOCAL_OFFSET_M / 1e3:.0f} km of it"
        )


def _check_site(site_deg, where: str, what: str) -> None:
    """Refuse a stated site (lon_deg, lat_deg, height_m) that is not on the Earth."""
    if problem := sites.geodetic_problem(*(float(v) for v in site_deg)):
        raise LayoutError(f"{where}: {what} {problem}")


def parse_cfg(text: str, source: str, name: str) -> ArrayLayout:
    """Read a CASA simobserve antenna list (see the module docstring)."""
    header: dict[str, tuple[str, int]] = {}
    rows, names, lines = [], [], []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("#"):
            key, eq, value = line.lstrip("#").partition("=")
            if eq and key.strip().lower() in ("observatory", "coordsys"):
                header[key.strip().lower()] = (value.strip(), lineno)
            continue
        tokens = line.split("#", 1)[0].split()
        if not tokens:
            continue
        if len(tokens) < 4:
            raise LayoutError(f"{source}:{lineno}: expected 'x y z diam [name]', got {line!r}")
        try:
            vals = [float(t) for t in tokens[:4]]
        except ValueError:
            raise LayoutError(f"{source}:{lineno}: non-numeric value in {line!r}") from None
        if not all(np.isfinite(vals)) or vals[3] <= 0:
            raise LayoutError(f"{source}:{lineno}: non-finite value or diameter <= 0 in {line!r}")
        rows.append(vals)
        names.append(tokens[4] if len(tokens) > 4 else f"A{len(rows):02d}")
        lines.append(lineno)
    if not rows:
        raise LayoutError(f"{source}: no antenna lines found")
    if "coordsys" not in header:
        raise LayoutError(f"{source}: missing '# coordsys=XYZ|LOC|GEO' header line")
    coordsys_value, cs_line = header["coordsys"]
    coordsys = (coordsys_value.split() or [""])[0].upper()
    obs_name = header.get("observatory", ("", 0))[0]
    arr = np.array(rows)
    xyz, dish = arr[:, :3], arr[:, 3]
    hint = ""
    if coordsys == "XYZ":
        ecef = xyz
        hint = "; coordsys=XYZ is absolute ITRF metres (local offsets need coordsys=LOC)"
    elif coordsys == "GEO":
        for row, lineno, ant in zip(xyz, lines, names):
            _check_site(row, f"{source}:{lineno}", f"antenna {ant}")
        ecef = geodetic_to_ecef(np.radians(xyz[:, 0]), np.radians(xyz[:, 1]), xyz[:, 2])
    elif coordsys == "LOC":
        site = sites.observatory_geodetic(obs_name)
        if site is None:
            raise LayoutError(
                f"{source}:{cs_line}: coordsys=LOC needs the position of observatory {obs_name!r}, "
                f"which {sites.why_unknown(obs_name)}. Fix: set '# observatory=' to a known one, "
                "or convert the file to coordsys=XYZ (ITRF metres) or GEO (lon lat height)."
            )
        _check_local(xyz, names, source, lines, "coordsys=LOC east/north/up offsets")
        ecef = geodetic_to_ecef(*site) + xyz @ enu_matrix(site[0], site[1])
    else:
        raise LayoutError(
            f"{source}:{cs_line}: coordsys {coordsys_value!r} is not supported "
            "(XYZ, LOC or GEO; convert UTM files to one of them)"
        )
    check_on_earth(ecef, names, source, lines, hint)
    if coordsys != "LOC":
        site = choose_site(sites.observatory_geodetic(obs_name), ecef)
    return ArrayLayout(name, tuple(names), ecef, dish, *site, source)


_FLOAT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|[-+]?(nan|inf)", re.IGNORECASE)


def _value(text: str, where: str):
    """A scalar (float if it parses, else str) or a one-line ``[a, b, ...]`` list."""
    text = text.strip()
    if text.startswith("[") != text.endswith("]"):
        raise LayoutError(f"{where}: unterminated '[' list")
    items = [t.strip().strip("'\"") for t in text.strip("[]").split(",")]
    items = [float(t) if _FLOAT.fullmatch(t) else t for t in items if t or text[:1] != "["]
    return items if text.startswith("[") else items[0]


def parse_simple_yaml(text: str, source: str) -> dict:
    """Parse the small YAML subset of simms layout files.

    Top-level ``key: value`` (scalar or one-line ``[a, b]`` list), or ``key:``
    followed by ``- item`` lines (a list) or indented ``sub: value`` lines (a map).
    ``out["_lines"][key]`` holds the line number of each item of a block list.
    """
    out: dict = {"_lines": {}}
    current = None
    lines = text.splitlines()
    for lineno, raw in enumerate(lines, start=1):
        where = f"{source}:{lineno}"
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if stripped.startswith("- ") or stripped == "-":
            if current is None or not isinstance(out[current], list):
                raise LayoutError(f"{where}: list item outside a list")
            item = stripped[1:].strip()
            if not item or item.startswith("-"):
                raise LayoutError(f"{where}: nested block lists unsupported; write '- [a, b]'")
            out[current].append(_value(item, where))
            out["_lines"].setdefault(current, []).append(lineno)
            continue
        key, colon, rest = stripped.partition(":")
        if not colon:
            raise LayoutError(f"{where}: expected 'key: value', got {stripped!r}")
        if indent and current is not None and isinstance(out[current], dict):
            out[current][key.strip()] = _value(rest, where)
        elif indent:
            raise LayoutError(f"{where}: unexpected indentation")
        elif rest.strip():
            out[key.strip()], current = _value(rest, where), None
        else:
            current = key.strip()
            nxt = next((ln for ln in lines[lineno:] if ln.split("#")[0].strip()), "")
            out[current] = [] if nxt.lstrip().startswith("-") else {}
    return out


def parse_geodetic_yaml(text: str, source: str, name: str, subarray: str | None = None):
    """Read a simms layout YAML (geodetic or ITRF), optionally one named subarray."""
    doc = parse_simple_yaml(text, source)
    locs = doc.get("antlocations")
    if not isinstance(locs, list) or not locs:
        raise LayoutError(f"{source}: no 'antlocations' list")
    lines = doc["_lines"].get("antlocations", [0] * len(locs))
    for i, row in enumerate(locs):
        if not isinstance(row, list) or len(row) != 3 or not all(type(v) is float for v in row):
            raise LayoutError(
                f"{source}:{lines[i]}: antlocations entry {i} is not [a, b, c] numbers"
            )
        if not np.all(np.isfinite(row)):
            raise LayoutError(f"{source}:{lines[i]}: antlocations entry {i} is not finite: {row}")
    arr = np.array(locs, dtype=np.float64)
    names = doc.get("antnames") or [f"ANT{i:03d}" for i in range(len(arr))]
    size = doc.get("size", "missing")
    if isinstance(size, str) or np.shape(size) not in ((), (len(arr),)) or len(names) != len(arr):
        raise LayoutError(f"{source}: 'size' or 'antnames' missing or not matching antlocations")
    dish = np.broadcast_to(np.asarray(size, dtype=np.float64), len(arr))
    frame = str(doc.get("coord_sys", "geodetic")).lower()
    centre = doc.get("centre")
    if centre is not None and (
        not isinstance(centre, list)
        or len(centre) != 3
        or not all(type(v) is float for v in centre)
    ):
        raise LayoutError(f"{source}: 'centre' is not [a, b, c] numbers: {centre!r}")
    if frame == "geodetic":
        for i, row in enumerate(arr):
            _check_site(row, f"{source}:{lines[i]}", f"antlocations entry {i}")
        if centre is not None:
            _check_site(centre, source, "'centre'")
        ecef = geodetic_to_ecef(np.radians(arr[:, 0]), np.radians(arr[:, 1]), arr[:, 2])
        site = None if centre is None else (*np.radians(centre[:2]), float(centre[2]))
    elif frame == "itrf":
        ecef = arr
        if centre is not None and (problem := sites.position_problem(centre)):
            raise LayoutError(f"{source}: 'centre' {problem}")
        site = None if centre is None else tuple(float(v) for v in ecef_to_geodetic(centre))
    else:
        raise LayoutError(f"{source}: unknown coord_sys {frame!r} (geodetic or itrf)")
    check_on_earth(ecef, names, source, lines)
    site = choose_site(site, ecef)
    if subarray is not None:
        members = (doc.get("subarray") or {}).get(subarray)
        if not isinstance(members, list):
            raise LayoutError(f"{source}: no subarray {subarray!r}")
        index = {n: i for i, n in enumerate(names)}
        if missing := [m for m in members if m not in index]:
            raise LayoutError(f"{source}: subarray {subarray!r} names unknown antennas {missing}")
        sel = [index[m] for m in members]
        ecef, dish, names = ecef[sel], dish[sel], [names[i] for i in sel]
    return ArrayLayout(name, tuple(names), ecef, dish, *site, source)


def parse_ecef_csv(text: str, source: str, name: str, site_deg=None, dish_m=None):
    """Read a CSV with a header naming x, y, z (ECEF metres), the name in the first column.

    Positions are relative to ``site_deg`` = (lon_deg, lat_deg, height_m) unless
    every norm exceeds 6000 km (absolute ECEF). ``site_deg`` and ``dish_m`` may
    also come from ``# site = lon, lat, height`` and ``# dish = metres`` lines.
    """
    meta, header, names, rows, lines = {}, None, [], [], []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("#"):
            key, _, value = line.lstrip("# ").partition("=")
            meta[key.strip().lower()] = value.replace(",", " ").split()
            continue
        if not line:
            continue
        cells = [c.strip() for c in line.split(",")]
        if header is None:
            header = [c.lower() for c in cells]
            if not {"x", "y", "z"} <= set(header):
                raise LayoutError(f"{source}:{lineno}: header must name columns x, y, z")
            continue
        try:
            row = [float(cells[header.index(c)]) for c in "xyz"]
        except (ValueError, IndexError):
            raise LayoutError(f"{source}:{lineno}: bad x, y, z values in {line!r}") from None
        if not np.all(np.isfinite(row)):
            raise LayoutError(f"{source}:{lineno}: non-finite x, y, z values in {line!r}")
        rows.append(row)
        names.append(cells[0] if header[0].startswith("name") else f"ANT{len(names):03d}")
        lines.append(lineno)
    if not rows:
        raise LayoutError(f"{source}: no antenna rows")
    try:
        if dish_m is None and "dish" in meta:
            dish_m = float(meta["dish"][0])
        if site_deg is None and "site" in meta:
            site_deg = [float(meta["site"][k]) for k in range(3)]
    except (IndexError, ValueError):
        raise LayoutError(f"{source}: bad '# dish =' or '# site =' comment") from None
    xyz = np.array(rows)
    absolute = np.all(sites.geocentric_radius(xyz) > 6.0e6)
    if dish_m is None or (site_deg is None and not absolute):
        raise LayoutError(
            f"{source}: needs '# dish = metres' and, for relative ECEF, "
            "'# site = lon_deg, lat_deg, height_m' comment lines"
        )
    if site_deg is not None:
        _check_site(site_deg, source, "the site")
    if not absolute:
        _check_local(xyz, names, source, lines, "x, y, z relative to the site")
    site = None if site_deg is None else (*np.radians(site_deg[:2]), float(site_deg[2]))
    ecef = xyz if absolute else xyz + geodetic_to_ecef(*site)
    check_on_earth(ecef, names, source, lines)
    return ArrayLayout(name, tuple(names), ecef, dish_m, *choose_site(site, ecef), source)


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
#: side of a 4×4-dipole tile (1.1 m spacing).
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
    return re.sub(r"(\.geodetic)?\.(yaml|yml|cfg|csv)$", "", filename.lower())


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
