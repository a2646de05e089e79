"""Convolution-based FFT pruning (Muscat 2021, alg. 2.7 and ch. 7).

A grid oversampled α times along one axis (``M_f = α·M_c`` cells) is
circularly convolved with a kernel Z and decimated to ``M_c`` cells::

    out[c] = Σ_{d=−D}^{D} Z[d] · in[(c·α + d) mod M_f]          (Muscat eq. 2.63)

Writing ``d = s·α + a`` (a = 0 … α−1) turns this into Muscat's eq. 7.1/7.2:
for each of the ``S_z + 1`` block shifts s, one contraction over a of the
grid viewed as ``(M_c, α, …)`` blocks — the polyphase filter done with one
matmul per shift. Muscat's "column pruner" and "row pruner" are this operation
along the two axes; :meth:`Pruner.apply` prunes a full periodic axis,
:meth:`Pruner.apply_half` the Hermitian-half u axis of a c2r grid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from uvlab.gpu.blocks import BLOCK_CELLS, block_done, spans
from uvlab.gpu.gridders import correction
from uvlab.gpu.gridders.gcf import kernel_function
from uvlab.gpu.gridders.jit_grid import cpu_rung, prune_columns_numba
from uvlab.gpu.gridders.least_misfit import least_misfit_taps


def flip_rows(a: np.ndarray) -> np.ndarray:
    """``out[r] = a[(−r) mod M]`` along axis 0 (the mirror of a periodic axis)."""
    return np.roll(a[::-1], 1, axis=0)


@dataclass(frozen=True, eq=False)
class Pruner:
    """Decimate a periodic axis by α with the taps ``Z[d]``, ``d = −D … D``.

    ``source`` is the taps, or a function ``source(on_block)`` that computes them
    on first use: a plan (and a memory estimate built from it) needs only α, and
    the least-misfit taps take seconds at large α. :meth:`apply` and
    :meth:`apply_half` compute them with their ``on_block``, so a cancel stops
    that solve too (:func:`~uvlab.gpu.gridders.least_misfit.least_misfit_taps`).
    """

    source: np.ndarray | Callable[[Callable[[], object] | None], np.ndarray]
    alpha: int

    @property
    def taps(self) -> np.ndarray:
        return self.solved()

    def solved(self, on_block=None) -> np.ndarray:
        """The taps, computed on first use with ``on_block`` between the pieces of work."""
        taps = self.__dict__.get("_taps")
        if taps is None:
            src = self.source
            taps = np.asarray(src(on_block) if callable(src) else src)
            self.__dict__["_taps"] = taps  # frozen: kept as a cached_property would
        return taps

    @property
    def half(self) -> int:
        return (len(self.taps) - 1) // 2

    def _blocks(self, on_block=None):
        """Taps rearranged as ``(shifts, α)`` with the first shift ``s_min``."""
        taps = self.solved(on_block)
        d = np.arange(-self.half, self.half + 1)
        s, a = d // self.alpha, d % self.alpha
        zs = np.zeros((s.max() - s.min() + 1, self.alpha))
        zs[s - s.min(), a] = taps
        return zs, int(s.min())

    def apply(self, grid: np.ndarray, axis: int = 0, on_block=None) -> np.ndarray:
        """Prune a full periodic axis of length ``α·M_c`` to ``M_c``.

        Parameters
        ----------
        grid : (..., α·M_c, ...) complex
        axis : int
        on_block : callable() -> None, optional
            Called between blocks of columns and of the taps' first solve (a cancel
        check, :mod:`uvlab.gpu.blocks`).

        Returns
        -------
        (..., M_c, ...) complex
        """
        g = np.moveaxis(grid, axis, 0)
        mf = g.shape[0]
        if mf % self.alpha:
            raise ValueError(f"axis of {mf} cells is not a multiple of α = {self.alpha}")
        mc = mf // self.alpha
        zs, s_min = self._blocks(on_block)
        lo, hi = -s_min, len(zs) - 1 + s_min  # padding blocks before and after
        if max(lo, hi) > mc:
            raise ValueError("pruning kernel wider than the pruned grid")
        g2 = g.reshape(mf, -1)
        out = np.empty((mc, g2.shape[1]), dtype=np.complex128)
        for cols in spans(g2.shape[1], BLOCK_CELLS // mf):
            block_done(on_block)
            out[:, cols] = self._apply_columns(g2[:, cols], zs, lo, hi, on_block)
        out = out.reshape((mc, *g.shape[1:]))
        return np.moveaxis(out, 0, axis)

    def _apply_columns(self, g, zs, lo: int, hi: int, on_block=None) -> np.ndarray:
        """:meth:`apply` of the columns ``g`` ``(α·M_c, cols)``: ``(M_c, cols)`` complex.

        NumPy (this) or, where numba imports, a compiled loop
        (:func:`~uvlab.gpu.gridders.jit_grid.prune_columns_numba`, chosen by
        :func:`~uvlab.gpu.gridders.jit_grid.cpu_rung`); equal to rounding.
        """
        if cpu_rung() == "numba":
            return prune_columns_numba(g, zs, lo, self.alpha)
        mf = g.shape[0]
        mc = mf // self.alpha
        padded = np.concatenate([g[mf - lo * self.alpha :], g, g[: hi * self.alpha]])
        padded = np.ascontiguousarray(padded, dtype=np.complex128)
        # Real view (…, 2·cols): one real (α,) @ (α, 2·cols) product per block.
        blocks = padded.reshape(mc + lo + hi, self.alpha, -1).view(np.float64)
        out = np.zeros((mc, blocks.shape[2]))
        for s in range(len(zs)):
            out += np.matmul(zs[s], blocks[s : s + mc])
        return out.view(np.complex128)

    def apply_half(self, half: np.ndarray, n_full: int, on_block=None) -> np.ndarray:
        """Prune the Hermitian-half last axis of a c2r grid.

        ``on_block()``, when given, is called between blocks of rows and shifts (a
        cancel check, :mod:`uvlab.gpu.blocks`).

        Parameters
        ----------
        half : (M_v, n_full/2 + 1) complex
            Columns 0 … n_full/2 of a grid whose full version satisfies
            ``F[−kv, −ku] = conj F[kv, ku]`` (axis 0 periodic, full).
        n_full : int
            Full length ``α·M_c`` of the pruned axis.

        Returns
        -------
        (M_v, M_c/2 + 1) complex
            Columns 0 … M_c/2 of the pruned grid (still Hermitian).
        """
        a = self.alpha
        mc = n_full // a
        zs, s_min = self._blocks(on_block)
        nb = mc // 2 + len(zs)  # blocks c + s for c = 0 … M_c/2
        q = (s_min * a + np.arange(nb * a)) % n_full  # fine columns, wrapped
        direct = q <= n_full // 2
        ext = half[:, np.where(direct, q, n_full - q)]
        ext[:, ~direct] = np.conj(flip_rows(ext[:, ~direct]))
        blocks = ext.reshape(half.shape[0], nb, a)
        out = np.zeros((half.shape[0], mc // 2 + 1), dtype=np.complex128)
        for rows in spans(half.shape[0], BLOCK_CELLS // (nb * a)):
            for s in range(len(zs)):
                block_done(on_block)
                out[rows] += blocks[rows, s : s + mc // 2 + 1, :] @ zs[s]
        return out

    def response(self, t) -> np.ndarray:
        """Mean response over the α phases (fine-grid t, cycles per fine cell)."""
        d = np.arange(-self.half, self.half + 1)
        return correction.taps_dft(self.taps, d, 1.0, t) / self.alpha


def make_pruner(kernel: str, support: int, alpha: int, x0: float = 0.25) -> Pruner:
    """A pruner of support ``S_z`` (coarse cells) decimating by α.

    ``kernel="lm"`` gives the least-misfit taps for the central ``|x| ≤ x0``
    (Muscat's choice, x0 = 0.25); the closed-form kernels are sampled at
    ``d/α`` with their shape for padding ``1/(2·x0)``.
    """
    if alpha < 1:
        raise ValueError(f"decimation factor must be ≥ 1, got {alpha}")
    if kernel == "lm":
        return Pruner(
            lambda on_block: least_misfit_taps(support, alpha, x0, on_block=on_block), alpha
        )
    fn = kernel_function(kernel, support, sigma=0.5 / x0)
    half = (support * alpha) // 2
    return Pruner(lambda _on_block: fn(np.arange(-half, half + 1) / alpha), alpha)
