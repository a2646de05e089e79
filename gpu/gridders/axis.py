"""One image axis of a separable gridding algorithm, and its 1-D transfer function.

Every algorithm of DESIGN §2 is separable (Muscat §2.1.1): along each axis a
record is gridded by a tap rule onto ``n_grid`` cells, optionally pruned by α
to ``n_fft`` cells, inverse-FFT'd, cropped to N pixels and corrected. An
:class:`AxisPlan` holds that chain; :meth:`AxisPlan.transfer` runs it for a
single unit record, giving Muscat's component distortion ``l(δξ, x)``
(eq. 2.16–2.20) including the corrector, from which the analytic aliasing map
is built (:mod:`uvlab.gpu.aliasing`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from uvlab.gpu.gridders.correction import corrector, pixel_offsets
from uvlab.gpu.gridders.pruning import Pruner


@dataclass(frozen=True, eq=False)
class AxisPlan:
    """Grid, prune, FFT and correct along one axis.

    Attributes
    ----------
    npix : int
        Image pixels N along the axis.
    cell_rad : float
        Pixel size (direction cosine).
    n_grid : int
        Cells of the grid the records are gridded onto (the fine grid when
        pruned); its cell is ``1/(n_grid·cell_rad)`` wavelengths.
    rule : tap rule
        :class:`~uvlab.gpu.gridders.tables.NearestTaps`, ``TableTaps`` or
        ``ExactTaps``.
    pruner : Pruner or None
        Decimates ``n_grid`` to ``n_fft = n_grid/α`` before the FFT.
    correct : bool
        False leaves the image uncorrected (the raw ``nn`` algorithm).
    """

    npix: int
    cell_rad: float
    n_grid: int
    rule: object
    pruner: Pruner | None = None
    correct: bool = True

    def __post_init__(self):
        if self.n_grid % 2 or self.n_fft % 2:
            raise ValueError(f"grid sizes must be even, got {self.n_grid} → {self.n_fft}")
        if self.n_fft < self.npix:
            raise ValueError(f"FFT grid of {self.n_fft} cells is smaller than the image")
        if self.n_grid // 2 < self.rule.support // 2 + 1:
            raise ValueError(f"grid of {self.n_grid} cells is too small for the kernel")

    @property
    def n_fft(self) -> int:
        return self.n_grid // self.pruner.alpha if self.pruner else self.n_grid

    def coords(self, uv_lambda) -> np.ndarray:
        """Grid coordinate (cells of ``n_grid``) of a u or v in wavelengths."""
        return np.asarray(uv_lambda, dtype=np.float64) * (self.n_grid * self.cell_rad)

    def response(self) -> np.ndarray:
        """Mean response ρ(n) of the whole chain at the N pixel offsets n."""
        t = pixel_offsets(self.npix) / self.n_grid
        parts = [self.rule.response(t)]
        if self.pruner is not None:
            parts.append(self.pruner.response(t))
        return np.prod(np.vstack(parts), axis=0)

    @cached_property
    def corrector(self) -> np.ndarray:
        """(N,) float64: ``1/ρ(n)`` (ones when ``correct`` is False)."""
        if not self.correct:
            return np.ones(self.npix)
        return corrector([self.response()])

    def transfer(self, delta) -> np.ndarray:
        """Corrected 1-D transfer function ``L(δ, n)`` of unit records.

        A record at ``δ`` cells of the FFT grid (any real; the chain is
        periodic in δ with period 1) is gridded, pruned, transformed,
        cropped and corrected, and the result divided by the exact
        ``exp(2πi·δ·n/n_fft)``. L = 1 for a perfect algorithm.

        Parameters
        ----------
        delta : (k,) float
            Record positions, FFT-grid cells.

        Returns
        -------
        (k, N) complex128
        """
        delta = np.atleast_1d(np.asarray(delta, dtype=np.float64))
        k0, w = self.rule.taps(delta * (self.n_grid / self.n_fft))
        grid = np.zeros((delta.size, self.n_grid), dtype=np.complex128)
        cols = (k0[:, None] + np.arange(w.shape[1])) % self.n_grid
        np.add.at(grid, (np.arange(delta.size)[:, None], cols), w)
        if self.pruner is not None:
            grid = self.pruner.apply(grid, axis=1)
        n = pixel_offsets(self.npix)
        img = np.fft.ifft(grid, axis=1)[:, n % self.n_fft] * self.n_fft
        exact = np.exp(2j * np.pi * np.outer(delta, n) / self.n_fft)
        return img * self.corrector / exact
