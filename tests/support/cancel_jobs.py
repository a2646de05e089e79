"""Jobs that run for seconds on the default scene, and a worker that counts its cancel polls.

For the cancel tests of the window's worker (:mod:`uvlab.app.gui.worker`): each
job kind (imaging with the slow CPU gridders, Compare, CLEAN, reading an MS) on
data big enough that it runs for seconds, so that a cancel lands inside its long
steps; :func:`counting_run` wraps the lab's job so the test sees every time the
job (the engine, between its blocks) asks whether it should stop.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import JobRequest, MSSelection
from uvlab.app.lab.state import default_state, job_request


def image_request(algorithm: str, npix: int = 512, **imaging) -> JobRequest:
    """The default scene imaged at ``npix`` on the CPU with ``algorithm``."""
    req = job_request(default_state())
    im = replace(req.imaging, npix=npix, algorithm=algorithm, **imaging)
    return replace(req, imaging=im, device="cpu")


def compare_request(npix: int = 512) -> JobRequest:
    """Compare of the default scene: pruned-nn, hybrid and conv against the DFT."""
    base = image_request("conv", npix)
    entries = tuple(ImagingOptions(npix=npix, algorithm=a) for a in ("pruned-nn", "hybrid", "conv"))
    return replace(base, task="compare", compare=entries)


def clean_request(npix: int = 512, niter: int = 100_000) -> JobRequest:
    """A long Högbom CLEAN of the default scene (its dirty image and PSF by ducc0)."""
    from uvlab.gpu.deconvolution.options import CleanOptions

    base = image_request("ducc", npix)
    return replace(base, task="clean", clean=CleanOptions(niter=niter, threshold_jy=0.0))


def ms_request(path, npix: int = 256) -> JobRequest:
    """Read and image the MS at ``path`` on the CPU."""
    im = ImagingOptions(npix=npix, algorithm="ducc")
    return JobRequest(source="ms", imaging=im, ms=MSSelection(str(path)), device="cpu")


def big_ms(path, nant: int = 32, ntime: int = 60, nchan: int = 32):
    """A generated MS large enough that reading it takes a while (tens of MB)."""
    from tests.support.ms_factory import make_ms

    return make_ms(
        path, np.random.default_rng(7), spw_nchan=(nchan,), ntime=ntime, nant=nant,
        flag_fraction=0.0,
    )  # fmt: skip


def counting_run(polls: list, stages: list):
    """A worker ``run`` that is the lab's job with every cancel poll and stage recorded.

    ``polls`` gets the stage last reported at each ``cancelled()`` call, ``stages``
    every stage reported (Progress and Partial events, and the job's own reports).
    """
    from uvlab.app.lab.jobs import Partial, Progress
    from uvlab.app.lab.live import iter_job

    def run(request, cache, cancelled, report):
        def counted():
            polls.append(stages[-1] if stages else "")
            return cancelled()

        def reporting(fraction, stage):
            stages.append(stage)
            report(fraction, stage)

        for event in iter_job(request, cache, counted, reporting):
            if isinstance(event, (Progress, Partial)):
                stages.append(event.stage)
            yield event

    return run
