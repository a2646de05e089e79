"""The ``clean`` task: the engine's CLEAN driver in the worker, one partial per cycle (no Qt).

:func:`iter_clean` makes the dirty image as the ``image`` task does (the same imaging
cache), the CLEAN PSF of side 2N weighted on the N² image's cells
(:func:`~uvlab.gpu.deconvolution.inputs.wide_psf`), and for Cotton–Schwab the major
cycle on the samples and imaging weights of the dirty image
(:func:`~uvlab.gpu.deconvolution.inputs.major_cycle_for`) — what ``uvlab image
--niter`` makes (:mod:`uvlab.app.lab.deconvolve`) — then drives
:func:`uvlab.gpu.deconvolution.driver.iter_clean` (issue 26), yielding a
:class:`~uvlab.app.lab.jobs.Partial` whose ``clean`` is a :class:`CleanState` after
each cycle (urgent: every complete cycle reaches the window, so a cancel leaves the
last complete one on screen). A Högbom cycle is also cut into chunks of at most
:func:`chunk_size` iterations where that changes nothing (the whole-image minor loop),
so that the window sees the CLEAN progress. The last state is restored as the CLI
restores it (:func:`uvlab.app.lab.deconvolve.restored_result`'s arithmetic): the window's
CLEAN and ``uvlab image --niter`` give the same model, residual and restored image.

Each state carries the components in CLEAN's order, so that the window can
replay the CLEAN to any iteration (:mod:`uvlab.gpu.deconvolution.replay`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from uvlab.app.lab.clean_state import CleanState
from uvlab.app.lab.jobs import Done, JobRequest, Partial, Progress
from uvlab.app.lab.samples import Samples, WorkCache, block_check, check
from uvlab.gpu.deconvolution.options import DECONVOLVERS, CleanOptions

__all__ = ["DECONVOLVERS", "CleanOptions", "CleanState", "chunk_size", "iter_clean", "iter_cycles"]

#: A Högbom cycle is cut into about this many chunks (one partial each).
CHUNKS = 20
#: ... of at least this many iterations.
MIN_CHUNK = 10


def chunk_size(niter: int) -> int:
    """Iterations per Högbom chunk: about ``niter / CHUNKS``, at least :data:`MIN_CHUNK`."""
    return max(MIN_CHUNK, math.ceil(niter / CHUNKS))


def iter_clean(request: JobRequest, s: Samples, cancelled, cache: WorkCache) -> Iterator:
    """The ``clean`` task's events: dirty image and PSF, a state per cycle, the last as Done."""
    from uvlab.gpu.backend import get_xp, resolve_device
    from uvlab.gpu.deconvolution.inputs import major_cycle_for, wide_psf

    opts = request.clean or CleanOptions()
    if opts.channels_out > 1:  # WSClean's -channels-out N -join-channels
        from uvlab.app.lab.joined_task import iter_joined

        yield from iter_joined(request, s, cancelled)
        return
    im = request.imaging
    device = resolve_device(request.device)
    yield Progress(0.72, f"dirty image and PSF ({im.algorithm})")
    dirty = _dirty_image(request, s, cache, cancelled)
    check(cancelled)
    psf = wide_psf(
        s, s.spec, im.weighting_spec(), im.algorithm, request.grid_params(), device,
        on_block=block_check(cancelled),
    )  # fmt: skip
    check(cancelled)
    xp = get_xp(device=device)
    major = None
    if opts.deconvolver == "cotton-schwab":
        major = major_cycle_for(
            s, s.spec, im.weighting_spec(), im.algorithm, request.grid_params(), xp
        )
    yield from iter_cycles(request, s.spec, s.ra0_rad, s.dec0_rad, dirty, psf, major, xp,
                           cancelled)  # fmt: skip


def iter_cycles(
    request: JobRequest, spec, ra0_rad, dec0_rad, dirty, psf, major, xp, cancelled, lo=0.75
) -> Iterator:
    """The driver's cycles of the request's CLEAN of ``dirty`` with ``psf`` (2N) and, for
    Cotton–Schwab, ``major``: a Partial per cycle (progress from ``lo`` to 1), the last a
    Done. The in-memory task's and an MS streamed in row chunks'
    (:mod:`uvlab.app.lab.ms_streamed_clean`)."""
    from uvlab.gpu.deconvolution import fit_beam
    from uvlab.gpu.deconvolution.driver import iter_clean as drive

    opts = request.clean or CleanOptions()
    beam = fit_beam(psf, spec.cell_rad)
    chunk = chunk_size(opts.niter) if opts.deconvolver == "hogbom" else None
    states = drive(xp.asarray(dirty), xp.asarray(psf), opts, mask=request.clean_mask,
                   major=major, chunk=chunk)  # fmt: skip
    meta = (spec, float(ra0_rad), float(dec0_rad), dirty, psf, beam, opts)
    for cyc in states:
        check(cancelled)
        if cyc.done:
            yield Done(_state(meta, cyc, final=True))
        else:
            frac = lo + (1 - lo) * cyc.iterations / max(1, opts.niter)
            yield Partial("clean", frac, clean=_state(meta, cyc), urgent=True)


def _dirty_image(request: JobRequest, s: Samples, cache: WorkCache, cancelled=None) -> np.ndarray:
    """The dirty image as the ``image`` task makes it (:func:`uvlab.app.lab.live.iter_image`).

    ``cancelled`` is checked between blocks of the gridding (on the CPU).
    """
    from uvlab.app.lab.imaging import IMAGING_THREADS
    from uvlab.gpu.backend import to_numpy
    from uvlab.gpu.imaging.imager import make_image

    im = request.imaging
    vis, params = s.vis, request.grid_params()
    if request.params is None and params is not None:
        params = params.with_(threads=IMAGING_THREADS)
    if request.params is not None and request.params.precision == "single":
        vis = vis.astype(np.complex64, copy=False)
    res = make_image(
        s.uvw, s.freq_hz, vis, s.weight, s.spec, flag=s.flag, weighting=im.weighting_spec(),
        algorithm=im.algorithm, params=params, device=request.device, cache=cache.imaging,
        data_key=s.data_key, vis_key=s.vis_key if vis is s.vis else None,
        on_block=block_check(cancelled),
    )  # fmt: skip
    return np.asarray(to_numpy(res.dirty), dtype=np.float64)


def _state(meta, cyc, final: bool = False) -> CleanState:
    """A driver's :class:`~uvlab.gpu.deconvolution.history.CleanCycle` as NumPy for the window.

    The last (``final``) is restored on the device the CLEAN ran on, as the CLI restores it.
    """
    from uvlab.gpu.backend import to_numpy
    from uvlab.gpu.deconvolution import restore

    spec, ra0, dec0, dirty, psf, beam, opts = meta
    model = np.asarray(to_numpy(cyc.model), dtype=np.float64)
    residual = np.asarray(to_numpy(cyc.residual), dtype=np.float64)
    if final:
        restored = to_numpy(restore(cyc.model, cyc.residual, beam, spec.cell_rad))
    else:
        restored = np.asarray(restore(model, residual, beam, spec.cell_rad))
    return CleanState(
        spec, ra0, dec0, dirty, psf, model, residual, np.asarray(restored), beam, cyc.comp_j,
        cyc.comp_i, cyc.comp_flux, cyc.peak, cyc.rms, cyc.cycle_ends, opts.deconvolver,
        cyc.stop_reason, cyc.done, int(opts.niter),
    )  # fmt: skip
