"""Layout files: the parsers of the three antenna-list formats (NumPy and PyYAML, no astropy).

Formats (provenance of the built-in files: ``resources/arrays/README.md``):

- CASA simobserve ``.cfg``: ``# observatory=NAME``, ``# coordsys=XYZ|LOC|GEO``
  headers, then ``x y z diam [name]`` lines. XYZ: absolute ITRF metres; LOC:
  east/north/up metres about the observatory's position in :mod:`uvlab.app.observing.sites`
  (as CASA's ``simutil.locxyz2itrf``); GEO: lon, lat (degrees), height (metres).
- simms YAML (read by PyYAML's safe loader): ``centre: [lon, lat, h]``,
  ``antlocations``, ``size``, optional ``antnames``, ``subarray``
  (``coord_sys: itrf`` also accepted).
- CSV of ECEF metres relative to a site (pyuvdata's HERA, MWA) or absolute.

The site (reference for ENU, hour angle, ``equatorial()``) is the LOC
observatory, else the stated position if inside the array's footprint, else
the antennas' mean (:func:`uvlab.app.observing.sites.choose_site`).

Each parser returns an :class:`~uvlab.app.observing.array_layout.ArrayLayout` or raises
:class:`~uvlab.app.observing.array_layout.LayoutError` naming the file and line.
"""

from __future__ import annotations

import re

import numpy as np
import yaml

from uvlab.app.observing import sites
from uvlab.app.observing.array_layout import ArrayLayout, LayoutError, check_on_earth
from uvlab.app.observing.sites import choose_site, ecef_to_geodetic, enu_matrix, geodetic_to_ecef


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


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader that also reads ``1e6``, ``inf`` and ``nan`` as floats.

    YAML 1.1 (PyYAML) reads ``6.4e6`` and ``1e300`` as strings; simms files and
    uvlab's former parser take them as numbers, as YAML 1.2 does.
    """


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^[-+]?\.?(inf|nan)$", re.IGNORECASE),
    list("-+0123456789.iInN"),
)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_triple(value) -> bool:
    return isinstance(value, list) and len(value) == 3 and all(_is_number(v) for v in value)


def read_yaml(text: str, source: str) -> tuple[dict, dict[str, list[int]]]:
    """Parse a simms layout YAML file with PyYAML's safe loader.

    Returns
    -------
    doc : dict
        The top-level mapping.
    lines : dict of str to list of int
        ``lines[key]`` holds the line number of each item of a top-level list.

    Raises
    ------
    LayoutError
        Not YAML, or not a mapping at the top (message names the file and line).
    """
    try:
        root = yaml.compose(text, Loader=_Loader)
        doc = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise LayoutError(f"{where}: not valid YAML: {problem}") from None
    if not isinstance(doc, dict):
        raise LayoutError(f"{source}: expected 'key: value' lines at the top level")
    lines = {
        key.value: [item.start_mark.line + 1 for item in value.value]
        for key, value in root.value
        if isinstance(value, yaml.SequenceNode)
    }
    return doc, lines


def parse_geodetic_yaml(text: str, source: str, name: str, subarray: str | None = None):
    """Read a simms layout YAML (geodetic or ITRF), optionally one named subarray."""
    doc, item_lines = read_yaml(text, source)
    locs = doc.get("antlocations")
    if not isinstance(locs, list) or not locs:
        raise LayoutError(f"{source}: no 'antlocations' list")
    lines = item_lines["antlocations"]
    for i, row in enumerate(locs):
        if not _is_triple(row):
            raise LayoutError(
                f"{source}:{lines[i]}: antlocations entry {i} is not [a, b, c] numbers"
            )
        if not np.all(np.isfinite(row)):
            raise LayoutError(f"{source}:{lines[i]}: antlocations entry {i} is not finite: {row}")
    arr = np.array(locs, dtype=np.float64)
    names = [str(n) for n in doc.get("antnames") or [f"ANT{i:03d}" for i in range(len(arr))]]
    size = doc.get("size")
    sizes = size if isinstance(size, list) else [size]
    if (
        not all(_is_number(v) for v in sizes)
        or np.shape(size) not in ((), (len(arr),))
        or len(names) != len(arr)
    ):
        raise LayoutError(f"{source}: 'size' or 'antnames' missing or not matching antlocations")
    dish = np.broadcast_to(np.asarray(size, dtype=np.float64), len(arr))
    frame = str(doc.get("coord_sys", "geodetic")).lower()
    centre = doc.get("centre")
    if centre is not None and not _is_triple(centre):
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
        subarrays = doc.get("subarray")
        members = subarrays.get(subarray) if isinstance(subarrays, dict) else None
        if not isinstance(members, list):
            raise LayoutError(f"{source}: no subarray {subarray!r}")
        index = {n: i for i, n in enumerate(names)}
        members = [str(m) for m in members]
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
