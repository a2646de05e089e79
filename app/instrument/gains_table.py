"""Antenna gains from a simple text table (``--gains FILE``).

One gain per line, comma- or whitespace-separated, ``#`` starts a comment::

    # antenna  time                  freq_hz  amp    phase_deg  [feed]
    m000       *                     *        1.02   3.5
    m001       2025-03-20T10:00:00   1.40e9   0.98   -2.0       x
    m001       2025-03-20T10:00:00   1.40e9   1.01   1.0        y
    3          5.2e9                 *        1.00   10.0

- ``antenna``: a name of the array, or its index (0-based);
- ``time``: ``*`` (all times), MJD seconds (UTC, as the MS TIME column), or ISO 8601 UTC;
- ``freq_hz``: ``*`` (all channels) or Hz;
- ``amp``, ``phase_deg``: the complex gain ``amp·exp(i·phase)``, amp ≥ 0;
- ``feed`` (optional): ``x``/``r`` (first feed), ``y``/``l`` (second) or ``*`` (both,
  the default).

For each antenna and feed the rows must form a full grid of times × frequencies; gains
are interpolated linearly in time and in frequency (amplitude and phase separately:
give unwrapped phases). Every antenna of the array needs gains, every antenna named must
be in the array, and the observation's times and channels must lie inside the table's
(within half an integration): otherwise a :class:`GainsTableError` names the file and the
problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

FEEDS = {"*": (0, 1), "x": (0,), "r": (0,), "y": (1,), "l": (1,)}


class GainsTableError(ValueError):
    """A gains table that cannot be used (one line: the file and the problem)."""


@dataclass(frozen=True)
class _Grid:
    times: np.ndarray | None  # (nt,) MJD s, None for "*"
    freqs: np.ndarray | None  # (nf,) Hz, None for "*"
    amp: np.ndarray  # (nt or 1, nf or 1)
    phase_deg: np.ndarray


@dataclass(frozen=True)
class GainsTable:
    """Gains per (antenna index, feed), each on a grid of times × frequencies."""

    source: str
    grids: dict[tuple[int, int], _Grid]
    two_feeds: bool

    def evaluate(self, times_mjd_s, freq_hz, nant: int, tolerance_s: float = 0.0):
        """Complex gains: (time, ant, chan) or, when feeds differ, (time, ant, chan, 2, 2).

        Raises :class:`GainsTableError` when a time or a channel lies outside an
        antenna's table (by more than ``tolerance_s`` in time).
        """
        t = np.asarray(times_mjd_s, dtype=np.float64)
        f = np.asarray(freq_hz, dtype=np.float64)
        out = np.empty((len(t), nant, len(f), 2), dtype=np.complex128)
        for (ant, feed), grid in self.grids.items():
            amp, ph = grid.amp, grid.phase_deg
            if grid.times is not None:
                self._check_range(t, grid.times, tolerance_s, ant, "time")
                amp, ph = (_interp(t, grid.times, a, axis=0) for a in (amp, ph))
            if grid.freqs is not None:
                self._check_range(f, grid.freqs, 0.5, ant, "frequency")
                amp, ph = (_interp(f, grid.freqs, a, axis=1) for a in (amp, ph))
            g = amp * np.exp(1j * np.radians(ph))
            out[:, ant, :, feed] = np.broadcast_to(g, (len(t), len(f)))
        if not self.two_feeds:
            return out[..., 0]
        from uvlab.gpu.predict.gains import diagonal_jones

        return diagonal_jones(out)

    def _check_range(self, want, have, tol, ant, what):
        lo, hi = float(have.min()) - tol, float(have.max()) + tol
        if want.size and (want.min() < lo or want.max() > hi):
            unit = "MJD s" if what == "time" else "Hz"
            raise GainsTableError(
                f"{self.source}: the {what}s of antenna {ant} cover {have.min():.10g}–"
                f"{have.max():.10g} {unit}; the observation needs {want.min():.10g}–"
                f"{want.max():.10g} {unit}"
            )


def _interp(x, xp_, fp, axis: int):
    order = np.argsort(xp_)
    xs, fs = xp_[order], np.take(fp, order, axis=axis)
    if axis == 0:
        return np.stack([np.interp(x, xs, fs[:, j]) for j in range(fs.shape[1])], axis=1)
    return np.stack([np.interp(x, xs, fs[i]) for i in range(fs.shape[0])], axis=0)


def _time(text: str, where: str) -> float | None:
    if text == "*":
        return None
    try:
        return float(text)
    except ValueError:
        pass
    try:
        from astropy.time import Time

        return float(Time(text, format="isot", scale="utc").mjd * 86400.0)
    except Exception:
        raise GainsTableError(f"{where}: time {text!r} is not *, MJD seconds or ISO 8601") from None


def read_gains_table(path: str | Path, antenna_names) -> GainsTable:
    """Read ``path`` for an array whose antennas are ``antenna_names`` (in order)."""
    name = str(path)
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise GainsTableError(f"{name}: cannot read the gains table ({exc})") from None
    index = {n: i for i, n in enumerate(antenna_names)}
    rows: dict[tuple[int, int], dict[tuple, tuple[float, float]]] = {}
    two_feeds = False
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{name}:{lineno}"
        parts = [p for p in line.replace(",", " ").split() if p]
        if len(parts) not in (5, 6):
            raise GainsTableError(
                f"{where}: expected 'antenna time freq_hz amp phase_deg [feed]', got {line!r}"
            )
        ant_text = parts[0]
        ant = index.get(ant_text)
        if ant is None and ant_text.isdigit() and int(ant_text) < len(antenna_names):
            ant = int(ant_text)
        if ant is None:
            raise GainsTableError(f"{where}: antenna {ant_text!r} is not in the array")
        t = _time(parts[1], where)
        try:
            f = None if parts[2] == "*" else float(parts[2])
            amp, phase = float(parts[3]), float(parts[4])
        except ValueError:
            raise GainsTableError(f"{where}: freq_hz, amp and phase_deg must be numbers") from None
        if not (np.isfinite(amp) and amp >= 0 and np.isfinite(phase)):
            raise GainsTableError(f"{where}: amp must be finite and ≥ 0, phase finite")
        feed = parts[5].lower() if len(parts) == 6 else "*"
        if feed not in FEEDS:
            raise GainsTableError(f"{where}: feed {parts[5]!r} is not x, y, r, l or *")
        two_feeds |= feed != "*"
        for fi in FEEDS[feed]:
            rows.setdefault((ant, fi), {})[(t, f)] = (amp, phase)
    missing = [antenna_names[a] for a in range(len(antenna_names)) if (a, 0) not in rows]
    missing += [antenna_names[a] for a in range(len(antenna_names)) if (a, 1) not in rows]
    if missing:
        names = ", ".join(dict.fromkeys(missing))
        raise GainsTableError(f"{name}: no gains for antenna(s) {names} (every antenna needs them)")
    grids = {key: _grid(pts, name, antenna_names[key[0]]) for key, pts in rows.items()}
    return GainsTable(name, grids, two_feeds)


def _grid(points: dict, name: str, ant: str) -> _Grid:
    times = sorted({t for t, _ in points}, key=lambda x: -np.inf if x is None else x)
    freqs = sorted({f for _, f in points}, key=lambda x: -np.inf if x is None else x)
    if (None in times and len(times) > 1) or (None in freqs and len(freqs) > 1):
        raise GainsTableError(f"{name}: antenna {ant} mixes '*' with explicit times or frequencies")
    if len(points) != len(times) * len(freqs):
        raise GainsTableError(
            f"{name}: the gains of antenna {ant} are not a full grid of times × frequencies"
        )
    amp = np.array([[points[(t, f)][0] for f in freqs] for t in times])
    ph = np.array([[points[(t, f)][1] for f in freqs] for t in times])
    return _Grid(
        None if times == [None] else np.array(times, dtype=np.float64),
        None if freqs == [None] else np.array(freqs, dtype=np.float64),
        amp,
        ph,
    )
