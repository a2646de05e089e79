"""Visibility prediction (the measurement equation), NumPy and CuPy backends.

Public entry points (:mod:`uvlab.gpu.predict.rows`, :mod:`uvlab.gpu.predict.antennas`):

- :func:`predict_rows` — (row, 3) uvw → (row, chan[, 2, 2]) visibilities;
- :func:`iter_predict_rows` — the same in chunks, for progress and cancellation;
- :func:`predict_antennas` — (time, nant, 3) per-antenna uvw → (time, bl, chan[, 2, 2]),
  by the per-antenna factorisation V = K·diag(B)·Kᴴ where it applies, and on the CPU
  in Stokes I with smearing or Gaussians by per-antenna phasors weighted per baseline
  (:mod:`uvlab.gpu.predict.factored_smearing`);
- :class:`Smearing` — time/bandwidth smearing parameters;
- ``beam=`` and ``gains=`` of :func:`predict_antennas` (``row_beam=`` of :func:`predict_rows`):
  the E and G Jones terms (scalar beams, or 2×2 Jones beams ``(…, 2, 2)`` summed by the
  direct path), from :mod:`uvlab.gpu.predict.beams` (Airy, Gaussian, cos³, scalar and
  Jones beam cubes, the parallactic angle, the Stokes-I power ½·Σ|E_ij|²) and
  :mod:`uvlab.gpu.predict.gains` (random correlated gains, applying them);
  :mod:`uvlab.gpu.predict.noise` (the radiometer equation) and
  :func:`uvlab.gpu.predict.jones_reference.predict_jones_reference` (the 2×2 oracle);
- :func:`predict_reference` — the plain float64 triple sum used as the oracle.
"""

from uvlab.gpu.predict.antennas import predict_antennas
from uvlab.gpu.predict.chunking import PredictMemoryError
from uvlab.gpu.predict.reference import predict_reference
from uvlab.gpu.predict.rows import iter_predict_rows, predict_rows
from uvlab.gpu.predict.terms import Smearing

__all__ = [
    "PredictMemoryError",
    "Smearing",
    "iter_predict_rows",
    "predict_antennas",
    "predict_reference",
    "predict_rows",
]
