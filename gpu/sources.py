"""The sky model as the engine sees it: flat arrays, one row per component."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SourceArrays:
    """Sky components in the frame of one phase centre.

    Attributes
    ----------
    lmn : (nsrc, 3) float64
        Direction cosines (l east, m north, n), DESIGN §1.
    stokes : (nsrc, 4) float64
        I, Q, U, V flux densities at ``ref_freq``, Jy.
    spectral_index : (nsrc,) float64
        α in S(ν) = S0·(ν/ν0)^α, applied to all four Stokes parameters.
    ref_freq : (nsrc,) float64
        ν0, Hz.
    shape : (nsrc, 3) float64
        Gaussian FWHM major, FWHM minor (radians) and position angle
        (radians, east of north). All zero for a point source.
    spectral_terms : (nsrc, K) float64 or None
        WSClean's spectral terms c_1 … c_K, when some component has more than
        a power law; they then replace ``spectral_index`` (with x = ν/ν0):
        logarithmic ``S(ν) = S0·exp(Σ c_k·(ln x)^k)``, ordinary
        ``I(ν) = I0 + Σ c_k·(x − 1)^k`` (Q, U, V scaled as I). None: the power
        law ``S0·x^α`` for every component.
    log_si : (nsrc,) bool or None
        Logarithmic (True) or ordinary (False) terms; with ``spectral_terms``.
    """

    lmn: np.ndarray
    stokes: np.ndarray
    spectral_index: np.ndarray
    ref_freq: np.ndarray
    shape: np.ndarray
    spectral_terms: np.ndarray | None = None
    log_si: np.ndarray | None = None

    def __post_init__(self):
        n = self.lmn.shape[0]
        for name, want in (
            ("lmn", (n, 3)),
            ("stokes", (n, 4)),
            ("spectral_index", (n,)),
            ("ref_freq", (n,)),
            ("shape", (n, 3)),
        ):
            got = np.shape(getattr(self, name))
            if tuple(got) != want:
                raise ValueError(f"SourceArrays.{name} has shape {got}, expected {want}")
        if (self.spectral_terms is None) != (self.log_si is None):
            raise ValueError("SourceArrays.spectral_terms and log_si come together")
        if self.spectral_terms is not None:
            terms, log = np.shape(self.spectral_terms), np.shape(self.log_si)
            if len(terms) != 2 or terms[0] != n or log != (n,):
                raise ValueError(
                    f"SourceArrays.spectral_terms {terms} and log_si {log} do not fit {n} sources"
                )

    @property
    def nsrc(self) -> int:
        return int(self.lmn.shape[0])

    @property
    def has_gaussians(self) -> bool:
        return bool(np.any(self.shape[:, :2] > 0))

    @classmethod
    def points(cls, lmn, stokes, spectral_index=None, ref_freq=None) -> SourceArrays:
        """Point sources; spectral index 0 and ref_freq 1 Hz unless given."""
        lmn = np.asarray(lmn, dtype=np.float64).reshape(-1, 3)
        n = lmn.shape[0]
        stokes = np.asarray(stokes, dtype=np.float64)
        if stokes.ndim == 1:
            stokes = np.column_stack([stokes, np.zeros((n, 3))])
        si = np.zeros(n) if spectral_index is None else np.asarray(spectral_index, np.float64)
        rf = np.ones(n) if ref_freq is None else np.asarray(ref_freq, np.float64)
        return cls(
            lmn,
            stokes,
            np.broadcast_to(si, (n,)).copy(),
            np.broadcast_to(rf, (n,)).copy(),
            np.zeros((n, 3)),
        )

    def select(self, index) -> SourceArrays:
        """A subset of the components (slice or index array)."""
        terms = None if self.spectral_terms is None else self.spectral_terms[index]
        return SourceArrays(
            self.lmn[index],
            self.stokes[index],
            self.spectral_index[index],
            self.ref_freq[index],
            self.shape[index],
            terms,
            None if terms is None else self.log_si[index],
        )
