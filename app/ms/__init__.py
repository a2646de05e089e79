"""Read MeasurementSets with python-casacore: summaries, visibilities, Stokes.

- :func:`open_ms` validates an MS and returns an :class:`MSInfo` summary.
- :func:`read_visibilities` reads one field, spectral window and Stokes
  product (or raw correlation) in row chunks and returns :class:`VisData`.
- :mod:`uvlab.app.ms.stokes` forms Stokes parameters from correlations.

All table access must happen on one I/O thread: casacore is not thread-safe.
MeasurementSets are only ever opened read-only. Problems raise
:class:`MSError` (a ``ValueError``) with a one-line message naming the path.
"""

from __future__ import annotations

from uvlab.app.ms.errors import Cancelled, MSError
from uvlab.app.ms.metadata import DataDescInfo, FieldInfo, MSInfo, SpwInfo, mjd_s_to_iso
from uvlab.app.ms.reader import VisData, read_visibilities
from uvlab.app.ms.summary import open_ms

__all__ = [
    "Cancelled",
    "DataDescInfo",
    "FieldInfo",
    "MSError",
    "MSInfo",
    "SpwInfo",
    "VisData",
    "mjd_s_to_iso",
    "open_ms",
    "read_visibilities",
]
