"""The visibilities read from a MeasurementSet: :class:`VisData`.

One field, one spectral window and one Stokes product (or correlation), as
:func:`uvlab.app.ms.reader.read_visibilities` returns them, with what the read flagged
for non-finite values (:mod:`uvlab.app.ms.bad_values`) and a one-line note saying so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class VisData:
    """Visibilities of one field, spectral window and Stokes product.

    Attributes
    ----------
    uvw : (row, 3) float64, metres (MS UVW: antenna 1 minus antenna 2, DESIGN §1)
    freq_hz : (chan,) float64
    vis : (row, chan) complex64 (complex128 if the column is double precision)
    weight : (row, chan) float32, inverse variance of ``vis``
    flag : (row, chan) bool
    time : (row,) float64, MJD seconds UTC
    ant1, ant2 : (row,) int32
    rows : (row,) int64, row numbers in the main table
    ra0_rad, dec0_rad : float, FIELD::PHASE_DIR (first polynomial term)
    chan_width_hz : float, |CHAN_WIDTH| of the first selected channel
    int_s : float, median INTERVAL of the rows (NaN without the column)
    corr_names : tuple of str, the correlations in the MS, in its order
    stokes : str, the product read (``I``, ``Q``, ``U``, ``V`` or a correlation)
    field, spw : int; field_name, column, weight_source, path : str
    nonfinite_uvw_rows : int, rows flagged here because their UVW is not finite
        (rows already entirely flagged in the MS are not counted)
    nonfinite_vis_samples : int, other samples (row, channel) flagged here because
        a correlation used is not finite (samples already flagged are not counted)
    """

    uvw: np.ndarray
    freq_hz: np.ndarray
    vis: np.ndarray
    weight: np.ndarray
    flag: np.ndarray
    time: np.ndarray
    ant1: np.ndarray
    ant2: np.ndarray
    rows: np.ndarray
    ra0_rad: float
    dec0_rad: float
    chan_width_hz: float
    int_s: float
    corr_names: tuple[str, ...]
    stokes: str
    field: int
    field_name: str
    spw: int
    column: str
    weight_source: str
    path: str
    nonfinite_uvw_rows: int = 0
    nonfinite_vis_samples: int = 0

    @property
    def bad_values_note(self) -> str | None:
        """One line naming the MS with what was flagged for non-finite values, or None."""
        parts = []
        if self.nonfinite_uvw_rows:
            n = self.nonfinite_uvw_rows
            parts.append(f"{n} row{'s' if n != 1 else ''} with non-finite UVW")
        if self.nonfinite_vis_samples:
            n = self.nonfinite_vis_samples
            parts.append(f"{n} sample{'s' if n != 1 else ''} with non-finite {self.column}")
        if not parts:
            return None
        return (
            f"{self.path}: flagged {' and '.join(parts)} "
            f"(of {self.nrow} rows × {self.nchan} channels read)"
        )

    @property
    def nrow(self) -> int:
        return int(self.vis.shape[0])

    @property
    def nchan(self) -> int:
        return int(self.vis.shape[1])
