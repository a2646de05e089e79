"""CLEAN replayed from its component list: the model and residual after k iterations.

Högbom's minor cycle subtracts, at each iteration, the PSF shifted to the
component's pixel and scaled by its flux, over the part of the PSF that
overlaps the image (:func:`uvlab.gpu.deconvolution.hogbom.psf_window`). The
residual after the first k components is therefore

``residual_k = dirty − PSF ⊛ model_k``,  ``model_k = Σ_{c<k} f_c·δ(j_c, i_c)``,

with ⊛ that windowed (linear) convolution. :class:`ComponentReplay` computes it
with :class:`~uvlab.gpu.deconvolution.subminor.PsfConvolver` (one FFT pair of side
2N, exact; the PSF's transform made once), the sub-minor loop's residual update.

The window's teaching slider steps through a CLEAN with it
(:mod:`uvlab.app.gui.deconvolution_view`). For Cotton–Schwab the replayed
residual is the image-plane one (the major cycles' residual differs from it by
what the PSF's approximation missed).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.deconvolution.subminor import PsfConvolver


def components_model(comp_j, comp_i, comp_flux, k: int, npix: int, xp=np):
    """(npix, npix) model of the first ``k`` components, Jy/pixel (repeated pixels add up).

    Parameters
    ----------
    comp_j, comp_i : (ncomp,) int
        Row and column of each component, in CLEAN's order.
    comp_flux : (ncomp,) float
        Its flux, Jy.
    k : int
        How many of them (clipped to [0, ncomp]).
    """
    k = int(min(max(k, 0), len(comp_flux)))
    model = xp.zeros(npix * npix, dtype=xp.float64)
    if k:
        pos = xp.asarray(np.asarray(comp_j[:k], np.int64) * npix + np.asarray(comp_i[:k]))
        xp.add.at(model, pos, xp.asarray(np.asarray(comp_flux[:k], np.float64)))
    return model.reshape(npix, npix)


class ComponentReplay:
    """Model and residual after any number of a CLEAN's components (see the module docstring).

    Parameters
    ----------
    dirty : (N, N) float
        The image CLEAN started from, Jy/beam (numpy or cupy; results follow).
    psf : (P, P) float, P = N or 2N
        The PSF CLEAN subtracted, peak 1 at ``[P//2, P//2]``.
    comp_j, comp_i, comp_flux : (ncomp,)
        The components in order (:class:`~uvlab.gpu.deconvolution.hogbom.CleanResult`'s).
    """

    def __init__(self, dirty, psf, comp_j, comp_i, comp_flux):
        xp = get_xp(dirty)
        self.xp = xp
        self.dirty = xp.asarray(dirty, dtype=xp.float64)
        n = self.dirty.shape[0]
        psf = xp.asarray(psf, dtype=xp.float64)
        p = psf.shape[0]
        if self.dirty.shape != (n, n) or psf.shape != (p, p) or p not in (n, 2 * n):
            raise ValueError(
                f"need a square dirty image and a PSF of side N or 2N, got "
                f"{tuple(self.dirty.shape)} and {tuple(psf.shape)}"
            )
        self.npix = n
        self._convolve = PsfConvolver(psf, n)
        self.comp_j = np.asarray(comp_j, dtype=np.int64)
        self.comp_i = np.asarray(comp_i, dtype=np.int64)
        self.comp_flux = np.asarray(comp_flux, dtype=np.float64)

    @property
    def ncomp(self) -> int:
        return int(self.comp_flux.size)

    def model(self, k: int):
        """(N, N) model of the first ``k`` components, Jy/pixel."""
        return components_model(self.comp_j, self.comp_i, self.comp_flux, k, self.npix, self.xp)

    def convolve(self, model):
        """``PSF ⊛ model`` (N, N): what CLEAN subtracted for ``model``, Jy/beam."""
        return self._convolve(model)

    def residual(self, k: int):
        """(N, N) ``dirty − PSF ⊛ model_k``, Jy/beam."""
        return self.dirty - self.convolve(self.model(k))

    def state(self, k: int):
        """(model_k, residual_k)."""
        model = self.model(k)
        return model, self.dirty - self.convolve(model)
