"""Whether an array's site sees the phase centre above its elevation limit, and where it would.

- :func:`transit_elevation_deg`, :func:`elevation_deg`, :func:`min_elevation_deg`,
  :func:`visible_fraction`: the geometry at a latitude;
- :func:`field_visibility`: one line when an observation's field is below the
  limit for all or most of its hour-angle range;
- :func:`visible_declination` / :func:`visible_declination_for`: the nearest
  declination seen for the whole range; :func:`with_visible_declination` for a
  change of array (the window and :mod:`uvlab.app.lab.lessons`).
"""

from __future__ import annotations

import numpy as np

from uvlab.app.observing.observation import ObservationSpec, _wrap, field_ha_range_h, layout_of

# ------------------------------------------------------------- field visibility
# Whether the site sees the phase centre above the elevation limit over the hour-angle
# range, from the spherical triangle (geometric elevation, J2000 declination):
#   sin e = sinφ·sinδ + cosφ·cosδ·cos H.
# Over an hour-angle range, cosφ·cosδ ≥ 0 makes the lowest elevation the one at the
# smallest cos H of the range, so the declinations that stay above the limit for all
# of it solve  R·cos(δ − δ*) ≥ sin(limit)  with  R·(cos δ*, sin δ*) = (cosφ·c_min, sinφ).

#: Declinations chosen by :func:`visible_declination` keep this far inside the boundary:
#: the simulation uses the declination of date (precession moves a J2000 declination by
#: up to 20″ a year) and each antenna's own latitude.
VISIBLE_MARGIN_DEG = 0.5
#: :func:`field_visibility` speaks when more than this fraction of the range is too low.
MOSTLY_BELOW = 0.5


def transit_elevation_deg(lat_deg, dec_deg):
    """Elevation (degrees) of declination ``dec_deg`` at upper transit, seen from ``lat_deg``.

    ``90° − |φ − δ|``: the highest the field ever rises at that latitude.
    """
    out = 90.0 - np.abs(np.asarray(lat_deg, dtype=np.float64) - dec_deg)
    return float(out) if out.ndim == 0 else out


def elevation_deg(lat_deg, dec_deg, ha_h):
    """Geometric elevation (degrees) of declination ``dec_deg`` at hour angle ``ha_h`` (hours)."""
    phi, dec = np.radians(lat_deg), np.radians(dec_deg)
    h = np.radians(15.0 * np.asarray(ha_h, dtype=np.float64))
    s = np.sin(phi) * np.sin(dec) + np.cos(phi) * np.cos(dec) * np.cos(h)
    out = np.degrees(np.arcsin(np.clip(s, -1.0, 1.0)))
    return float(out) if np.ndim(out) == 0 else out


def _min_cos_ha(ha_range_h) -> float:
    """The smallest cos H over the hour angles ``[start, stop]`` (hours)."""
    a, b = (np.radians(15.0 * float(h)) for h in ha_range_h)
    k = np.ceil((a - np.pi) / (2.0 * np.pi))  # the first odd multiple of π at or after a
    if np.pi + 2.0 * np.pi * k <= b:
        return -1.0
    return float(min(np.cos(a), np.cos(b)))


def min_elevation_deg(lat_deg, dec_deg, ha_range_h) -> float:
    """The lowest elevation (degrees) of ``dec_deg`` over the hour angles ``ha_range_h``."""
    c = _min_cos_ha(ha_range_h)
    phi, dec = np.radians(lat_deg), np.radians(dec_deg)
    s = np.sin(phi) * np.sin(dec) + np.cos(phi) * np.cos(dec) * c
    return float(np.degrees(np.arcsin(np.clip(s, -1.0, 1.0))))


def visible_fraction(lat_deg, dec_deg, limit_deg, ha_range_h) -> float:
    """The fraction of the hour angles ``ha_range_h`` (hours) with the field above the limit."""
    h0, h1 = (float(h) for h in ha_range_h)
    phi, dec = np.radians(lat_deg), np.radians(dec_deg)
    across = np.cos(phi) * np.cos(dec)
    along = np.sin(phi) * np.sin(dec)
    s = np.sin(np.radians(limit_deg))
    if across <= 1e-15:  # at a pole: the elevation never changes
        return 1.0 if along >= s else 0.0
    c0 = (s - along) / across  # above the limit where cos H ≥ c0
    if c0 > 1.0:
        return 0.0
    if c0 <= -1.0:
        return 1.0
    half = np.degrees(np.arccos(c0)) / 15.0  # hours either side of transit
    inside = 0.0
    for k in range(int(np.floor(h0 / 24.0)) - 1, int(np.ceil(h1 / 24.0)) + 2):
        lo, hi = max(h0, 24.0 * k - half), min(h1, 24.0 * k + half)
        inside += max(0.0, hi - lo)
    return min(1.0, inside / (h1 - h0))


def _visible_dec_intervals(lat_deg: float, limit_deg: float, ha_range_h):
    """Declination intervals (degrees) above the limit for all of ``ha_range_h`` at one latitude."""
    c = _min_cos_ha(ha_range_h)
    phi = np.radians(lat_deg)
    y, x = np.sin(phi), np.cos(phi) * c
    r = float(np.hypot(x, y))
    s = float(np.sin(np.radians(limit_deg)))
    if r < 1e-15:
        return [(-90.0, 90.0)] if s <= 0 else []
    if s / r > 1.0:
        return []
    if s / r <= -1.0:
        return [(-90.0, 90.0)]
    centre = float(np.degrees(np.arctan2(y, x)))
    half = float(np.degrees(np.arccos(s / r)))
    out = []
    for shift in (-360.0, 0.0, 360.0):
        lo, hi = max(-90.0, centre - half + shift), min(90.0, centre + half + shift)
        if lo <= hi:
            out.append((lo, hi))
    return out


def _intersect(a, b):
    out = []
    for lo1, hi1 in a:
        for lo2, hi2 in b:
            lo, hi = max(lo1, lo2), min(hi1, hi2)
            if lo <= hi:
                out.append((lo, hi))
    return sorted(out)


def visible_declination(
    lat_deg,
    dec_deg: float,
    limit_deg: float,
    ha_range_h,
    *,
    ha_offset_h=0.0,
    margin_deg: float = VISIBLE_MARGIN_DEG,
    step_deg: float = 1.0,
) -> float:
    """The declination nearest ``dec_deg`` that stays above the limit for the whole range.

    Parameters
    ----------
    lat_deg : float or (nant,) float
        Latitude of the site, or of each antenna (all must see the field).
    dec_deg : float
        The current declination; returned unchanged when it is already seen
        ``margin_deg`` inside the boundary.
    limit_deg : float
        Elevation limit.
    ha_range_h : (start, stop)
        Hour angles at the site, hours.
    ha_offset_h : float or (nant,) float
        Each antenna's hour angle minus the site's (its longitude offset / 15°).
    margin_deg, step_deg
        A new declination lies ``margin_deg`` inside the boundary and is rounded
        to ``step_deg`` (finer, to ``step_deg``/10, when the visible band is
        narrower than a step).

    Returns
    -------
    float
        Degrees. When no declination is above the limit for the whole range,
        the site's latitude rounded to ``step_deg`` (the field then transits at
        the zenith, the most that can be seen).
    """
    lats, offsets = np.broadcast_arrays(
        np.atleast_1d(np.asarray(lat_deg, dtype=np.float64)),
        np.atleast_1d(np.asarray(ha_offset_h, dtype=np.float64)),
    )
    h0, h1 = (float(h) for h in ha_range_h)
    bands = [(-90.0, 90.0)]
    for phi, dh in {(float(p), float(d)) for p, d in zip(lats, offsets)}:
        bands = _intersect(bands, _visible_dec_intervals(phi, limit_deg, (h0 + dh, h1 + dh)))
    if not bands:
        return _round(float(np.mean(lats)), step_deg)
    inner = [(lo + margin_deg, hi - margin_deg) for lo, hi in bands]
    inner = [(lo, hi) for lo, hi in inner if lo <= hi] or bands
    if any(lo <= dec_deg <= hi for lo, hi in inner):
        return float(dec_deg)
    for step in (step_deg, step_deg / 10.0):
        best = None
        for lo, hi in inner:
            near = min(max(dec_deg, lo), hi)
            up, down = np.ceil(lo / step) * step, np.floor(hi / step) * step
            if up > down + 1e-9:
                continue  # no multiple of the step inside
            pick = min(max(_round(near, step), up), down)
            if best is None or abs(pick - dec_deg) < abs(best - dec_deg):
                best = pick
        if best is not None:
            return float(round(best, 6))
    lo, hi = min(inner, key=lambda b: min(abs(b[0] - dec_deg), abs(b[1] - dec_deg)))
    return float(min(max(dec_deg, lo), hi))


def _round(value: float, step: float) -> float:
    return float(round(round(value / step) * step, 6))


def field_visibility(spec: ObservationSpec, most: float = MOSTLY_BELOW) -> str | None:
    """One line when the phase centre is below the elevation limit for all or most of the range.

    Seen from the array's site (latitude φ): the field never rises above the
    limit (transit elevation ``90° − |φ − δ|`` below it), or it is below it for
    the whole hour-angle range, or for more than ``most`` of it. None when the
    site sees it for most of the range. :func:`visible_declination_for` gives
    a declination it sees for all of it.
    """
    layout = layout_of(spec)
    lat = float(np.degrees(layout.site_lat_rad))
    dec, limit = float(spec.dec_deg), float(spec.elevation_limit_deg)
    where = f"the {limit:g}° elevation limit at {layout.name} (latitude {lat:+.1f}°)"
    top = transit_elevation_deg(lat, dec)
    if top < limit:
        return f"Dec {dec:+.1f}° never rises above {where}: it transits at {top:.1f}°"
    h0, h1 = field_ha_range_h(spec, layout)
    below = 1.0 - visible_fraction(lat, dec, limit, (h0, h1))
    if below <= most:
        return None
    span = f"the hour-angle range {h0:+.2f} h … {h1:+.2f} h"
    if below >= 1.0:
        return f"Dec {dec:+.1f}° is below {where} for all of {span} (it transits at {top:.1f}°)"
    return (
        f"Dec {dec:+.1f}° is below {where} for {100 * below:.0f} % of {span}: "
        "those rows are flagged"
    )


def visible_declination_for(spec: ObservationSpec) -> float:
    """:func:`visible_declination` for ``spec``: every antenna sees it over the whole range.

    Uses each antenna's own latitude and longitude, as the simulation flags rows.
    """
    layout = layout_of(spec)
    lon, lat, _ = layout.geodetic()
    offset_h = np.degrees(_wrap(lon - layout.site_lon_rad)) / 15.0
    return visible_declination(
        np.degrees(lat),
        float(spec.dec_deg),
        float(spec.elevation_limit_deg),
        field_ha_range_h(spec, layout),
        ha_offset_h=offset_h,
    )


def with_visible_declination(spec: ObservationSpec) -> tuple[ObservationSpec, str | None]:
    """``spec`` moved to a declination its site sees, and the line that says so.

    For a change of array: when :func:`field_visibility` finds the field too low,
    the spec at :func:`visible_declination_for`'s declination and one line
    (the problem, then the declination chosen); else ``spec`` and None.
    """
    problem = field_visibility(spec)
    if problem is None:
        return spec, None
    from dataclasses import replace

    dec = visible_declination_for(spec)
    if dec == spec.dec_deg:
        return spec, problem
    new = replace(spec, dec_deg=dec)
    layout = layout_of(spec)
    lat = float(np.degrees(layout.site_lat_rad))
    low = min_elevation_deg(lat, dec, field_ha_range_h(new, layout))
    why = (
        "which it sees for the whole range"
        if low >= spec.elevation_limit_deg
        else "where it transits at the zenith (no declination is above the limit for the "
        "whole range)"
    )
    return new, f"{problem}; Dec set to {dec:+g}°, {why}"
