"""Several spectral windows of one field, read for one multi-frequency-synthesis image.

Each window has its own CHAN_FREQ, and may have its own number of channels and its own
DATA_DESCRIPTION rows (DATA_DESC_ID → SPECTRAL_WINDOW_ID and POLARIZATION_ID, resolved by
:mod:`uvlab.app.ms.selection`); several windows may also share one. Each is read as its
own :class:`~uvlab.app.ms.reader.VisData` and kept so: :class:`SpwSet` holds them side by
side, never stacked into one padded (row, chan) array, and is imaged as parts
(:mod:`uvlab.gpu.imaging.mfs`).

:func:`field_spws` says which windows hold rows of a field (the default: all of them, as
WSClean and tclean ``specmode='mfs'`` image).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from uvlab.app.ms.errors import MSError
from uvlab.app.ms.reader import VisData


def field_spws(path: str | os.PathLike, field: int | str) -> tuple[int, ...]:
    """The spectral windows with cross-correlation rows of ``field``, in SPECTRAL_WINDOW order.

    Raises
    ------
    MSError
        An unknown field (the message lists those the MS holds).
    """
    from uvlab.app.ms.metadata import read_data_descs
    from uvlab.app.ms.selection import _field
    from uvlab.app.ms.tables import MSTables, translated

    with MSTables(path) as ms:
        fld = _field(ms, field)
        dd_spw = {d.id: d.spw_id for d in read_data_descs(ms)}
        tab = ms.query(f"FIELD_ID=={fld.id} AND ANTENNA1!=ANTENNA2")
        with translated(ms.path):
            dds = np.unique(tab.getcol("DATA_DESC_ID")) if tab.nrows() else []
    return tuple(sorted({dd_spw[int(d)] for d in dds if int(d) in dd_spw}))


@dataclass(frozen=True, eq=False)
class SpwSet:
    """One field's visibilities in several spectral windows: one VisData per window.

    The metadata that :class:`~uvlab.app.ms.reader.VisData` has once (field, phase
    centre, column, Stokes product, path) are the windows' common ones; ``freq_hz``,
    ``time``, ``ant1``, ``ant2`` join the windows' (for geometry, notes and headers,
    never to image).
    """

    parts: tuple[VisData, ...]

    def __post_init__(self):
        if not self.parts:
            raise ValueError("no spectral window to image")
        first = self.parts[0]
        for p in self.parts[1:]:
            if p.stokes != first.stokes:
                raise MSError(
                    f"{first.path}: spectral windows {first.spw} and {p.spw} give different "
                    f"products ({first.stokes}, {p.stokes}); choose one with --stokes"
                )

    def __getattr__(self, name):  # the common metadata, from the first window
        if name in ("ra0_rad", "dec0_rad", "corr_names", "stokes", "field", "field_name",
                    "column", "path", "int_s"):  # fmt: skip
            return getattr(self.parts[0], name)
        raise AttributeError(name)

    @property
    def spws(self) -> tuple[int, ...]:
        return tuple(p.spw for p in self.parts)

    @property
    def spw(self) -> str:
        """The windows as text, ``"0,1,2"``."""
        return ",".join(map(str, self.spws))

    @property
    def weight_source(self) -> str:
        sources = dict.fromkeys(p.weight_source for p in self.parts)
        return next(iter(sources)) if len(sources) == 1 else "/".join(sources)

    @property
    def freq_hz(self) -> np.ndarray:
        """(Σ chan,) every window's selected frequencies, window after window."""
        return np.concatenate([p.freq_hz for p in self.parts])

    @property
    def nchan(self) -> int:
        return sum(p.nchan for p in self.parts)

    @property
    def nrow(self) -> int:
        return sum(p.nrow for p in self.parts)

    @property
    def time(self) -> np.ndarray:
        return np.concatenate([p.time for p in self.parts])

    @property
    def ant1(self) -> np.ndarray:
        return np.concatenate([p.ant1 for p in self.parts])

    @property
    def ant2(self) -> np.ndarray:
        return np.concatenate([p.ant2 for p in self.parts])

    @property
    def band_hz(self) -> tuple[float, float]:
        """(lowest, highest) frequency covered: channel edges, ±|CHAN_WIDTH|/2, Hz."""
        lo = min(float(p.freq_hz.min()) - p.chan_width_hz / 2 for p in self.parts)
        hi = max(float(p.freq_hz.max()) + p.chan_width_hz / 2 for p in self.parts)
        return lo, hi

    @property
    def bad_values_note(self) -> str | None:
        notes = [f"spw {p.spw}: {n}" for p in self.parts if (n := p.bad_values_note)]
        return "; ".join(notes) or None
