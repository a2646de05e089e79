"""CLEAN for ``uvlab image --niter``: the engine's one driver, the beam, the restored image.

The loop is :func:`uvlab.gpu.deconvolution.driver.iter_clean` (Högbom or
Cotton–Schwab, mgain cycles, the sub-minor loop, masks, auto-mask), the same the
window's Deconvolution task drives (:mod:`uvlab.app.lab.clean_task`). This runs it to
its end on the image's data (:func:`clean`) and restores the result
(:func:`restored_result`). Everything is computed before any file is written.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from uvlab.gpu.deconvolution.inputs import wide_psf
from uvlab.gpu.deconvolution.options import DECONVOLVERS, CleanOptions

log = logging.getLogger(__name__)

__all__ = [
    "DECONVOLVERS", "CleanOptions", "Deconvolved", "clean", "major_cycle", "restored_result",
    "wide_psf",
]  # fmt: skip


@dataclass(frozen=True)
class Deconvolved:
    """Model (Jy/pixel), residual and restored image (Jy/beam), all (N, N) NumPy, and the beam.

    ``spectral_terms`` (K, N, N) and ``ref_freq_hz``: with ``--fit-spectral-pol``, the MFS
    model's pixels as polynomials in ν/ν0 − 1 (:func:`~uvlab.app.lab.joined_clean.
    spectral_terms`); None otherwise.
    """

    model: np.ndarray
    residual: np.ndarray
    restored: np.ndarray
    beam: object
    iterations: int
    cycles: int
    stop_reason: str
    peak: np.ndarray
    rms: np.ndarray
    spectral_terms: np.ndarray | None = None
    ref_freq_hz: float | None = None


def clean(
    data, spec, dirty, psf, opts: CleanOptions, params, weighting, device: str = "cpu",
    algorithm: str = "conv", mask=None,
) -> Deconvolved:  # fmt: skip
    """``opts``' CLEAN of the dirty image ``dirty`` of ``data`` (the driver run to its end).

    Parameters
    ----------
    data : VisData, Samples or SpwSet
        ``uvw``, ``freq_hz``, ``vis``, ``weight``, ``flag``: Cotton–Schwab's visibilities
        (:func:`~uvlab.gpu.deconvolution.inputs.major_cycle_for`), or ``parts`` of them,
        one per spectral window (:func:`~uvlab.gpu.deconvolution.inputs.major_cycle_of_parts`);
        unused by Högbom.
    spec : ImageSpec
    dirty : (N, N) float
        The dirty image (Jy/beam).
    psf : (2N, 2N) float
        :func:`~uvlab.gpu.deconvolution.inputs.wide_psf`.
    opts : CleanOptions
    params, weighting, algorithm
        The imaging's: Cotton–Schwab grids and degrids as the dirty image was made.
    device : {"cpu", "gpu"}
    mask : (N, N) bool, optional
        Components only where True (boxes, a FITS mask), with ``opts.mask_boxes``.
    """
    from uvlab.gpu.backend import get_xp

    xp = get_xp(device=device)
    major = major_cycle(data, spec, opts, params, weighting, algorithm, xp)
    out = drive(xp.asarray(dirty, dtype=xp.float64), psf, opts, mask=mask, major=major)
    return restored_result(out, psf, spec.cell_rad)


def major_cycle(data, spec, opts: CleanOptions, params, weighting, algorithm: str, xp):
    """Cotton–Schwab's major cycle on ``data`` (VisData, or an SpwSet's ``parts``); None for Högbom.

    :func:`~uvlab.gpu.deconvolution.inputs.major_cycle_of_parts` over several spectral
    windows, :func:`~uvlab.gpu.deconvolution.inputs.major_cycle_for` over one.
    """
    if opts.deconvolver != "cotton-schwab":
        return None
    if hasattr(data, "parts"):  # several windows
        from uvlab.gpu.deconvolution.inputs import major_cycle_of_parts

        return major_cycle_of_parts(data.parts, spec, weighting, algorithm, params, xp)
    from uvlab.gpu.deconvolution.inputs import major_cycle_for

    return major_cycle_for(data, spec, weighting, algorithm, params, xp)


def drive(dirty, psf, opts: CleanOptions, **kw):
    """:func:`~uvlab.gpu.deconvolution.driver.iter_clean` to its end (:func:`follow`).

    Returns the last ``CleanCycle``.
    """
    from uvlab.gpu.deconvolution.driver import iter_clean

    return follow(iter_clean(dirty, psf, opts, **kw), opts)


def follow(cycles, opts: CleanOptions):
    """The driver's ``cycles`` run to their end, each shown and logged; the last ``CleanCycle``.

    The progress is the iterations done out of ``opts.niter``; each cycle's end is a
    DEBUG line (``--verbose``, ``--log-file``).
    """
    from uvlab.app.runtime.progress import progress_bar

    niter = max(1, int(opts.niter))
    last, logged = None, 0
    with progress_bar(f"CLEAN ({opts.deconvolver})", total=niter, unit="it") as bar:
        for last in cycles:
            bar(last.iterations / niter, f"cycle {last.cycles}")
            if last.cycles > logged:
                logged = last.cycles
                log.debug(
                    "CLEAN cycle %d: %d iterations, %d major, residual peak %.4g Jy/beam",
                    last.cycles, last.iterations, last.majors, float(last.peak[-1]),
                )  # fmt: skip
    log.debug("CLEAN stopped (%s) after %d iterations in %d cycle(s)",
              last.stop_reason, last.iterations, last.cycles)  # fmt: skip
    return last


def restored_result(out, psf, cell_rad: float) -> Deconvolved:
    """The beam fitted to ``psf``, ``out``'s restored image, all as a NumPy :class:`Deconvolved`.

    ``out``: the driver's last :class:`~uvlab.gpu.deconvolution.history.CleanCycle`;
    the image is restored in its arrays' namespace.
    """
    from uvlab.gpu.backend import to_numpy
    from uvlab.gpu.deconvolution import fit_beam, restore

    beam = fit_beam(psf, cell_rad)
    restored = to_numpy(restore(out.model, out.residual, beam, cell_rad))
    return Deconvolved(
        to_numpy(out.model), to_numpy(out.residual), restored, beam, out.iterations,
        out.cycles, out.stop_reason, out.peak, out.rms,
    )  # fmt: skip
