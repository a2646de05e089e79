"""CLEAN for ``uvlab image``: Högbom or Cotton–Schwab, the beam, the restored image.

- ``hogbom`` (:func:`deconvolve`): image-plane minor cycles only. ``--mgain``
  ends a minor cycle at ``(1 − mgain)·peak`` and the next one starts on the
  same (exact, image-plane) residual, with the auto-threshold taken again from
  it, until ``--niter`` iterations, the threshold, or nothing left to clean.
- ``cotton-schwab`` (:func:`deconvolve_major`): the same minor cycles between
  major cycles that subtract the model from the visibilities by degridding and
  grid the residual anew (:mod:`uvlab.gpu.deconvolution.cotton_schwab`).

Everything is computed before any file is written.
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
    restored: np.ndarray | None  # None for a stage of clean() (restore=False)
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
    auto_mask = getattr(args, "auto_mask", None)
    if auto_mask is not None:
        if not (auto_mask > 0.0 and np.isfinite(auto_mask)):
            return f"--auto-mask must be > 0 (σ), got {auto_mask}"
        if args.auto_threshold is not None and not auto_mask > args.auto_threshold:
            return (
                f"--auto-mask ({auto_mask:g}σ) must be above --auto-threshold "
                f"({args.auto_threshold:g}σ): the mask is made first"
            )
    return None


def deconvolve(
    dirty, psf, cell_rad: float, args, device: str = "cpu", mask=None, restore: bool = True
) -> Deconvolved:
    """Högbom minor cycles (see the module docstring), the fitted beam and the restored image.

    ``mask`` (N, N) bool, optional: components only where True. ``restore`` False: no beam
    fit and no restored image (a stage of :func:`clean`).
    """
    from uvlab.gpu.backend import get_xp
    from uvlab.gpu.deconvolution import hogbom

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
            mask=None if mask is None else xp.asarray(mask),
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
    return restored_result(
        model, residual, psf, cell_rad, int(args.niter) - left, cycles, reason,
        np.concatenate(peaks) if peaks else np.zeros(0),
        np.concatenate(rmss) if rmss else np.zeros(0), restore=restore,
    )  # fmt: skip


def restored_result(
    model, residual, psf, cell_rad, iterations, cycles, reason, peak, rms, restore: bool = True
):
    """The beam fitted to ``psf``, the restored image, all as a NumPy :class:`Deconvolved`.

    ``restore`` False leaves ``restored`` and ``beam`` None (a stage :func:`clean` goes on from).
    """
    from uvlab.gpu.backend import to_numpy
    from uvlab.gpu.deconvolution import fit_beam
    from uvlab.gpu.deconvolution import restore as restore_image

    beam = fit_beam(psf, cell_rad) if restore else None
    restored = to_numpy(restore_image(model, residual, beam, cell_rad)) if restore else None
    return Deconvolved(
        to_numpy(model), to_numpy(residual), restored, beam, iterations, cycles, reason, peak,
        rms,
    )  # fmt: skip


def wide_psf(vd, spec, weighting, algorithm: str, params, device: str):
    """The CLEAN PSF of an N² image: side 2N, the visibilities weighted as for the N² image.

    Högbom subtracts the PSF over the whole image only with a PSF of side 2N (without major
    cycles the N² PSF's missing sidelobes would stay in the residual). Uniform and Briggs
    weights count density on the N² image's uv cells (``Weighting.density_npix``), as the
    dirty image did: on 2N's finer cells the PSF differs from the dirty image's by up to
    3 % of its peak (uniform; docs/conventions.md). Only the PSF is gridded.
    """
    from dataclasses import replace

    from uvlab.gpu.imaging.imager import make_psf
    from uvlab.gpu.imaging.spec import ImageSpec

    return make_psf(
        vd.uvw, vd.freq_hz, vd.vis, vd.weight, ImageSpec(2 * spec.npix, spec.cell_rad),
        flag=vd.flag, weighting=replace(weighting, density_npix=spec.npix),
        algorithm=algorithm, params=params, device=device,
    )  # fmt: skip


def clean(
    vd, spec, dirty, psf, args, params, weighting, device: str = "cpu", mask=None
) -> Deconvolved:
    """``args.deconvolver``'s CLEAN: :func:`deconvolve` (Högbom) or :func:`deconvolve_major`.

    ``mask`` (N, N) bool: components only where True (boxes, a FITS mask). With
    ``args.auto_mask`` (WSClean's ``-auto-mask``) in two stages: CLEAN (inside ``mask``)
    down to auto-mask·σ; then, if that level was reached, on the pixels that hold a
    component only, from the first stage's model, down to the threshold or the auto-threshold.
    """

    def run(a, mask=None, start=None, restore=True):
        if a.deconvolver == "cotton-schwab":  # major cycles in the visibilities
            return deconvolve_major(
                vd, spec, psf, a, params, weighting, device, mask, start, restore
            )
        base = dirty if start is None else start.residual
        return deconvolve(base, psf, spec.cell_rad, a, device, mask, restore)

    auto_mask = getattr(args, "auto_mask", None)
    if auto_mask is None:
        return run(args, mask=mask)
    first = run(_with(args, auto_threshold=auto_mask), mask=mask, restore=False)
    left = int(args.niter) - first.iterations
    if first.stop_reason != "auto-threshold" or left <= 0:
        return restored_result(
            first.model, first.residual, psf, spec.cell_rad, first.iterations, first.cycles,
            first.stop_reason, first.peak, first.rms,
        )  # fmt: skip
    second = run(_with(args, niter=left), mask=first.model != 0, start=first, restore=False)
    model = second.model if args.deconvolver == "cotton-schwab" else first.model + second.model
    return restored_result(
        model, second.residual, psf, spec.cell_rad, first.iterations + second.iterations,
        first.cycles + second.cycles, second.stop_reason,
        np.concatenate([first.peak, second.peak[1:]]), np.concatenate([first.rms, second.rms[1:]]),
    )  # fmt: skip


def _with(args, **changes):
    """A copy of the argparse namespace with ``changes``."""
    from argparse import Namespace

    return Namespace(**{**vars(args), **changes})


def deconvolve_major(
    vd, spec, psf, args, params, weighting, device: str = "cpu", mask=None, start=None,
    restore: bool = True,
) -> Deconvolved:  # fmt: skip
    """Cotton–Schwab CLEAN of the read data ``vd`` (:class:`~uvlab.app.ms.reader.VisData`).

    The samples and imaging weights are those of the dirty image
    (:func:`~uvlab.gpu.imaging.reuse.select_samples`,
    :func:`~uvlab.gpu.imaging.weighting.imaging_weights`); the major cycles use the
    imaging's algorithm and parameters
    (:func:`~uvlab.gpu.deconvolution.cotton_schwab.major_cycle_pair`). ``mask``: components
    only where True; ``start``: a :class:`Deconvolved` whose model the cycles continue.
    """
    from uvlab.gpu.backend import get_xp
    from uvlab.gpu.deconvolution.cotton_schwab import cotton_schwab, major_cycle_pair
    from uvlab.gpu.imaging.reuse import select_samples
    from uvlab.gpu.imaging.weighting import imaging_weights

    xp = get_xp(device=device)
    vis_all = xp.asarray(vd.vis)  # one host→device copy for the selection and the take
    s = select_samples(vd.uvw, vd.freq_hz, vd.weight, vd.flag, vis=vis_all, xp=xp)
    vis = xp.asarray(s.take(vis_all), dtype=xp.complex128)
    weight = imaging_weights(s.u, s.v, s.weight, spec, weighting)
    grid, degrid_fn = major_cycle_pair(args.algorithm, params, xp)
    mc = cotton_schwab(
        s.u, s.v, vis, weight, spec, xp.asarray(psf, dtype=xp.float64), grid=grid,
        degrid_fn=degrid_fn, gain=args.gain, niter=args.niter, threshold=args.threshold_jy,
        auto_threshold=args.auto_threshold, mgain=args.mgain,
        mask=None if mask is None else xp.asarray(mask),
        start_model=None if start is None else xp.asarray(start.model),
        w=s.w if params is not None and params.wstack else None,
    )  # fmt: skip
    return restored_result(
        mc.model, mc.residual, psf, spec.cell_rad, mc.iterations, mc.majors, mc.stop_reason,
        mc.peak, mc.rms, restore=restore,
    )  # fmt: skip
