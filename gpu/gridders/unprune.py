"""The adjoint of FFT pruning: a coarse grid back onto the fine one (for degridding).

The pruner (:class:`~uvlab.gpu.gridders.pruning.Pruner`, Muscat alg. 2.7)
convolves a periodic axis of ``α·M_c`` cells with the real taps ``Z[d]`` and
decimates it::

    out[c] = Σ_d Z[d] · in[(c·α + d) mod α·M_c]

Its transpose puts each coarse cell back at ``c·α`` and spreads it with the
same taps::

    in'[j·α + a] = Σ_s Z[s·α + a] · out'[(j − s) mod M_c]

one term per block shift s of the pruner's polyphase blocks (the same
``(shifts, α)`` arrangement of the taps). With the degridder's forward FFT
in front and the fine grid's tap rule behind, this makes the degridder of a
pruned chain (``hybrid``, ``pruned-nn``) the exact adjoint of its gridder
(:mod:`~uvlab.gpu.gridders.degrid`).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.blocks import BLOCK_CELLS, spans
from uvlab.gpu.gridders.pruning import Pruner


def unprune(pruner: Pruner, coarse: np.ndarray, axis: int = 0) -> np.ndarray:
    """The transpose of :meth:`Pruner.apply`: ``M_c`` cells of ``axis`` → ``α·M_c``.

    Parameters
    ----------
    pruner : Pruner
    coarse : (..., M_c, ...) complex
        A full periodic axis.
    axis : int

    Returns
    -------
    (..., α·M_c, ...) complex128
    """
    g = np.moveaxis(np.asarray(coarse, dtype=np.complex128), axis, 0)
    mc, a = g.shape[0], pruner.alpha
    zs, s_min = pruner._blocks()  # the pruner's own polyphase arrangement of its taps
    shifts = len(zs)
    g2 = g.reshape(mc, -1)
    fine = np.empty((mc, a, g2.shape[1]), dtype=np.complex128)
    # fine[j, a] = Σ_s Z[(s + s_min)·α + a] · coarse[j − s − s_min]: one real (α, shifts)
    # product with the shifted copies of a block of columns.
    for cols in spans(g2.shape[1], BLOCK_CELLS // (mc * shifts)):
        block = g2[:, cols]
        stacked = np.empty((shifts, *block.shape), dtype=np.complex128)
        for s in range(shifts):
            stacked[s] = np.roll(block, s + s_min, axis=0)
        out = zs.T @ stacked.view(np.float64).reshape(shifts, -1)  # (α, mc·2·cols)
        fine[:, :, cols] = out.reshape(a, mc, -1).transpose(1, 0, 2).view(np.complex128)
    fine = fine.reshape((mc * a, *g.shape[1:]))
    return np.moveaxis(fine, 0, axis)
