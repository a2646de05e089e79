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
    g2 = g.reshape(mc, -1)
    fine = np.zeros((mc, a, g2.shape[1]), dtype=np.complex128)
    for s in range(len(zs)):
        # fine[j, a] += Z[(s + s_min)·α + a] · coarse[j − (s + s_min)]
        fine += zs[s][None, :, None] * np.roll(g2, s + s_min, axis=0)[:, None, :]
    fine = fine.reshape((mc * a, *g.shape[1:]))
    return np.moveaxis(fine, 0, axis)
