"""The size of a synthetic job: its memory, checked first, and its prediction's time chunks.

:func:`check_job_memory` refuses a job the memory cannot hold, from the request
alone, before anything is simulated; :func:`time_chunks` splits the prediction
into chunks of bounded work, after each of which the synthetic source
(:mod:`uvlab.app.lab.synthetic_source`) reports progress and may show a preview.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from uvlab.app.lab.jobs import JobRequest

#: Source·visibility products per prediction chunk (≈ 0.2 s on one CPU core).
WORK_PER_CHUNK = 1.5e6
#: Source·visibility products per prediction chunk on the GPU (≈ 30 ms on an H100).
GPU_WORK_PER_CHUNK = 1e8
#: Source·visibility products in the first chunk (its preview is the first image shown).
FIRST_CHUNK_WORK = 1.5e5
#: At least this many time chunks (when there are that many times).
MIN_CHUNKS = 10


def time_chunks(ntime: int, work_per_time: float, device: str = "cpu") -> list[slice]:
    """Split ``ntime`` integrations into chunks of bounded work (≥ MIN_CHUNKS if possible).

    The first chunk is at most :data:`FIRST_CHUNK_WORK` (at least one
    integration): its preview is the first image a change shows, so it comes
    after tens of milliseconds, not after a tenth of the prediction. The
    others share the rest evenly; the count is unchanged.

    On the GPU a whole prediction takes tens of milliseconds, and each chunk
    costs host work (uploads, launches): chunks of :data:`GPU_WORK_PER_CHUNK`,
    as few as that allows.
    """
    work = max(work_per_time, 1.0)
    if device == "gpu":
        n = min(ntime, max(1, math.ceil(ntime * work / GPU_WORK_PER_CHUNK)))
        edges = np.unique(np.linspace(0, ntime, n + 1).round().astype(int))
        return [slice(int(a), int(b)) for a, b in itertools.pairwise(edges)]
    n = min(ntime, max(MIN_CHUNKS, math.ceil(ntime * work / WORK_PER_CHUNK)))
    first = max(1, min(math.ceil(ntime / n), int(FIRST_CHUNK_WORK // work)))
    rest = np.linspace(first, ntime, n).round().astype(int) if n > 1 else np.array([ntime])
    edges = np.unique(np.concatenate([[0], rest]))
    return [slice(int(a), int(b)) for a, b in itertools.pairwise(edges)]


def check_job_memory(request: JobRequest, predicted: bool = False) -> None:
    """Refuse a synthetic job whose observation, visibilities and image the memory cannot hold.

    Sized from the request alone, before anything is simulated: the observation
    with its uv rows, the Stokes-I visibilities (the job's precision), then the
    larger of the prediction's temporaries and the imaging of the job's
    entries (:func:`uvlab.app.ms.simulation_size.stokes_i_estimate`). With
    ``predicted`` (the visibilities are in the cache) only the imaging counts.
    Raises :class:`~uvlab.app.runtime.memory.InsufficientMemoryError` (one line).
    """
    from uvlab.app.lab.compare import DFT_CHUNK_BYTES
    from uvlab.app.ms.simulation_size import observation_size, predict_path, stokes_i_estimate
    from uvlab.app.runtime.memory import MemoryEstimate, check_memory, imaging_estimate

    size = observation_size(request.observation)
    ns = size.nsamples
    entries = request.compare if request.task == "compare" else (request.imaging,)
    imaging = max(
        (imaging_estimate(e.npix, e.algorithm, e.grid_params(), nvis=ns) for e in entries),
        key=lambda e: e.total,
    )
    if request.task == "compare":
        imaging = imaging + MemoryEstimate({"dft reference": DFT_CHUNK_BYTES})
    est = imaging
    if not predicted:
        est = stokes_i_estimate(
            size,
            nsrc=len(request.sky),
            path=predict_path(request.sky, request.smearing),
            itemsize=8 if request.imaging.precision == "single" else 16,
            flag_bytes=0,  # one flag per row
            extra_row_bytes=64,  # the uv view's rows and the row times
            imaging=imaging,
        )
    npix = max(e.npix for e in entries)
    sources = f"{len(request.sky)} source{'' if len(request.sky) == 1 else 's'}"
    check_memory(
        est,
        f"this observation ({size.describe()}, {sources}) and its {npix}² "
        f"image{'s' if len(entries) > 1 else ''}",
        hint="use fewer channels or integrations (a longer integration time), a smaller "
        "array or a smaller image",
    )
