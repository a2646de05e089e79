"""CLEAN for ``uvlab image``: Högbom minor cycles in the image plane, the beam, the restored image.

Without degridding there is no major cycle yet: ``--mgain`` ends a minor cycle
at ``(1 − mgain)·peak`` and the next one starts on the same (exact, image-plane)
residual, with the auto-threshold taken again from it, until ``--niter``
iterations, the threshold, or nothing left to clean. Everything is computed
before any file is written.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DECONVOLVERS = ("hogbom", "cotton-schwab")


@dataclass(frozen=True)
class Deconvolved:
    """Model (Jy/pixel), residual and restored image (Jy/beam), all (N, N) NumPy, and the beam."""

    model: np.ndarray
    residual: np.ndarray
    restored: np.ndarray
    beam: object
    iterations: int
    cycles: int
    stop_reason: str
    peak: np.ndarray
    rms: np.ndarray


def check_options(args) -> str | None:
    """A one-line complaint about the CLEAN options, or None when they are usable."""
    if args.niter < 0:
        return f"--niter must be ≥ 0, got {args.niter}"
    if not 0.0 < args.gain <= 1.0:
        return f"--gain must be in (0, 1], got {args.gain}"
    if not 0.0 < args.mgain <= 1.0:
        return f"--mgain must be in (0, 1], got {args.mgain}"
    if not (args.threshold_jy >= 0.0 and np.isfinite(args.threshold_jy)):
        return f"--threshold-jy must be ≥ 0, got {args.threshold_jy}"
    if args.auto_threshold is not None and not (
        args.auto_threshold >= 0.0 and np.isfinite(args.auto_threshold)
    ):
        return f"--auto-threshold must be ≥ 0 (σ), got {args.auto_threshold}"
    if args.deconvolver == "cotton-schwab":
        return (
            "--deconvolver cotton-schwab is not yet available (its major cycles need "
            "degridding); use --deconvolver hogbom"
        )
    return None


def deconvolve(dirty, psf, cell_rad: float, args, device: str = "cpu") -> Deconvolved:
    """Högbom minor cycles (see the module docstring), the fitted beam and the restored image."""
    from uvlab.gpu.backend import get_xp, to_numpy
    from uvlab.gpu.deconvolution import fit_beam, hogbom, restore

    xp = get_xp(device=device)
    residual, psf_x = xp.asarray(dirty, dtype=xp.float64), xp.asarray(psf, dtype=xp.float64)
    model = xp.zeros_like(residual)
    left, cycles, reason = int(args.niter), 0, "niter"
    peaks, rmss = [], []
    mgain = args.mgain if args.mgain < 1.0 else None
    while left > 0:
        res = hogbom(
            residual, psf_x, gain=args.gain, niter=left, threshold=args.threshold_jy,
            auto_threshold=args.auto_threshold, mgain=mgain,
        )  # fmt: skip
        cycles += 1
        model += res.model
        residual = res.residual
        left -= res.iterations
        reason = res.stop_reason
        peaks.append(res.peak if not peaks else res.peak[1:])
        rmss.append(res.rms if not rmss else res.rms[1:])
        if reason != "mgain" or res.iterations == 0:
            break
    beam = fit_beam(psf, cell_rad)
    restored = restore(model, residual, beam, cell_rad)
    return Deconvolved(
        to_numpy(model), to_numpy(residual), to_numpy(restored), beam,
        int(args.niter) - left, cycles, reason,
        np.concatenate(peaks) if peaks else np.zeros(0),
        np.concatenate(rmss) if rmss else np.zeros(0),
    )  # fmt: skip
