"""One chunk of a selection's rows as the MS holds it: data, flags and weights.

A read takes the fewest correlations one strided read holds (:func:`corrs_for`: Stokes I
from XX and YY of four takes the first and the fourth). Weights, per correlation, come
from the first of these that holds a positive value in the first chunk
(:func:`weight_source`): WEIGHT_SPECTRUM, WEIGHT (broadcast over channels), 1/SIGMA²;
otherwise unit weights. FLAG and FLAG_ROW are folded into one flag per sample.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.app.ms.selection import Selection


@dataclass(frozen=True)
class Corrs:
    """The correlations a read takes: every ``step``-th from ``first`` to ``last``."""

    first: int
    last: int
    step: int

    @property
    def count(self) -> int:
        return (self.last - self.first) // self.step + 1

    def local(self, indices) -> list[int]:
        """Positions of the MS's correlation ``indices`` among those read."""
        return [(i - self.first) // self.step for i in indices]


def corrs_for(used, ncorr: int) -> Corrs:
    """The fewest correlations one strided read holding ``used`` takes (Stokes I from XX
    and YY of four: the first and the fourth, half the data)."""
    used = sorted(set(int(i) for i in used))
    if len(used) == 1:
        return Corrs(used[0], used[0], 1)
    steps = set(np.diff(used).tolist())
    if len(steps) == 1:
        return Corrs(used[0], used[-1], steps.pop())
    return Corrs(0, ncorr - 1, 1)


def _slice_args(sel: Selection, corrs: Corrs) -> tuple[list[int], list[int], list[int]]:
    c = sel.chan
    last = c.start + (len(range(c.start, c.stop, c.step)) - 1) * c.step
    return [c.start, corrs.first], [last, corrs.last], [c.step, corrs.step]


#: casacore column types → NumPy, for reading whole cells into an array of our own.
_NUMPY_TYPES = {"complex": np.complex64, "dcomplex": np.complex128, "boolean": np.bool_,
                "float": np.float32, "double": np.float64}  # fmt: skip


def _cells(tab, col: str, sel: Selection, corrs: Corrs, start: int, nrow: int) -> np.ndarray:
    """(nrow, chan, corr) of ``col``: the selected channels and the correlations ``corrs``.

    Where every channel is selected, the whole cells are read into an array of our own
    (``getcolnp``, about three times faster than a strided ``getcolslice`` here) and the
    correlations taken as a view; otherwise the slice is read.
    """
    whole = sel.chan == slice(0, sel.spw.nchan, 1)
    dtype = _NUMPY_TYPES.get(tab.coldatatype(col))
    if not whole or dtype is None:
        return tab.getcolslice(col, *_slice_args(sel, corrs), start, nrow)
    ncorr = len(sel.corr_names)
    out = np.empty((nrow, sel.spw.nchan, ncorr), dtype=dtype)
    tab.getcolnp(col, out, start, nrow)
    return out[..., corrs.first : corrs.last + 1 : corrs.step]


def _first_positive(tab, col: str, start: int, nrow: int, getter) -> bool:
    if col not in tab.colnames() or not tab.iscelldefined(col, start):
        return False
    w = getter(col)
    return bool((np.isfinite(w) & (w > 0)).any())


def weight_source(tab, sel: Selection, start: int, nrow: int) -> str:
    """The weights' column for the rows from ``start``: ``WEIGHT_SPECTRUM``, ``WEIGHT``,
    ``SIGMA`` (the first holding a positive value there) or ``unit``."""
    blc, trc, inc = _slice_args(sel, Corrs(0, len(sel.corr_names) - 1, 1))

    def spectrum(col):
        return tab.getcolslice(col, blc, trc, inc, start, nrow)

    def plain(col):
        return tab.getcol(col, start, nrow)

    if _first_positive(tab, "WEIGHT_SPECTRUM", start, nrow, spectrum):
        return "WEIGHT_SPECTRUM"
    if _first_positive(tab, "WEIGHT", start, nrow, plain):
        return "WEIGHT"
    if _first_positive(tab, "SIGMA", start, nrow, plain):
        return "SIGMA"
    return "unit"


def _weights(tab, source: str, sel: Selection, corrs: Corrs, start: int, nrow: int):
    """Float32 weights of the correlations read: (nrow, nchan, ncorr) from WEIGHT_SPECTRUM,
    else (nrow, 1, ncorr), the same in every channel (broadcast, never repeated)."""
    take = slice(corrs.first, corrs.last + 1, corrs.step)
    if source == "WEIGHT_SPECTRUM":
        w = _cells(tab, "WEIGHT_SPECTRUM", sel, corrs, start, nrow)
    elif source == "WEIGHT":
        w = tab.getcol("WEIGHT", start, nrow)[:, None, take]
    elif source == "SIGMA":
        s = tab.getcol("SIGMA", start, nrow)[:, take].astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            w = np.where(np.isfinite(s) & (s > 0), 1.0 / s**2, 0.0)[:, None, :]
    else:
        w = np.ones((nrow, 1, corrs.count))
    w = np.asarray(w, dtype=np.float32)
    return np.where(np.isfinite(w) & (w > 0), w, np.float32(0))


@dataclass
class Chunk:
    """One chunk of rows as the MS holds it: (nrow, nchan, ncorr) data, flags, weights."""

    data: np.ndarray
    flag: np.ndarray
    weight: np.ndarray
    uvw: np.ndarray
    time: np.ndarray
    ant1: np.ndarray
    ant2: np.ndarray
    interval: np.ndarray | None


def read_chunk(tab, sel: Selection, corrs: Corrs, source: str, start: int, nrow: int) -> Chunk:
    """Rows ``start`` … ``start + nrow`` of the selection, the correlations ``corrs``
    (FLAG and FLAG_ROW folded in)."""
    cols = tab.colnames()
    data = _cells(tab, sel.column, sel, corrs, start, nrow)
    f = (
        _cells(tab, "FLAG", sel, corrs, start, nrow)
        if "FLAG" in cols and tab.iscelldefined("FLAG", start)
        else np.zeros(data.shape, dtype=bool)
    )
    if "FLAG_ROW" in cols:
        flag_row = tab.getcol("FLAG_ROW", start, nrow)
        if flag_row.any():  # mostly none: no pass over every sample's flags
            f = f | flag_row[:, None, None]
    return Chunk(
        data=data,
        flag=f,
        weight=_weights(tab, source, sel, corrs, start, nrow),
        uvw=tab.getcol("UVW", start, nrow),
        time=tab.getcol("TIME", start, nrow),
        ant1=tab.getcol("ANTENNA1", start, nrow),
        ant2=tab.getcol("ANTENNA2", start, nrow),
        interval=tab.getcol("INTERVAL", start, nrow) if "INTERVAL" in cols else None,
    )
