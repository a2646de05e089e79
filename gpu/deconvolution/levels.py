"""The level a CLEAN cycle stops at, and the image statistics it is taken from.

:func:`stop_level` is the driver's (:func:`~uvlab.gpu.deconvolution.driver.iter_clean`):
once per cycle, from the residual at the cycle's start, the largest of the threshold, the
auto-threshold (``S·σ``) and mgain's ``(1 − mgain)·peak``. :func:`image_stats` measures a
residual's |peak| (inside the mask and anywhere) and RMS with one device-to-host copy; the
driver's history (:mod:`uvlab.gpu.deconvolution.history`) keeps them per iteration.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.deconvolution.noise import robust_sigma
from uvlab.gpu.deconvolution.options import CleanOptions


def image_stats(image, maskf=None) -> tuple[float, float, float]:
    """(|peak| inside the mask, |peak|, RMS) of ``image``, with one device-to-host copy.

    ``maskf``: 1.0 inside the mask, 0.0 outside (None: no mask). On a GPU, one pass of a
    reduction kernel each (:func:`~uvlab.gpu.deconvolution.cuda_hogbom.image_stats_cupy`).
    """
    xp = get_xp(image)
    if xp is np:
        top = np.abs(image).max()
        peak = top if maskf is None else np.abs(image * maskf).max()
        stats = [peak, top, np.vdot(image.ravel(), image.ravel())]
    else:
        from uvlab.gpu.deconvolution.cuda_hogbom import image_stats_cupy

        stats = image_stats_cupy(xp.ascontiguousarray(image, dtype=xp.float64), maskf).tolist()
    flat = image.reshape(-1)
    return float(stats[0]), float(stats[1]), float(np.sqrt(stats[2] / max(flat.size, 1)))


def stop_level(
    residual, psf, maskf, opts: CleanOptions, auto_threshold, peak: float | None = None
) -> tuple[float, str]:
    """(level, name) a cycle starting on ``residual`` stops at: the largest of its levels.

    The levels :func:`~uvlab.gpu.deconvolution.hogbom.hogbom` takes (the same order on
    ties): the threshold, ``auto_threshold·σ`` and ``(1 − mgain)·peak`` with the peak
    inside the mask — σ the noise's that extended emission does not inflate
    (:func:`~uvlab.gpu.deconvolution.noise.robust_sigma`; hogbom's own is the MAD).
    ``peak``: that peak where the caller has measured it already. Joined planes pass
    their linear image as ``residual`` (σ's: the polarisations' linear sum) and the
    search image's peak as ``peak``.
    """
    levels = {"threshold": float(opts.threshold_jy)}
    if auto_threshold:
        levels["auto-threshold"] = float(auto_threshold) * robust_sigma(residual, psf)
    if opts.mgain < 1.0:
        if peak is None:
            peak = image_stats(residual, maskf)[0]
        levels["mgain"] = (1.0 - float(opts.mgain)) * float(peak)
    name, level = max(levels.items(), key=lambda kv: kv[1])
    return level, name
