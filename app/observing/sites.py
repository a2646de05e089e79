"""Earth positions: WGS84 geodesy and the reference positions of known observatories.

Provenance: every observatory position below is copied from CASA's ``Observatories`` table
(``geodetic/Observatories`` in the casacore data, as shipped inside the
python-casacore 3.x wheel: ``casacore/data/geodetic/Observatories``), read
with ``casacore.tables`` on 2026-11-21. The table has two kinds of rows:

- ``Type = WGS84``: Long, Lat (degrees) and Height (metres) are geodetic WGS84
  and are copied here as (lon_deg, lat_deg, height_m);
- ``Type = ITRF``: the authoritative values are the X, Y, Z columns (metres);
  the table's Long/Lat/Height are then geocentric spherical (height = radius),
  so we copy X, Y, Z and convert them with :func:`ecef_to_geodetic`.

The ``VLBA`` and ``EVN`` rows hold the Earth's centre: those arrays have no
single reference position, so they are listed in :data:`NO_FIXED_SITE`.
``SKA-Mid`` is spelled ``SKA-MID`` in the table; lookups are case-insensitive
and accept the aliases in :data:`_ALIASES`.

NumPy and ERFA (``pyerfa``), no astropy: the GPU machine imports this through the
layouts. The geodesy is tested against astropy ``EarthLocation`` in
tests/app/observing/test_layouts.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import erfa
import numpy as np

_ERFA_WGS84 = 1  #: ERFA's reference-ellipsoid number for WGS84

#: Geocentric radius, metres, that an antenna or an array's site may have: WGS84's
#: polar radius (6356.752 km) less 56 km up to its equatorial radius (6378.137 km)
#: plus 72 km, room for any place on the ground or in the air above it.
EARTH_RADIUS_RANGE_M = (6.30e6, 6.45e6)
#: Farthest a local (east/north/up, or relative ECEF) offset from a site may reach, metres.
MAX_LOCAL_OFFSET_M = 1.0e6

#: WGS84 rows: name → (lon_deg, lat_deg, height_m), and the table's Source column.
_WGS84: dict[str, tuple[tuple[float, float, float], str]] = {
    "ALMA": ((-67.754929, -23.022886, 5056.8), "MMA Memo 261, Radford"),
    "ACA": ((-67.7548766583333, -23.02781575555555, 5056.8), "Remy Indebetouw"),
    "APEX": ((-67.7592, -23.0057, 5105.0), "Dirk Muders"),
    "ASKAP": ((116.6588, -26.7041, 125.0), "Tim Cornwell"),
    "ATA": ((-121.472, 40.8174, 1043.0), "Mel Wright"),
    "CARMA": ((-118.1416424, 37.28038, 2196.265), "Peter Teuben"),
    "DSA2000": ((-116.261446, 38.467971, 1700.0), "Greg Hallinan, CAS-14049"),
    "EFFELSBERG": ((6.88361, 50.52483, 416.70726), "Alex Krauss 2011"),
    "GBT": ((-79.839833, 38.433119, 824.595), "Top of Az track (Mark McKinnon)"),
    "GMRT": ((74.0499722, 19.0906528, 640.0), "Wim Brouw"),
    "HERA": ((21.4280555, -30.7213889, 1500.0), "Kumar Golap, Danny Jacobs"),
    "KAT-7": ((21.4439, -30.7132, 1038.0), "Jasper Horrell"),
    "LWA1": ((-107.627716, 34.0689002, 2124.2642), "Jake Hartman"),
    "MEERKAT": ((21.4439, -30.7132, 1050.0), "Jasper Horrell"),
    "MWA": ((116.67081524, -26.7033194, 377.83), "CAS-7024"),
    "NOEMA": ((5.907916837, 44.633889452, 2560.0), "Edwige Chapillon and Kumar Golap"),
    "OVRO-LWA": ((-118.2816667, 37.23977727, 1183.48), "Casey Law"),
    "PAPER_SA": ((21.4280555, -30.7213889, 1500.0), "Kumar Golap, Danny Jacobs"),
    "SKA-LOW": ((116.7644482, -26.82472208, 365.0), "SKAO Science Operations"),
    "SKA-MID": ((21.44380263, -30.71292499, 1095.967), "SKAO Science Operations"),
    "WSRT": ((6.604166666666665, 52.916916666666665, 5.0), "edit"),
}

#: ITRF rows: name → (X, Y, Z) metres, and the table's Source column.
_ITRF: dict[str, tuple[tuple[float, float, float], str]] = {
    "ATCA": ((-4750915.837, 2792906.182, -3200483.747), "(none)"),
    "E-MERLIN": ((3838350.0, -174080.0, 5073260.0), "(none)"),
    "EVLA": ((-1601190.0, -5041980.0, 3554880.0), "1995, from VLAfiller thru BGC"),
    "LOFAR": ((3826577.11, 461022.9, 5064892.758), "MichielBrentjens (ASTRON)"),
    "NGVLA": (
        (-1603106.545388934, -5041106.546911111, 3555263.8775240895),
        "Crystal Price, Chris Carilli",
    ),
    "SMA": ((-5464555.493, -2492927.989, 2150797.176), "Lat,Long: K.Young SMA control; X,Y,Z: EHT"),
    "VLA": (
        (-1601185.3650000007, -5041977.547, 3554875.8700000006),
        "1995, from VLAfiller thru BGC",
    ),
}

#: Names in the table whose row is the Earth's centre (no single site).
NO_FIXED_SITE = frozenset({"VLBA", "EVN"})

_ALIASES = {
    "SKAMID": "SKA-MID",
    "SKA_MID": "SKA-MID",
    "SKA1-MID": "SKA-MID",
    "SKALOW": "SKA-LOW",
    "SKA_LOW": "SKA-LOW",
    "KAT7": "KAT-7",
    "MKAT": "MEERKAT",
    "JVLA": "VLA",
    "WESTERBORK": "WSRT",
    "EMERLIN": "E-MERLIN",
    "MERLIN2": "E-MERLIN",
    "MWA32T": "MWA",
    "PAPER": "PAPER_SA",
}


@dataclass(frozen=True)
class Observatory:
    """One row of the observatory table.

    Attributes
    ----------
    name : str
        Canonical (upper-case) name.
    frame : str
        ``"WGS84"``: ``values`` are (lon_deg, lat_deg, height_m);
        ``"ITRF"``: ``values`` are (X, Y, Z) metres.
    values : tuple of float
    source : str
        The ``Source`` column of CASA's table (who supplied the position).
    """

    name: str
    frame: str
    values: tuple[float, float, float]
    source: str


def canonical_name(name: str) -> str:
    """Upper-case, alias-resolved observatory name (not checked against the table)."""
    key = name.strip().upper()
    return _ALIASES.get(key, key)


def find_observatory(name: str) -> Observatory | None:
    """Look up an observatory by name (case-insensitive, aliases accepted).

    Returns
    -------
    Observatory or None
        None when the name is unknown or has no fixed site (see
        :data:`NO_FIXED_SITE`).
    """
    key = canonical_name(name)
    if key in _WGS84:
        values, source = _WGS84[key]
        return Observatory(key, "WGS84", values, source)
    if key in _ITRF:
        values, source = _ITRF[key]
        return Observatory(key, "ITRF", values, source)
    return None


def why_unknown(name: str) -> str:
    """Why ``name`` has no position here (for error messages)."""
    if canonical_name(name) in NO_FIXED_SITE:
        return "has no single position (an array spread over continents)"
    return f"is not in uvlab's table (known: {', '.join(known_observatories())})"


def known_observatories() -> list[str]:
    """Sorted canonical names of the observatories with a fixed position."""
    return sorted({*_WGS84, *_ITRF})


# --------------------------------------------------------------------------- WGS84 geodesy
def geodetic_to_ecef(lon_rad, lat_rad, height_m):
    """WGS84 geodetic (λ, φ, h) → ECEF (X, Y, Z) metres (``erfa.gd2gc``).

    Returns
    -------
    (..., 3) float64
    """
    lon, lat, h = np.broadcast_arrays(
        *(np.asarray(a, dtype=np.float64) for a in (lon_rad, lat_rad, height_m))
    )
    with np.errstate(all="ignore"):
        return erfa.gd2gc(_ERFA_WGS84, lon, lat, h)


def ecef_to_geodetic(xyz):
    """ECEF (..., 3) metres → WGS84 (lon_rad, lat_rad, height_m), each (...,) (``erfa.gc2gd``).

    Non-finite positions give NaN (ERFA alone would put them at a pole).
    """
    xyz = np.asarray(xyz, dtype=np.float64)
    with np.errstate(all="ignore"):
        lon, lat, h = erfa.gc2gd(_ERFA_WGS84, xyz)
    bad = ~np.all(np.isfinite(xyz), axis=-1)
    return tuple(np.where(bad, np.nan, v) for v in (lon, lat, h))


def geocentric_radius(xyz) -> np.ndarray:
    """|xyz| of (..., 3) ECEF metres, without overflow for absurd values (e.g. 1e300)."""
    xyz = np.asarray(xyz, dtype=np.float64)
    return np.hypot(np.hypot(xyz[..., 0], xyz[..., 1]), xyz[..., 2])


def off_earth(xyz) -> np.ndarray:
    """(...,) bool: True where an ECEF position is non-finite or not near the Earth's surface.

    Near the surface means a geocentric radius within :data:`EARTH_RADIUS_RANGE_M`.
    """
    xyz = np.asarray(xyz, dtype=np.float64)
    r = geocentric_radius(xyz)
    lo, hi = EARTH_RADIUS_RANGE_M
    return ~np.all(np.isfinite(xyz), axis=-1) | ~((r >= lo) & (r <= hi))


def position_problem(xyz) -> str | None:
    """Why one ECEF position (metres) is not on the Earth, as a phrase; None if it is."""
    xyz = np.asarray(xyz, dtype=np.float64).reshape(3)
    if not np.all(np.isfinite(xyz)):
        return f"has a non-finite position {_triple(xyz)}"
    if not off_earth(xyz):
        return None
    lo, hi = EARTH_RADIUS_RANGE_M
    return (
        f"is {float(geocentric_radius(xyz)) / 1e3:.6g} km from the Earth's centre; "
        f"a position on the Earth is {lo / 1e3:.0f}–{hi / 1e3:.0f} km from it"
    )


def geodetic_problem(lon_deg: float, lat_deg: float, height_m: float) -> str | None:
    """Why WGS84 (lon, lat in degrees, height in metres) is not on the Earth; None if it is."""
    values = np.array([lon_deg, lat_deg, height_m], dtype=np.float64)
    if not np.all(np.isfinite(values)):
        return f"has a non-finite longitude, latitude or height {_triple(values)}"
    if abs(lat_deg) > 90.0:
        return f"has latitude {lat_deg:g}°, outside [-90°, 90°]"
    if abs(lon_deg) > 360.0:
        return f"has longitude {lon_deg:g}°, outside [-360°, 360°]"
    r = geocentric_radius(geodetic_to_ecef(np.radians(lon_deg), np.radians(lat_deg), height_m))
    lo, hi = EARTH_RADIUS_RANGE_M
    if not lo <= r <= hi:
        return f"has height {height_m:.6g} m: not on the Earth's surface"
    return None


def _triple(values) -> str:
    return "(" + ", ".join(f"{float(v):.6g}" for v in values) + ")"


def enu_matrix(lon_rad: float, lat_rad: float) -> np.ndarray:
    """(3, 3) rotation whose rows are the east, north, up unit vectors in ECEF."""
    sl, cl = np.sin(lon_rad), np.cos(lon_rad)
    sp, cp = np.sin(lat_rad), np.cos(lat_rad)
    return np.array([[-sl, cl, 0.0], [-sp * cl, -sp * sl, cp], [cp * cl, cp * sl, sp]])


def observatory_geodetic(name: str) -> tuple[float, float, float] | None:
    """(lon_rad, lat_rad, height_m) of a known observatory, or None."""
    obs = find_observatory(name)
    if obs is None:
        return None
    if obs.frame == "ITRF":
        lon, lat, h = ecef_to_geodetic(np.array(obs.values))
        return float(lon), float(lat), float(h)
    lon_deg, lat_deg, h = obs.values
    return float(np.radians(lon_deg)), float(np.radians(lat_deg)), float(h)


def choose_site(site, ecef) -> tuple[float, float, float]:
    """The array's reference point: ``site`` if it lies within the footprint, else the mean.

    Parameters
    ----------
    site : (lon_rad, lat_rad, height_m) or None
        A stated reference position (observatory, file centre).
    ecef : (nant, 3) float
        Antenna positions, metres.

    Returns
    -------
    (lon_rad, lat_rad, height_m)
        ``site`` when it is no farther from the mean antenna position than the
        farthest antenna is; otherwise the geodetic lon/lat of the mean antenna
        position with the mean antenna height.
    """
    ecef = np.asarray(ecef, dtype=np.float64)
    mean = ecef.mean(axis=0)
    reach = np.max(np.linalg.norm(ecef - mean, axis=1))
    if site is not None and np.linalg.norm(geodetic_to_ecef(*site) - mean) <= reach:
        return tuple(float(v) for v in site)
    lon, lat, _ = ecef_to_geodetic(mean)
    return float(lon), float(lat), float(np.mean(ecef_to_geodetic(ecef)[2]))
