"""The window's MS job for an MS the memory cannot hold: imaged in row chunks (issue 27).

:func:`~uvlab.app.lab.ms_source.check_read_memory` decides, as for every MS the lab opens;
where it refuses, the window's job (:func:`~uvlab.app.lab.live.iter_job`) gets a
:class:`Streamed` instead of Samples and :func:`iter_streamed` images the selection with
``uvlab image``'s chunked path (:func:`uvlab.app.scale.ms_image.image_ms`) on a Dask
cluster: a local one of a worker per core (:func:`~uvlab.app.scale.cluster.cluster_client`,
or the one ``UVLAB_SCHEDULER`` names), its chunks sized from the memory uvlab may use
(:mod:`uvlab.app.scale.budget`) and at most ``1/MIN_CHUNKS`` of the rows, so that the
progress moves and a cancel is heard at least that often. No process holds the selection:

1. The selection's first row gives its channels and phase centre (:class:`MSRead`: the
   window's field, window, Stokes, channels, time range, interval, antennas, phase centre
   and uv range, as its in-memory read selects them).
2. A survey pass (:func:`survey_chunk`, a task per chunk) gives the uv view's rows: every
   k-th row, at most :data:`UV_ROWS` (*a subsample*, which the view and the log say); with
   an automatic cell it reads every chunk, for the longest baseline that sets the cell
   (the in-memory read's cell exactly), else only as many chunks, spread over the
   selection, as the subsample needs.
3. :func:`~uvlab.app.scale.ms_image.image_ms` makes the dirty image and PSF (for uniform
   and Briggs a density pass first), its progress per chunk the job's Progress; a cancel
   stops it as the running chunks end and the cluster is closed.

The ``clean`` task runs over the chunks too, as ``uvlab image --niter`` with a cluster
option does (:mod:`uvlab.app.lab.ms_streamed_clean`), its chunks sized for all of CLEAN's
passes. Tasks that need every sample in memory at once (the aliasing maps, a comparison)
are refused in one line (:func:`refuse`).
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from uvlab.app.lab.jobs import Antennas, Done, ImageOutput, JobRequest, Partial, Progress
from uvlab.app.lab.samples import WorkCache, check, sky_image, uv_rows
from uvlab.app.runtime.errors import Cancelled

#: Rows of the uv view's subsample, at most.
UV_ROWS = 100_000
#: Chunks at least (where there are rows enough): the progress and a cancel move per chunk.
MIN_CHUNKS = 16
#: The tasks that need every sample in memory, as the refusal names them.
WHOLE_TASKS = {"aliasing": "The aliasing maps need", "compare": "A comparison needs"}


@dataclass(frozen=True, eq=False)
class Streamed:
    """An MS the memory cannot hold, opened but not read: its summary, its antennas, and
    why it is not read (:func:`~uvlab.app.lab.ms_source.check_read_memory`'s line)."""

    info: object
    antennas: Antennas
    reason: str


def refuse(request: JobRequest, st: Streamed) -> None:
    """Raise ``ValueError`` (one line) for a task that needs every sample in memory."""
    what = WHOLE_TASKS.get(request.task)
    if what is None:
        return
    name = os.path.basename(os.path.normpath(st.info.path))
    raise ValueError(
        f"{what} every sample of {name} in memory, which cannot hold them: the window "
        "images and CLEANs it in row chunks, and compares algorithms only on an MS that fits "
        "(docs/scaling.md)"
    )


def ms_read(request: JobRequest, cache: WorkCache, info):
    """The :class:`~uvlab.app.scale.ms_read.MSRead` of the request's selection: its rows
    as the in-memory read (:meth:`~uvlab.app.lab.samples.WorkCache.ms_data`) selects them
    (an interval made the time range of its timesteps; rows of other antennas flagged)."""

    from uvlab.app.scale.ms_read import MSRead

    sel = request.ms
    source = MSRead(
        sel.path, sel.field, sel.spw, sel.column, sel.stokes, sel.channels,
        cache.time_range(sel), sel.antenna or None,
        tuple(info.antenna_names) if sel.antenna else (), sel.phase_centre, sel.uvrange,
    )  # fmt: skip
    if sel.interval is None:
        return source
    return source.interval(*sel.interval, "interval")


@dataclass(frozen=True, eq=False)
class Survey:
    """What the survey pass keeps of a chunk: its longest baseline's uvw (m) and its rows
    of the uv subsample (uvw (k, 3) m, time (k,), antennas (k,), ``keep``: not all flagged)."""

    uv2_max: float
    uvw_max: np.ndarray
    uvw: np.ndarray
    time: np.ndarray
    ant1: np.ndarray
    ant2: np.ndarray
    keep: np.ndarray


def survey_chunk(chunk, *, step: int) -> Survey:
    """The :class:`Survey` of ``chunk`` (``(MSRead, (start, stop))``, read on a worker):
    the rows of the selection whose index is a multiple of ``step``."""
    from uvlab.app.scale.ms_read import chunk_data

    vd = chunk_data(chunk)
    start = chunk[1][0]
    rows = slice((-start) % step, None, step)
    uvw = np.asarray(vd.uvw, dtype=np.float64)
    uv2 = uvw[:, 0] ** 2 + uvw[:, 1] ** 2
    k = int(np.argmax(uv2)) if uv2.size else 0
    return Survey(
        float(uv2[k]) if uv2.size else -1.0, uvw[k].copy() if uv2.size else np.zeros(3),
        uvw[rows].copy(), np.asarray(vd.time)[rows].copy(), np.asarray(vd.ant1)[rows].copy(),
        np.asarray(vd.ant2)[rows].copy(), ~np.asarray(vd.flag)[rows].all(axis=1),
    )  # fmt: skip


def survey_chunks(chunks: list, nrow: int, rows: int, every_chunk: bool) -> tuple[list, int]:
    """(the chunks the survey reads, its row step): every chunk (``every_chunk``: for the
    longest baseline) or as many as :data:`UV_ROWS` rows need, spread evenly; the step
    keeps at most :data:`UV_ROWS` of the rows read."""
    if every_chunk:
        return chunks, max(1, math.ceil(nrow / UV_ROWS))
    n = min(len(chunks), max(1, math.ceil(UV_ROWS / max(1, rows))))
    picks = sorted({round(x) for x in np.linspace(0, len(chunks) - 1, n)})
    chosen = [chunks[i] for i in picks]
    read = sum(b - a for _, (a, b) in chosen)
    return chosen, max(1, math.ceil(read / UV_ROWS))


def iter_survey(client, chunks, step: int, cancelled, lo: float, hi: float) -> Iterator:
    """Run :func:`survey_chunk` over ``chunks`` on the cluster, Progress per chunk in
    [lo, hi]; returns the surveys in the chunks' order (``yield from``)."""
    from distributed import as_completed

    futures = [client.submit(survey_chunk, c, step=step, pure=False) for c in chunks]
    try:
        for k, _done in enumerate(as_completed(futures), start=1):
            if cancelled is not None and cancelled():
                raise Cancelled("job cancelled")
            yield Progress(lo + (hi - lo) * k / len(futures), "survey (uv subsample)")
        return client.gather(futures)
    finally:
        client.cancel(futures)


def chunk_rows_for(request: JobRequest, meta, nrow: int, memory, nworkers: int, device) -> int:
    """Rows per chunk: what a worker's share of ``memory`` holds beside the image-sized part
    (:mod:`uvlab.app.scale.budget`, as ``uvlab image --abs-mem`` sizes them; through all of
    CLEAN's passes for the ``clean`` task), and at most ``1/MIN_CHUNKS`` of the ``nrow``
    rows. ``ValueError`` (one line) when a worker cannot hold the image-sized part."""
    from uvlab.app.scale.budget import (
        BudgetError,
        chunk_rows,
        clean_grid_costs,
        clean_nufft_costs,
        grid_costs,
        grid_share,
        image_bytes,
        nufft_costs,
    )
    from uvlab.app.scale.ms_image import summing
    from uvlab.gpu.image_spec import ImageSpec

    im = request.imaging
    params, wt = request.grid_params(), im.weighting_spec()
    density = wt.density_spec(ImageSpec(im.npix, 1e-6)).npix if wt.scheme != "natural" else 0
    share = math.inf if memory is None else memory / max(1, nworkers)
    summed = summing(im.algorithm, params, device)
    ncorr, what = len(meta.corr_names), f"a {im.npix}² image"
    clean = request.task == "clean"
    major = clean and request.clean is not None and request.clean.deconvolver == "cotton-schwab"
    try:
        if summed == "grids":
            costs = (
                clean_grid_costs(im.npix, im.algorithm, params, density_npix=density, major=major)
                if clean
                else grid_costs(im.npix, im.algorithm, params, density_npix=density)
            )
        elif summed == "nufft":
            costs = (
                clean_nufft_costs(im.npix, density_npix=density, major=major)
                if clean
                else nufft_costs(im.npix, density_npix=density)
            )
        if summed in ("grids", "nufft"):
            plan = chunk_rows(grid_share(share), meta.nchan, ncorr, costs.fixed, what=what,
                              grid=costs)  # fmt: skip
        else:
            fixed = image_bytes(im.npix, im.algorithm, params, density_npix=density, clean=clean)
            plan = chunk_rows(share, meta.nchan, ncorr, fixed, what=what)
    except BudgetError as exc:  # one line, not a MemoryError
        raise ValueError(
            f"{os.path.basename(meta.path)} cannot be imaged in chunks: {exc}"
        ) from None
    return max(1, min(plan.rows, math.ceil(nrow / MIN_CHUNKS)))


def iter_streamed(
    request: JobRequest, st: Streamed, cache: WorkCache, cancelled=None, report=None
) -> Iterator:
    """The ``image`` or ``clean`` task of an MS the memory cannot hold, in row chunks on a
    Dask cluster.

    Yields Progress (the survey's per chunk; the imaging's per chunk go to
    ``report(fraction, stage)``, as the reader's do) and Partial events, then one Done
    with an :class:`~uvlab.app.lab.jobs.ImageOutput` whose uv rows are a subsample
    (``uv.of_rows`` the selection's rows); for the ``clean`` task a CleanState per cycle
    (:func:`~uvlab.app.lab.ms_streamed_clean.iter_streamed_clean`). The aliasing maps and
    comparisons are refused (:func:`refuse`).
    ``cancelled()`` is asked between chunks; a cancel raises
    :class:`~uvlab.app.runtime.errors.Cancelled` and closes the cluster.
    """
    from uvlab.app.runtime.memory import USABLE_FRACTION
    from uvlab.app.runtime.memory_limits import available_bytes
    from uvlab.app.scale.chains import Cancelled as ChunksCancelled
    from uvlab.app.scale.cluster import (
        SCHEDULER_ENV,
        cluster_client,
        default_worker_count,
        describe,
        visible_gpus,
    )
    from uvlab.app.scale.ms_image import image_ms, row_chunks
    from uvlab.gpu.backend import resolve_device

    refuse(request, st)
    report = report or (lambda f, s: None)
    im, timing = request.imaging, {}
    t0 = time.perf_counter()
    source = ms_read(request, cache, st.info)
    meta, nrow = source.read((0, 1)), source.count()  # the selection checked before any work
    device = resolve_device(request.device)
    gpus = visible_gpus() if device == "gpu" and not os.environ.get(SCHEDULER_ENV) else []
    free = available_bytes()
    memory = None if free is None else int(USABLE_FRACTION * free)
    nworkers = default_worker_count(gpus)
    rows = chunk_rows_for(request, meta, nrow, memory, nworkers, device)
    chunks = [(source, r) for r in row_chunks(nrow, rows)]
    check(cancelled)
    yield Progress(0.02, "starting a Dask cluster")
    died = worker_deaths(os.path.basename(meta.path), rows, memory, nworkers)
    with died, cluster_client(None, workers=min(nworkers, len(chunks)), memory_bytes=memory,
                              gpus=gpus) as client:  # fmt: skip
        where = describe(client).split(";")[0]
        timing["read MS"] = time.perf_counter() - t0  # the summary, the first row, the cluster
        check(cancelled)
        t0 = time.perf_counter()
        every = request.spec is None and not im.cell_arcsec  # the cell from the longest baseline
        chosen, step = survey_chunks(chunks, nrow, rows, every)
        surveys = yield from iter_survey(client, chosen, step, cancelled, 0.05, 0.25)
        timing["survey (uv subsample)"] = time.perf_counter() - t0
        whole = step == 1 and len(chosen) == len(chunks)  # every row: no subsample
        spec, uv = _geometry(request, surveys, meta, st.info.nant, None if whole else nrow)
        yield Partial("survey (uv subsample)", 0.25, uv=uv, spec=spec, urgent=True)
        yield from _notes(request, spec, meta)
        params = request.grid_params()
        params = params.with_(threads=1) if params is not None else None  # a core a worker
        if request.task == "clean":
            from uvlab.app.lab.ms_streamed_clean import iter_streamed_clean

            yield from iter_streamed_clean(request, client, source, spec, meta, rows, params,
                                           device, cancelled, report)  # fmt: skip
            return
        try:
            res = image_ms(
                client, source, spec, im.weighting_spec(), chunk_rows=rows,
                algorithm=im.algorithm, params=params, device=device, cancelled=cancelled,
                progress=lambda f, stage: report(0.25 + 0.7 * f, stage),
            )  # fmt: skip
        except ChunksCancelled:
            raise Cancelled("job cancelled") from None
    check(cancelled)
    timing.update(res.timing)
    yield Progress(0.96, "sky model")
    yield Done(_output(request, st, meta, nrow, spec, uv, res, timing,
                       f"streamed in {res.chunks} chunks of ≤ {rows} rows on {where}"))  # fmt: skip


@contextlib.contextmanager
def worker_deaths(name: str, rows: int, memory, nworkers: int) -> Iterator[None]:
    """Dask's ``KilledWorker`` (a worker died, e.g. past its memory limit, as often as Dask
    retries a task) as one line naming the MS, the chunks and the workers' memory."""
    from distributed import KilledWorker

    from uvlab.app.runtime.memory import format_bytes

    try:
        yield
    except KilledWorker:
        each = "" if memory is None else f" of {format_bytes(memory / max(1, nworkers))}"
        raise RuntimeError(
            f"{name}: the Dask workers{each} died imaging chunks of {rows} rows (out of "
            "memory?); close other programs and open it again, or image it from the command "
            "line with a smaller --chunk-rows (docs/scaling.md)"
        ) from None


def _geometry(request: JobRequest, surveys, meta, nant: int, of_rows: int | None):
    """(ImageSpec, UvData): the image's geometry (the cell from the longest baseline of all
    the rows surveyed: every row when the cell is automatic) and the uv rows surveyed, a
    subsample of ``of_rows`` (None: they are every row)."""
    from dataclasses import replace

    from uvlab.app.lab.samples import image_spec_for

    top = max(surveys, key=lambda s: s.uv2_max)
    spec = image_spec_for(request, top.uvw_max[None, :], meta.freq_hz)
    uv = uv_rows(
        np.concatenate([s.uvw for s in surveys]), np.concatenate([s.time for s in surveys]),
        np.concatenate([s.ant1 for s in surveys]), np.concatenate([s.ant2 for s in surveys]),
        nant, meta.freq_hz, np.concatenate([s.keep for s in surveys]),
    )  # fmt: skip
    return spec, replace(uv, of_rows=of_rows)


def _notes(request: JobRequest, spec, meta) -> Iterator:
    """The horizon's and the sky's one-line warnings, as the in-memory read gives them."""
    from uvlab.app.lab.image_notes import image_note, outside_image_note

    for note in (
        image_note(request, spec),
        outside_image_note(request.sky, spec, meta.ra0_rad, meta.dec0_rad),
    ):
        if note:
            yield Partial("survey (uv subsample)", 0.25, urgent=True, warning=note)


def _output(request, st, meta, nrow, spec, uv, res, timing, how: str) -> ImageOutput:
    """The job's ImageOutput: the chunks' images, the uv subsample and the sky model."""
    from uvlab.app.lab.fourier_plane import MAX_NPIX, sky_amplitude

    freq = float(np.mean(meta.freq_hz))
    sources = request.sky.sources_for(meta.ra0_rad, meta.dec0_rad)
    model = sky_image(request, sources, spec, meta.ra0_rad, meta.dec0_rad, freq)
    model_ft = sky_amplitude(model, spec.cell_rad, np)[0] if spec.npix <= MAX_NPIX else None
    what = (
        f"{os.path.basename(meta.path)}: field {meta.field} '{meta.field_name}', spw "
        f"{meta.spw}, {meta.column} {meta.stokes}, {nrow} rows × {meta.nchan} ch, {how}"
    )
    if uv.of_rows is not None:
        what += f"; uv coverage drawn from a subsample of {uv.nrow:,} rows"
    return ImageOutput(
        source="ms", spec=spec, dirty=res.dirty, psf=res.psf, model=model, uv=uv,
        antennas=st.antennas, ra0_rad=float(meta.ra0_rad), dec0_rad=float(meta.dec0_rad),
        freq_hz=np.asarray(meta.freq_hz), algorithm=request.imaging.algorithm,
        device=res.device, nvis=res.nvis, nsrc=sources.nsrc, sum_weights=res.sum_weights,
        timing=timing, info=st.info, description=what,
        sources_lm=np.array(sources.lmn[:, :2]), model_ft=model_ft,
    )  # fmt: skip
