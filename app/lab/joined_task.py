"""The ``clean`` task with ``channels_out`` > 1: WSClean's joined-channel CLEAN in the window.

What ``uvlab image --channels-out N --join-channels [--fit-spectral-pol K] --niter …``
runs, on the lab's samples, step by step: the output channels imaged with the MF weights
(:func:`~uvlab.app.lab.output_channels.iter_parts`), each channel's CLEAN PSF of side 2N
(:func:`~uvlab.app.lab.joined_clean.iter_plane_inputs`), the one driver's joined CLEAN
(:func:`~uvlab.app.lab.joined_clean.joined_cycles`), each channel restored with its own
beam (:func:`~uvlab.app.lab.joined_clean.restore_planes`) and the MFS images their
weighted means (:func:`~uvlab.app.lab.output_channels.mfs_clean`). The progress names
the stage ("joined CLEAN, channel k of N", then the cycles); a
:class:`~uvlab.app.lab.clean_task.CleanState` after each cycle holds the MFS images and
every channel's restored image. docs/cubes.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import numpy as np

from uvlab.app.lab.jobs import Done, JobRequest, Partial, Progress
from uvlab.app.lab.samples import Samples, block_check, check


def _staged(steps, cancelled, stage: str, lo: float, hi: float):
    """Drive ``steps`` (yielding ``(k, n)``): a Progress per step, from ``lo`` to ``hi``."""
    while True:
        check(cancelled)
        try:
            k, n = next(steps)
        except StopIteration as stop:
            return stop.value
        yield Progress(lo + (hi - lo) * k / n, f"joined CLEAN, {stage}, channel {k + 1} of {n}")


def iter_joined(request: JobRequest, s: Samples, cancelled) -> Iterator:
    """The joined CLEAN's events: stages, a Partial per cycle, the last state as a Done."""
    from uvlab.app.lab.joined_clean import iter_plane_inputs, joined_cycles
    from uvlab.app.lab.output_channels import iter_parts, spectral_fit
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.deconvolution.joined import JoinedChannels

    opts = request.clean
    im, params = request.imaging, request.grid_params()
    device = resolve_device(request.device)
    on_block = block_check(cancelled)
    s = s.on_host()  # the CLI's shapes: a flag per sample
    s = replace(s, flag=np.broadcast_to(np.asarray(s.flag), np.shape(s.vis)))
    n = opts.channels_out
    if n > len(s.freq_hz):
        raise ValueError(f"channels out: {n}, but the observation has {len(s.freq_hz)} channels")
    imaged = yield from _staged(
        iter_parts(s, s.spec, n, im.weighting_spec(), im.algorithm, params, device, True,
                   on_block=on_block),
        cancelled, "imaging", 0.70, 0.73,
    )  # fmt: skip
    channels = imaged.channels
    psfs, majors = yield from _staged(
        iter_plane_inputs(imaged.parts, s.spec, opts, params, imaged.weighting, im.algorithm,
                          device, on_block=on_block),
        cancelled, "PSF", 0.73, 0.75,
    )  # fmt: skip
    joined = JoinedChannels(
        [c.sum_weights for c in channels], spectral_fit(channels, opts.fit_spectral_pol)
    )
    dirty = np.stack([c.dirty for c in channels])
    cycles = joined_cycles(dirty, psfs, majors, joined, opts, request.clean_mask, device)
    meta = (s, request, channels, psfs)
    for cyc in cycles:
        check(cancelled)
        state = _state(meta, cyc)
        if cyc.done:
            yield Done(state)
        else:
            frac = 0.75 + 0.25 * cyc.iterations / max(1, opts.niter)
            stage = f"joined CLEAN of {n} channels, cycle {cyc.cycles}"
            yield Partial(stage, frac, clean=state, urgent=True)


def _state(meta, cyc):
    """A joined cycle as a CleanState: the MFS images, and each channel's restored one."""
    from uvlab.app.lab.clean_state import CleanState
    from uvlab.app.lab.joined_clean import restore_planes
    from uvlab.app.lab.output_channels import mfs_clean, mfs_mean
    from uvlab.gpu.deconvolution.beam import BeamFitError, fit_beam

    s, request, channels, psfs = meta
    opts = request.clean
    w = [c.sum_weights for c in channels]
    cleans = restore_planes(cyc, psfs, s.spec)
    done = [replace(c, clean=k) for c, k in zip(channels, cleans, strict=True)]
    psf = mfs_mean(psfs, w)
    try:
        beam = fit_beam(psf, s.spec.cell_rad)
    except BeamFitError:
        beam = cleans[0].beam
    mfs = mfs_clean(done, beam, True, opts.fit_spectral_pol if cyc.done else None)
    return CleanState(
        s.spec, float(s.ra0_rad), float(s.dec0_rad), mfs_mean([c.dirty for c in channels], w),
        psf, mfs.model, mfs.residual, mfs.restored, beam, cyc.comp_j, cyc.comp_i,
        np.asarray(cyc.comp_flux).reshape(len(cyc.comp_j), len(w)) @ (np.asarray(w) / sum(w)),
        cyc.peak, cyc.rms, cyc.cycle_ends, opts.deconvolver, cyc.stop_reason, cyc.done,
        int(opts.niter), channel_restored=np.stack([k.restored for k in cleans]),
        channel_freq_hz=tuple(c.freq_hz for c in channels),
        spectral_terms=mfs.spectral_terms,
    )  # fmt: skip
