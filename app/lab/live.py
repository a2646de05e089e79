"""The lab's one orchestration: a request in, a stream of events out (no Qt).

:func:`iter_job` turns a :class:`~uvlab.app.lab.jobs.JobRequest` into a stream of
events: :class:`Progress`, :class:`Partial` (the uv tracks so far and a preview
dirty image, after each time chunk of a prediction; an MS's summary) and a
final :class:`Done` with the task's output. Between chunks it calls
``cancelled()`` and raises :class:`uvlab.app.runtime.errors.Cancelled` when asked to
stop. The window's worker iterates it; ``uvlab demo``, ``uvlab image``,
``uvlab bench worker`` and scripts call :func:`run_job`.

A job is a source (:mod:`uvlab.app.lab.sources`: a synthetic observation or a
MeasurementSet, giving imaging-ready Samples) and a task on them: ``image``
(:func:`iter_image`: one :func:`~uvlab.gpu.imaging.imager.make_image` call
over all the data, so its timing breakdown is that of a single run, and the
sky model on the image grid), ``aliasing`` (:mod:`uvlab.app.lab.aliasing`) or
``compare`` (:mod:`uvlab.app.lab.compare_task`) or ``clean`` (CLEAN, a state per
cycle: :mod:`uvlab.app.lab.clean_task`).

What does not depend on the imaging choices is kept in a
:class:`~uvlab.app.lab.samples.WorkCache`, which only the worker thread
touches: casacore is used from that one thread alone. What the last image
shares with the next (the selected samples, the weights, ``conv``'s gridding
plan, the PSF) is kept there too (``cache.imaging``), so that an imaging-only
change or a sky edit grids only what it changed.

An imaging-only change (the prediction or the MS data reused, so no preview
came while predicting) on the CPU first shows a quick preview
(:func:`quick_preview`: the requested weighting on every k-th row, at most
:data:`PREVIEW_VIS` visibilities, ``ducc`` at ε = 1e-3, no PSF), tens of
milliseconds before the full image: the first image a change shows.

Threads: the image task's gridding runs on every core
(:data:`uvlab.app.lab.imaging.IMAGING_THREADS`): the window has nothing to draw until it ends (no
partials), and the worker thread runs at a lower priority
(:mod:`uvlab.app.gui.worker`), so the scheduler still favours the window.
The request's ``threads`` (every core but one, in the window) applies to the
tasks that stream partials or run many gridders (``aliasing``, ``compare``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from uvlab.app.lab.fourier_plane import MAX_NPIX as FT_MAX_NPIX
from uvlab.app.lab.fourier_plane import sky_amplitude
from uvlab.app.lab.imaging import IMAGING_THREADS
from uvlab.app.lab.jobs import Done, ImageOutput, JobRequest, Partial, Progress
from uvlab.app.lab.samples import Samples, WorkCache, block_check, check, sky_image
from uvlab.app.lab.sources import Report, iter_samples
from uvlab.gpu.gridders.registry import CPU_DEFAULT

#: Visibilities (rows × channels) in the quick preview of an imaging-only change, at most.
PREVIEW_VIS = 2.0e5
#: Accuracy of the quick preview's gridding.
QUICK_PREVIEW_EPS = 1e-3


def quick_preview(request: JobRequest, s: Samples) -> np.ndarray | None:
    """A dirty image of every k-th row of ``s``, ≤ PREVIEW_VIS visibilities; None if no rows.

    The request's weighting and taper on the subset (their density is the
    subset's, so Briggs and uniform look close to, not exactly like, the full
    image), ``ducc`` (ducc0) at ε = :data:`QUICK_PREVIEW_EPS`, normalised by its own
    weight sum: the same units as the full image.
    """
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.imaging.imager import ImagingError, make_image

    nrow, nchan = s.vis.shape
    step = max(1, int(np.ceil(nrow * nchan / PREVIEW_VIS)))
    weight = s.weight if np.ndim(s.weight) == 0 else s.weight[::step]
    try:
        res = make_image(
            s.uvw[::step],
            s.freq_hz,
            s.vis[::step],
            weight,
            s.spec,
            flag=s.flag[::step],
            weighting=request.imaging.weighting_spec(),
            algorithm=CPU_DEFAULT,
            params=GridParams.from_eps(QUICK_PREVIEW_EPS).with_(threads=IMAGING_THREADS),
            device="cpu",
            psf=False,
        )
    except ImagingError:  # e.g. every row of the subset flagged
        return None
    return res.dirty


def _wants_quick_preview(request: JobRequest, s: Samples, previewed: bool) -> bool:
    """CPU, previews on, none shown while the samples were made, and enough data to wait for."""
    from uvlab.gpu.backend import resolve_device

    return (
        request.preview
        and not previewed
        and resolve_device(request.device) == "cpu"
        and s.vis.size > 4 * PREVIEW_VIS
    )


def iter_image(
    request: JobRequest, s: Samples, cancelled, cache: WorkCache, previewed: bool = True
) -> Iterator:
    """The ``image`` task: dirty image and PSF of the samples, and the model image.

    ``previewed``: a preview image was already shown by this job (else, on the
    CPU, :func:`quick_preview` comes first). A synthetic image carries its noise
    (:func:`~uvlab.app.lab.corruptions.noise_report`) and, with a primary beam, the power
    beam over the field (:func:`~uvlab.app.lab.corruptions.beam_map`).
    """
    from uvlab.gpu.backend import get_xp, resolve_device
    from uvlab.gpu.imaging.imager import make_image

    im = request.imaging
    yield Progress(0.72, f"imaging ({im.algorithm})")
    if _wants_quick_preview(request, s, previewed):
        preview = quick_preview(request, s)
        check(cancelled)
        if preview is not None:
            yield Partial("imaging", 0.75, dirty=preview, spec=s.spec)
    vis = s.vis
    params = request.grid_params()
    if request.params is None and params is not None:  # threads from the request's
        params = params.with_(threads=IMAGING_THREADS)
    if request.params is not None and request.params.precision == "single":
        vis = vis.astype(np.complex64, copy=False)  # imaged in single precision
    res = make_image(
        s.uvw,
        s.freq_hz,
        vis,
        s.weight,
        s.spec,
        flag=s.flag,
        weighting=im.weighting_spec(),
        algorithm=im.algorithm,
        params=params,
        device=request.device,
        cache=cache.imaging,
        data_key=s.data_key,
        vis_key=s.vis_key if vis is s.vis else None,  # a single-precision copy is not s.vis
        on_block=block_check(cancelled),
    )
    check(cancelled)
    freq = float(np.mean(s.freq_hz))
    key = None if s.sky_key is None else (s.sky_key, request.image_sky, s.spec, freq)
    model = cache.derived(
        "model", key, lambda: sky_image(request, s.sources, s.spec, s.ra0_rad, s.dec0_rad, freq)
    )
    model_ft = None  # the Fourier-plane view's (none for the largest images)
    xp = get_xp(device=request.device)
    if s.spec.npix <= FT_MAX_NPIX:
        model_ft = cache.derived(
            "model-ft", key, lambda: sky_amplitude(model, s.spec.cell_rad, xp)[0]
        )
    noise, beam = None, None
    if s.source == "synthetic":
        from uvlab.app.lab.corruptions import noise_report

        noise = noise_report(
            request.corruptions, request.observation, im, res.dirty, res.nvis, samples=s, xp=xp
        )
        beam = cache.derived("beam-map", (request.corruptions, key), lambda: _beam_map(request, s))
    yield Done(
        ImageOutput(
            source=s.source,
            spec=s.spec,
            dirty=res.dirty,
            psf=res.psf,
            model=model,
            uv=s.uv,
            antennas=s.antennas,
            ra0_rad=float(s.ra0_rad),
            dec0_rad=float(s.dec0_rad),
            freq_hz=np.asarray(s.freq_hz),
            algorithm=im.algorithm,
            device=resolve_device(request.device),
            nvis=res.nvis,
            nsrc=s.sources.nsrc,
            sum_weights=res.sum_weights,
            timing={**s.timing, **res.timing},
            info=s.info,
            description=s.description,
            sources_lm=np.array(s.sources.lmn[:, :2]),
            model_ft=model_ft,
            noise=noise,
            beam=beam,
        )
    )


def _beam_map(request: JobRequest, s: Samples):
    """The power beam over the field at the centre frequency (None without a beam)."""
    from uvlab.app.lab.corruptions import beam_map

    corrupt = request.corruptions
    if corrupt is None or not corrupt.jones.has_beam:
        return None
    freq = 0.5 * float(np.min(s.freq_hz) + np.max(s.freq_hz))
    dish = s.antennas.diameter_m if s.antennas is not None else []
    half = 0.5 * s.spec.npix * s.spec.cell_rad
    return beam_map(corrupt.jones, dish, freq, half, s.sources)


def iter_job(
    request: JobRequest,
    cache: WorkCache | None = None,
    cancelled: Callable[[], bool] | None = None,
    report: Report | None = None,
) -> Iterator:
    """The events of one job: Progress and Partial, then one Done.

    Parameters
    ----------
    request : JobRequest
    cache : WorkCache, optional
        Reused observation, prediction and MS data (default: a fresh one).
    cancelled : callable() -> bool, optional
        Polled between chunks; True raises :class:`~uvlab.app.runtime.errors.Cancelled`.
    report : callable(fraction, stage), optional
        Progress from inside long single calls (the MS reader).
    """
    cache = cache or WorkCache()
    report = report or (lambda f, s: None)
    previewed = []  # the source's partials that carried a preview image
    samples = yield from _noting_previews(
        iter_samples(request, cache, cancelled, report, stream=True), previewed
    )
    check(cancelled)
    from uvlab.app.lab.ms_streamed import Streamed, iter_streamed

    if isinstance(samples, Streamed):  # an MS the memory cannot hold: imaged in row chunks
        yield from iter_streamed(request, samples, cache, cancelled, report)
        return
    if request.task != "image":  # the comparisons read the visibilities on the host
        samples = samples.on_host()
    if request.task == "image":
        yield from iter_image(request, samples, cancelled, cache, previewed=bool(previewed))
    elif request.task == "aliasing":
        from uvlab.app.lab.aliasing import iter_aliasing

        yield from iter_aliasing(request, samples, cancelled)
    elif request.task == "compare":
        from uvlab.app.lab.compare_task import iter_compare

        yield from iter_compare(request, samples, cancelled)
    elif request.task == "clean":
        from uvlab.app.lab.clean_task import iter_clean

        yield from iter_clean(request, samples, cancelled, cache)
    else:  # a new task gets its branch here
        raise ValueError(f"unknown task {request.task!r}")


def _noting_previews(events: Iterator, seen: list) -> Iterator:
    """Re-yield ``events``, noting in ``seen`` each Partial with an image; returns their value."""
    while True:
        try:
            event = next(events)
        except StopIteration as stop:
            return stop.value
        if isinstance(event, Partial) and event.dirty is not None:
            seen.append(event)
        yield event


def run_job(request: JobRequest, cache: WorkCache | None = None):
    """Run a job to completion without Qt; returns its output (for scripts and tests)."""
    out = None
    for event in iter_job(request, cache):
        if isinstance(event, Done):
            out = event.output
    return out
