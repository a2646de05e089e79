"""The array layout model: :class:`ArrayLayout`, its checks, and combined layouts (NumPy only).

An :class:`ArrayLayout` holds absolute ITRF antenna positions, dishes and the
array's site; it refuses positions off the Earth (:func:`check_on_earth`).
:func:`combine_layouts` joins configurations of one array as subarrays. The
files and names they are read from: :mod:`uvlab.app.observing.layout_files`,
:mod:`uvlab.app.observing.layouts`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.app.observing import sites
from uvlab.app.observing.sites import ecef_to_geodetic, enu_matrix, geodetic_to_ecef
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
        For the first antenna off the Earth (:func:`uvlab.app.observing.sites.off_earth`).
    """
    ecef = np.asarray(ecef, dtype=np.float64).reshape(-1, 3)
    bad = np.flatnonzero(sites.off_earth(ecef))
    if bad.size:
        i = int(bad[0])
        where = f"{source}:{lines[i]}" if lines is not None else source
        more = f"; {bad.size} of {len(ecef)} antennas are off the Earth" if bad.size > 1 else ""
        problem = sites.position_problem(ecef[i])
        raise LayoutError(f"{where}: antenna {names[i]} {problem}{more}{hint}")
