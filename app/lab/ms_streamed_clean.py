"""CLEAN in the window of an MS the memory cannot hold: over its row chunks (issue 27).

As ``uvlab image --niter`` with a cluster option CLEANs it
(:mod:`uvlab.app.scale.ms_clean`, CASA's design): the dirty image in row chunks
(:func:`~uvlab.app.scale.ms_image.image_ms`, its density totals kept for every later pass),
the CLEAN PSF of side 2N in row chunks (:func:`~uvlab.app.scale.ms_clean.wide_psf_ms`), and
for Cotton–Schwab every major cycle's residual over the chunks
(:class:`~uvlab.app.scale.ms_clean.ClusterMajorCycle`); the minor cycles run here, in the
window's worker, on images, through the same driver and states as the in-memory task
(:func:`~uvlab.app.lab.clean_task.iter_cycles`): a Partial per cycle, the last a Done.
Every pass asks ``cancelled()`` as each chunk ends. The data are read again for each pass
(none is held on the workers: the MS is larger than the memory).
"""

from __future__ import annotations

from collections.abc import Iterator

from uvlab.app.lab.clean_task import CleanOptions, iter_cycles
from uvlab.app.lab.jobs import JobRequest, Progress
from uvlab.app.lab.samples import check
from uvlab.app.runtime.errors import Cancelled


def iter_streamed_clean(
    request: JobRequest, client, source, spec, meta, rows: int, params, device: str,
    cancelled=None, report=None,
) -> Iterator:  # fmt: skip
    """The ``clean`` task's events for ``source`` (an MSRead) on ``client``'s cluster, in
    chunks of ``rows`` rows; the imaging's per-chunk progress goes to ``report``."""
    from uvlab.app.scale.chains import Cancelled as ChunksCancelled
    from uvlab.app.scale.ms_clean import ClusterMajorCycle, Pass, wide_psf_ms
    from uvlab.app.scale.ms_image import image_ms

    report = report or (lambda f, s: None)
    opts = request.clean or CleanOptions()
    if opts.channels_out > 1:  # not silently one MFS CLEAN: say so, in one line
        raise ValueError(
            "channels out > 1: joined-channel CLEAN of an MS streamed in row chunks is not "
            "yet supported in the window (uvlab image --channels-out N --join-channels is)"
        )
    im, wt = request.imaging, request.imaging.weighting_spec()
    try:
        res = image_ms(
            client, source, spec, wt, chunk_rows=rows, algorithm=im.algorithm, params=params,
            device=device, psf=False, cancelled=cancelled,
            progress=lambda f, stage: report(0.25 + 0.35 * f, stage),
        )  # fmt: skip
        check(cancelled)
        job = Pass(client, source, spec, wt, res.totals, rows, im.algorithm, params, device,
                   cancelled=cancelled)  # fmt: skip
        yield Progress(0.6, "CLEAN PSF (2N)")
        psf = wide_psf_ms(job)
        check(cancelled)
        major = ClusterMajorCycle(job) if opts.deconvolver == "cotton-schwab" else None
        yield from iter_cycles(request, spec, meta.ra0_rad, meta.dec0_rad, res.dirty, psf,
                               major, job.xp, cancelled, lo=0.7)  # fmt: skip
    except ChunksCancelled:
        raise Cancelled("job cancelled") from None
