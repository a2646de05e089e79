"""WSClean's ``-fit-spectral-pol K``: a polynomial in frequency for each CLEAN component.

As Radler's ``SpectralFitter`` (polynomial mode) does, with the output channels'
frequencies ν_c and weights W_c (each channel's Σ of imaging weights, the weights of
the MFS mean, WSClean's WSCIMGWG):

- the reference frequency is their weighted mean, ``ν0 = Σ W_c·ν_c / Σ W_c``;
- the K terms minimise ``Σ_c W_c·(S_c − Σ_k c_k·x_c^k)²`` with ``x_c = ν_c/ν0 − 1``:
  a fit in *linear* frequency about ν0, not in log frequency (WSClean's
  ``-fit-spectral-log-pol``, not offered here);
- ``c_0`` is the flux at ν0 and ``c_1 … c_{K−1}`` are WSClean's ``SpectralIndex``
  terms of a component list with ``LogarithmicSI`` false:
  ``S(ν) = c_0 + Σ_k c_k·(ν/ν0 − 1)^k``
  (:mod:`uvlab.app.skymodel.wsclean` reads them so).

Fitting and evaluating is a linear map of the C channel values: :meth:`SpectralFit.fit`
is a (K, C) matrix, :meth:`SpectralFit.projection` the (C, C) one the joined minor loop
applies to each component (:mod:`uvlab.gpu.deconvolution.joined`). A sum of fitted
spectra is its own fit, so a model pixel's spectrum, the sum of its components', is
a polynomial of K terms too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.backend import get_xp


@dataclass(frozen=True, eq=False)
class SpectralFit:
    """A K-term polynomial fit over C channels (see the module docstring).

    Attributes
    ----------
    freq_hz : (C,) float
        The channels' centre frequencies, Hz.
    weights : (C,) float
        Their weights (≥ 0; a channel of weight 0 does not count).
    nterms : int
        K, 1 … the number of channels of positive weight.
    """

    freq_hz: tuple
    weights: tuple
    nterms: int

    def __post_init__(self):
        freq = np.asarray(self.freq_hz, dtype=np.float64).ravel()
        w = np.asarray(self.weights, dtype=np.float64).ravel()
        if freq.size != w.size or not freq.size:
            raise ValueError(f"{freq.size} frequencies and {w.size} weights")
        if not (np.isfinite(freq).all() and (freq > 0).all()):
            raise ValueError("channel frequencies must be finite and > 0 Hz")
        if not (np.isfinite(w).all() and (w >= 0).all() and w.sum() > 0):
            raise ValueError("channel weights must be finite, ≥ 0 and not all 0")
        k = self.nterms
        usable = int(np.count_nonzero(w))
        if isinstance(k, bool) or int(k) != k or not 1 <= k <= usable:
            raise ValueError(
                f"fit-spectral-pol must be 1 … {usable} terms (the channels with data), got {k}"
            )
        object.__setattr__(self, "freq_hz", tuple(freq.tolist()))
        object.__setattr__(self, "weights", tuple(w.tolist()))
        object.__setattr__(self, "nterms", int(k))

    @property
    def ref_freq_hz(self) -> float:
        """ν0 = Σ W_c·ν_c / Σ W_c."""
        w, f = np.asarray(self.weights), np.asarray(self.freq_hz)
        return float((w * f).sum() / w.sum())

    def design(self, freq_hz=None) -> np.ndarray:
        """(C, K) ``x^k`` with ``x = ν/ν0 − 1`` at ``freq_hz`` (default: the channels')."""
        f = np.asarray(self.freq_hz if freq_hz is None else freq_hz, dtype=np.float64)
        x = f / self.ref_freq_hz - 1.0
        return x[..., None] ** np.arange(self.nterms)

    def fit_matrix(self) -> np.ndarray:
        """(K, C) F: the terms of channel values S are ``F @ S`` (weighted least squares)."""
        sw = np.sqrt(np.asarray(self.weights))
        return np.linalg.pinv(sw[:, None] * self.design()) * sw[None, :]

    def projection(self) -> np.ndarray:
        """(C, C) ``A @ F``: channel values → the fitted polynomial's values at the channels."""
        return self.design() @ self.fit_matrix()

    def fit(self, values):
        """The terms (..., K) of channel values (..., C), in ``values``' namespace."""
        xp = get_xp(values)
        return xp.asarray(values) @ xp.asarray(self.fit_matrix().T)

    def evaluate(self, terms, freq_hz=None):
        """The polynomial of ``terms`` (..., K) at ``freq_hz`` (default: the channels')."""
        xp = get_xp(terms)
        return xp.asarray(terms) @ xp.asarray(self.design(freq_hz).T)
