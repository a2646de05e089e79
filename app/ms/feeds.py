"""How each antenna's feeds turn on the sky: ANTENNA::MOUNT and FEED::RECEPTOR_ANGLE.

Feed rotation (P-Jones, :mod:`uvlab.gpu.predict.feed_rotation`) turns the sky's frame
into the feeds' by the parallactic angle χ where the mount carries the feeds round the
sky (alt-az), by nothing where it does not (equatorial), plus the angle of the first
receptor that the FEED table gives. Other mounts (X-Y, Nasmyth, space) turn the feeds by
other angles, which uvlab does not compute: they are refused by name. A MOUNT column that
is missing or empty is taken as alt-az (what the arrays uvlab ships and most MSes are).

The FEED row of an antenna for a spectral window is the first with that SPECTRAL_WINDOW_ID,
else the first with −1 (every window); FEED_ID, TIME and INTERVAL are not looked at (one
feed per antenna, fixed in time). An antenna with no such row has receptor angle 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.app.ms.errors import MSError
from uvlab.app.ms.tables import MSTables, translated

#: MOUNT values (lower case, as CASA writes them in either case) whose feeds turn by χ.
ALT_AZ = ("alt-az", "altaz", "alt_az", "")
EQUATORIAL = ("equatorial", "equat")


@dataclass(frozen=True)
class FeedGeometry:
    """Per antenna: does its mount turn the feeds by χ, and its first receptor's angle.

    ``turns`` (nant,) bool; ``receptor`` maps a spectral window id (−1: every window)
    to (nant,) radians.
    """

    turns: np.ndarray
    receptor: dict

    def angles(self, chi, spw: int):
        """(…, nant) rotation angles of the feeds: ``chi`` (…, nant) where the mount
        turns, 0 where not, plus the receptor angle of ``spw``."""
        base = self.receptor.get(spw, self.receptor[-1])
        return np.where(self.turns, np.asarray(chi, dtype=np.float64), 0.0) + base


def mount_turns(mounts, names, path: str) -> np.ndarray:
    """(nant,) bool from MOUNT values: True for alt-az, False for equatorial; MSError else."""
    turns = []
    for mount, name in zip(mounts, names):
        m = str(mount).strip().lower()
        if m in ALT_AZ:
            turns.append(True)
        elif m in EQUATORIAL:
            turns.append(False)
        else:
            raise MSError(
                f"{path}: antenna {name} has MOUNT {str(mount)!r}: feed rotation is computed "
                "for alt-az and equatorial mounts only"
            )
    return np.array(turns, dtype=bool)


def receptor_angles(ant_ids, spw_ids, first_angle, nant: int) -> dict:
    """{spw id or −1: (nant,) first-receptor angle}: each antenna's first FEED row of that
    window, else its first row for every window (−1), else 0."""
    ant_ids, spw_ids = np.asarray(ant_ids, dtype=int), np.asarray(spw_ids, dtype=int)
    first_angle = np.asarray(first_angle, dtype=np.float64)

    def for_window(spw: int, fallback: np.ndarray) -> np.ndarray:
        out = fallback.copy()
        seen = np.zeros(nant, dtype=bool)
        for a, s, angle in zip(ant_ids, spw_ids, first_angle):
            if s == spw and 0 <= a < nant and not seen[a]:
                out[a], seen[a] = angle, True
        return out

    every = for_window(-1, np.zeros(nant))
    table = {-1: every}
    for spw in sorted(set(spw_ids.tolist()) - {-1}):
        table[spw] = for_window(spw, every)
    return table


def read_feed_geometry(ms: MSTables, names) -> FeedGeometry:
    """The :class:`FeedGeometry` of an open MS whose ANTENNA table names ``names``."""
    nant = len(names)
    ant = ms.sub("ANTENNA")
    try:
        feed = ms.sub("FEED")
    except MSError:  # no FEED table: receptor angles 0
        feed = None
    with translated(ms.path):
        mounts = ant.getcol("MOUNT") if "MOUNT" in ant.colnames() else [""] * nant
        if feed is None or feed.nrows() == 0:
            receptor = {-1: np.zeros(nant)}
        else:
            first = [np.ravel(feed.getcell("RECEPTOR_ANGLE", r))[0] for r in range(feed.nrows())]
            receptor = receptor_angles(
                feed.getcol("ANTENNA_ID"), feed.getcol("SPECTRAL_WINDOW_ID"), first, nant
            )
    return FeedGeometry(mount_turns(mounts, names, ms.path), receptor)
