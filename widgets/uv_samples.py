"""The uv samples a coverage view shows: rows' (u, v), channels, and what colours them.

:class:`UvSamples` holds a result's rows (metres) with the channels' frequencies and,
optionally, each row's time and baseline; :meth:`UvSamples.points` gives every sample of
both Hermitian halves in the view's units (pure NumPy).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.widgets.uv_density import uv_scale


@dataclass(frozen=True, eq=False)
class UvSamples:
    """uv samples to draw.

    Attributes
    ----------
    u_m, v_m : (nrow,) float64
        Baseline coordinates, metres.
    freq_hz : (nchan,) float64
        Channel frequencies; in wavelengths each row is a sample per channel.
    time : (nrow,) float64, optional
        Time of each row (any unit), to colour by time.
    baseline : (nrow,) int, optional
        Baseline id of each row, to colour by baseline.
    """

    u_m: np.ndarray
    v_m: np.ndarray
    freq_hz: np.ndarray
    time: np.ndarray | None = None
    baseline: np.ndarray | None = None

    @classmethod
    def checked(cls, u_m, v_m, freq_hz, time=None, baseline=None) -> UvSamples:
        """The samples as arrays; ValueError when their shapes disagree."""
        u_m = np.asarray(u_m, dtype=np.float64).ravel()
        v_m = np.asarray(v_m, dtype=np.float64).ravel()
        if u_m.shape != v_m.shape:
            raise ValueError(f"u and v differ in shape: {u_m.shape} vs {v_m.shape}")
        for name, arr in (("time", time), ("baseline", baseline)):
            if arr is not None and np.shape(arr) != u_m.shape:
                raise ValueError(f"{name} must have one entry per row ({u_m.size})")
        return cls(
            u_m,
            v_m,
            np.atleast_1d(np.asarray(freq_hz, dtype=np.float64)),
            None if time is None else np.asarray(time, dtype=np.float64),
            None if baseline is None else np.asarray(baseline),
        )

    def scale(self, units: str) -> np.ndarray:
        """(nchan,) or (1,): metres → ``units`` per channel (:func:`uv_scale`)."""
        return uv_scale(units, self.freq_hz)

    def points(self, units: str) -> tuple[np.ndarray, np.ndarray]:
        """Every sample (x, y) in ``units``, both halves: one per row and channel in
        wavelengths, one per row in metres."""
        s = self.scale(units)
        x, y = np.outer(self.u_m, s).ravel(), np.outer(self.v_m, s).ravel()
        return np.concatenate([x, -x]), np.concatenate([y, -y])
