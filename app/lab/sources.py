"""The lab's data sources: a synthetic observation, a MeasurementSet (no Qt).

Each source is a generator that yields :class:`~uvlab.app.lab.jobs.Progress`
and :class:`~uvlab.app.lab.jobs.Partial` events and returns imaging-ready
:class:`~uvlab.app.lab.samples.Samples` (``samples = yield from ...``):

- :func:`iter_synthetic` simulates the request's observation and predicts its
  sky in time chunks, with a preview image and the uv tracks so far after
  each (at most every :data:`PREVIEW_INTERVAL_S`); a synthetic request is
  sized before anything is simulated (:func:`check_job_memory`);
- :func:`iter_measurement_set` opens an MS (its summary first, as an urgent
  partial) and reads the selection.

The sky goes to the engine through
:meth:`~uvlab.app.skymodel.SkyModel.sources_for`: a relative sky (a demo
sky) is first moved to the phase centre of the data (the observation's, the
MS field's), an absolute one (a sky file) stays where it is. When every
component of the sky lies outside the image, the first partial carries a
one-line warning (:func:`outside_image_note`).

A sky edit re-predicts only what changed (:mod:`uvlab.app.lab.sky_edits`).

The request's :class:`~uvlab.app.lab.corruptions.Corruptions` (the Instrument tab) enter
the synthetic prediction: the primary beam and gain errors through an
:class:`~uvlab.app.jones.ObservationJones` of the components predicted (a sky edit's too:
the visibilities stay linear in the sky), the thermal noise added per integration from its
seed. When any is on, they join the prediction's cache key (after the image sky), so a
change of them predicts everything again and an imaging change reuses the prediction.

The preview image of a synthetic run is the natural-weighted ``conv`` (ducc0,
ε = 1e-4) image of the chunks predicted so far, accumulated linearly:
``Σ_k D_k·W_k / Σ_k W_k`` with ``D_k`` the normalised image of the times
predicted since the previous preview and ``W_k`` their weight sum.

What does not depend on the imaging choices (the observation, the predicted
visibilities, an MS's summary and data) is kept in the
:class:`~uvlab.app.lab.samples.WorkCache`. :func:`iter_samples` picks the
request's source; :func:`read_samples` runs it to the end for the commands.
"""

from __future__ import annotations

import itertools
import math
import os
import time
from collections.abc import Callable, Iterator

import numpy as np

from uvlab.app.lab.jobs import Antennas, JobRequest, Partial, Progress, UvData, run_to_end
from uvlab.app.lab.samples import (
    Samples,
    WorkCache,
    antennas_from_ecef,
    check,
    image_spec_for,
    ms_key,
    uv_rows,
)
from uvlab.app.lab.sky_edits import edit_sources, held_edit
from uvlab.app.skymodel import SkyModel

#: Source·visibility products per prediction chunk (≈ 0.2 s on one CPU core).
WORK_PER_CHUNK = 1.5e6
#: Source·visibility products per prediction chunk on the GPU (≈ 30 ms on an H100).
GPU_WORK_PER_CHUNK = 1e8
#: Source·visibility products in the first chunk (its preview is the first image shown).
FIRST_CHUNK_WORK = 1.5e5
#: At least this many time chunks (when there are that many times).
MIN_CHUNKS = 10
#: An image sky's degridding counted as this many components when chunking the prediction.
IMAGE_SKY_WORK = 20
#: Accuracy of the preview images.
PREVIEW_EPS = 1e-4
#: A preview image and the uv so far are made at most this often (and after the last chunk).
PREVIEW_INTERVAL_S = 0.25

#: The part of a job's progress its source takes (the task has the rest).
SHARE = {"synthetic": 0.7, "ms": 0.6}

Report = Callable[[float, str], None]


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
    entries (:func:`uvlab.app.ms.simulate.stokes_i_estimate`). With
    ``predicted`` (the visibilities are in the cache) only the imaging counts.
    Raises :class:`~uvlab.app.memory.InsufficientMemoryError` (one line).
    """
    from uvlab.app.lab.compare import DFT_CHUNK_BYTES
    from uvlab.app.memory import MemoryEstimate, check_memory, imaging_estimate
    from uvlab.app.ms.simulate import observation_size, predict_path, stokes_i_estimate

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


def iter_synthetic(request: JobRequest, cache: WorkCache, cancelled=None) -> Iterator:
    """Simulate and predict in time chunks; returns Samples (``yield from``).

    Each chunk is predicted by :func:`uvlab.app.predict_obs.predict_integrations`
    (Stokes I), as ``uvlab simulate`` predicts what it writes. The observation
    comes from the cache when it is the held one; so do the visibilities, as
    they are (``cache.last_prediction_kind == "cached"``) or updated for a sky
    edit (``"incremental"``: no preview images, one partial with the uv; the
    timing's ``predict`` is the time the edit's components took), else every
    component is predicted (``"full"``).
    """
    from uvlab.app.predict_obs import predict_integrations
    from uvlab.gpu.backend import get_xp, resolve_device
    from uvlab.gpu.timing import StageTimer

    im = request.imaging
    dev = resolve_device(request.device)
    xp = get_xp(device=dev)  # the visibilities stay where they are predicted
    key = (request.observation, request.sky, request.smearing, im.precision, dev)
    if request.image_sky is not None:  # last: held_edit compares key[2:], so a new image
        key = (*key, request.image_sky)  # (or none) is predicted in full
    corrupt = request.corruptions
    if corrupt is not None and corrupt.active:  # beam, gains, noise: a change predicts anew
        key = (*key, corrupt)
    else:
        corrupt = None
    predicted = cache.prediction(key) is not None
    edit = None if predicted else held_edit(cache, key)
    if not predicted and edit is None:
        cache.store_prediction(None, None)  # about to be replaced: free it before sizing
    # before anything the size of the data is made; an edit's chunks are small
    check_job_memory(request, predicted or edit is not None)
    yield Progress(0.0, "uvw")
    obs, t_uvw = cache.observation(request.observation)
    check(cancelled)
    ntime, nbl, nchan = obs.ntime, obs.nbl, obs.freq_hz.size
    layout = obs.layout
    antennas = Antennas(
        layout.enu(), layout.antenna_names, np.asarray(layout.dish_diameter), layout.subarray
    )
    spec = image_spec_for(request, obs.uvw, obs.freq_hz, cache, data_key=request.observation)
    if horizon := image_note(request, spec):
        yield Partial("uvw", 0.0, urgent=True, warning=horizon)
    sources = request.sky.sources_for(obs.ra0_rad, obs.dec0_rad)
    note = outside_image_note(request.sky, spec, obs.ra0_rad, obs.dec0_rad)
    uvw = obs.uvw.reshape(-1, 3)
    flag = obs.flag.reshape(-1)
    times = obs.time_rows()
    timing = {"uvw": t_uvw} if t_uvw else {}  # cached parts cost nothing this run
    # CUDA events on the GPU: its prediction stays there, so the time is the device's too
    timer = StageTimer(gpu=dev == "gpu")

    def rows_until(t: int) -> UvData:
        r = t * nbl
        return uv_rows(
            uvw[:r],
            times[:r],
            np.tile(obs.ant1, t),
            np.tile(obs.ant2, t),
            layout.nant,
            obs.freq_hz,
            ~flag[:r],
        )

    def uv_until(t: int) -> UvData:
        """The uv rows of the first t times; all of them are kept for later jobs."""
        if t < ntime:
            return rows_until(t)
        return cache.derived("uv", request.observation, lambda: rows_until(ntime))

    def complete() -> Partial:
        """All the uv at once (a prediction reused or updated: no chunks to show)."""
        return Partial(
            "predict",
            0.7,
            uv=uv_until(ntime),
            spec=spec,
            antennas=antennas,
            urgent=note is not None,
            warning=note,
        )

    jones_for = {}  # id(components) → their ObservationJones (the beam at their positions)

    def predict(components, sl: slice):
        """Integrations ``sl`` of ``components``, left where predicted, timed as "predict".

        With the request's beam and gains (:class:`~uvlab.app.jones.ObservationJones`).
        """
        with timer.stage("predict"):
            jones = None
            if corrupt is not None and corrupt.jones.active:
                if id(components) not in jones_for:
                    from uvlab.app.jones import ObservationJones

                    jones_for[id(components)] = ObservationJones(
                        obs, components, corrupt.jones, "scalar"
                    )
                jones = jones_for[id(components)]
            return predict_integrations(
                obs, components, sl, smearing=request.smearing, dtype=im.dtype, device=dev,
                host=False, jones=jones,
            )  # fmt: skip

    noise_sigma = 0.0  # σ_I of the thermal noise per real/imaginary part, Jy
    if corrupt is not None and corrupt.has_noise:
        from uvlab.app.lab.corruptions import stokes_i_sigma

        noise_sigma = stokes_i_sigma(corrupt.sefd_jy, obs.chan_width_hz, obs.int_s)

    image = None  # the image sky on its own grid about the phase centre, degridded
    if request.image_sky is not None:
        sky_img = request.image_sky
        ra0, dec0 = math.degrees(obs.ra0_rad), math.degrees(obs.dec0_rad)
        image = cache.derived(
            "image-sky-grid", (sky_img, ra0, dec0), lambda: sky_img.native_grid(ra0, dec0)
        )

    def predict_image(sl: slice, cdtype):
        """Integrations ``sl`` of the image sky (degridded; no smearing), timed as "predict"."""
        from uvlab.app.predict_obs import predict_image_integrations

        model, grid = image
        with timer.stage("predict"):
            v = predict_image_integrations(
                obs, model, grid, sl, ref_freq_hz=request.image_sky.ref_freq_hz,
                spectral_index=request.image_sky.spectral_index, device=dev,
            )  # fmt: skip
            return xp.asarray(v.astype(cdtype, copy=False))

    vis = cache.prediction(key)
    if vis is None and edit is not None:
        vis = cache.take_prediction()  # changed in place: a cancelled edit leaves none held
        delta = edit_sources(edit, request.sky.centre_deg, obs.ra0_rad, obs.dec0_rad)
        chunks = time_chunks(ntime, nbl * nchan * delta.nsrc, dev) if delta.nsrc else []
        for k, sl in enumerate(chunks):
            vis[sl] += predict(delta, sl)
            check(cancelled)
            yield Progress(0.05 + 0.65 * (k + 1) / len(chunks), "predict")
        timing["predict"] = timer.seconds().get("predict", 0.0)
        cache.store_prediction(key, vis)
        cache.prediction_edits += 1
        cache.last_prediction_kind = "incremental"
        cache.last_prediction_delta = tuple(map(len, edit))
        yield complete()
    elif vis is None:
        cdtype = np.complex64 if im.precision == "single" else np.complex128
        vis = xp.zeros((ntime, nbl, nchan), dtype=cdtype)
        t_prev = 0.0
        acc, wsum = 0.0, 0.0  # the preview's Σ D_k·W_k (an image once one is made) and Σ W_k
        shown, last_shown = 0, -math.inf  # times in the preview so far; when it was drawn
        work = sources.nsrc + (0 if image is None else IMAGE_SKY_WORK)
        chunks = time_chunks(ntime, nbl * nchan * work, dev)
        for k, sl in enumerate(chunks):
            if sources.nsrc:
                vis[sl] = predict(sources, sl)
            if image is not None:
                vis[sl] += predict_image(sl, cdtype)
            if noise_sigma:  # linear in the sky: an edit later leaves the noise as it is
                from uvlab.app.lab.corruptions import add_noise

                add_noise(vis, sl, noise_sigma, corrupt.noise_seed, xp)
            check(cancelled)
            frac = 0.05 + 0.65 * (k + 1) / len(chunks)
            yield Progress(frac, "predict")
            last = k == len(chunks) - 1
            if not (last or time.monotonic() - last_shown >= PREVIEW_INTERVAL_S):
                continue
            preview = None
            if request.preview:  # image the times predicted since the last preview
                t0 = time.perf_counter()
                rows = slice(shown * nbl, sl.stop * nbl)
                d, w = _preview(
                    uvw[rows],
                    obs.freq_hz,
                    vis[shown : sl.stop].reshape(-1, nchan),
                    flag[rows],
                    spec,
                    im,
                    dev,
                )
                acc, wsum = acc + d * w, wsum + w
                preview = acc / wsum if wsum > 0 else None
                t_prev += time.perf_counter() - t0
                check(cancelled)
            shown, last_shown = sl.stop, time.monotonic()
            yield Partial(
                "predict",
                frac,
                uv=uv_until(sl.stop),
                dirty=preview,
                spec=spec,
                antennas=antennas if k == 0 else None,
                urgent=k == 0 and note is not None,
                warning=note if k == 0 else None,
            )
        timing["predict"] = timer.seconds().get("predict", 0.0)
        if t_prev:
            timing["preview"] = t_prev
        cache.store_prediction(key, vis)
        cache.prediction_edits = 0
        cache.last_prediction_kind = "full"
    else:
        cache.last_prediction_kind = "cached"
        yield complete()
    what = f"{layout.name}, {ntime} × {nbl} baselines × {nchan} ch, {sources.nsrc} sources"
    if request.image_sky is not None:
        what += f" and the image {request.image_sky.name!r}"
    if corrupt is not None:
        what += f"; {corrupt.describe()}"
    return Samples(
        "synthetic",
        uvw,
        obs.freq_hz,
        vis.reshape(-1, nchan),
        1.0,
        flag[:, None],
        spec,
        obs.ra0_rad,
        obs.dec0_rad,
        uv_until(ntime),
        antennas,
        sources,
        timing,
        description=what,
        sky_key=(request.sky, request.observation),
        raw=obs,
        data_key=request.observation,  # uvw, flags and frequencies are the observation's
        vis_key=key,  # the prediction's (an edit in place changes the key too)
    )


def image_note(request: JobRequest, spec) -> str | None:
    """One line when the automatic (or requested) cell meets the horizon; None otherwise.

    Only for the lab's own geometry (no ``request.spec``, previews on): the
    commands choose theirs in :func:`uvlab.app.commands.ms_imaging.choose_geometry`.
    """
    from uvlab.gpu.imaging.spec import ARCSEC, horizon_note

    if request.spec is not None or not request.preview:
        return None
    cell = request.imaging.cell_arcsec
    return horizon_note(spec, cell * ARCSEC if cell else None)


def outside_image_note(sky: SkyModel, spec, ra0_rad: float, dec0_rad: float) -> str | None:
    """One line when every component of ``sky`` lies outside the image, else None.

    Outside: beyond the image's half-width ``npix·cell/2`` in l or m, or on or
    behind the phase centre's horizon (n ≤ 0), where a relative sky is placed
    at its offsets (:meth:`~uvlab.app.skymodel.SkyModel.sources_for`). None for
    an empty sky. The line names the sky, the image, the nearest component's
    distance from the phase centre and that centre, e.g. ``every source of sky
    'my field' lies outside the 512² image (nearest 3.2° from the phase centre
    at RA 201.3650°, Dec -43.0190°): …``.
    """
    if not len(sky):
        return None
    ref = sky.centre_deg or (math.degrees(ra0_rad), math.degrees(dec0_rad))
    l, m, n = sky.lmn_about(*ref).T  # a relative sky sits at its offsets
    half = 0.5 * spec.npix * spec.cell_rad
    if np.any((n > 0) & (np.abs(l) <= half) & (np.abs(m) <= half)):
        return None
    nearest = math.degrees(float(np.min(np.arctan2(np.hypot(l, m), n))))
    what = f"sky {sky.name!r}" if sky.name else "the sky"
    why = (
        "its components keep their RA/Dec; point at them, or use a demo sky"
        if sky.centre_deg is None
        else "make the image larger or move the components in"
    )
    return (
        f"every source of {what} lies outside the {spec.npix}² image (nearest "
        f"{nearest:.3g}° from the phase centre at RA {math.degrees(ra0_rad) % 360.0:.4f}°, "
        f"Dec {math.degrees(dec0_rad):.4f}°): {why}"
    )


def _preview(uvw, freq_hz, vis, flag, spec, im, dev) -> tuple[np.ndarray, float]:
    """(normalised natural-weighted conv image, weight sum) of one chunk; zeros if all flagged."""
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.imaging.imager import ImagingError, make_image
    from uvlab.gpu.imaging.weighting import Weighting

    try:
        res = make_image(
            uvw,
            freq_hz,
            vis,
            1.0,
            spec,
            flag=flag[:, None],
            weighting=Weighting("natural", 0.0, im.taper_arcsec),
            algorithm="conv",
            params=GridParams.from_eps(PREVIEW_EPS),
            device=dev,
            psf=False,
        )
    except ImagingError:
        return np.zeros((spec.npix, spec.npix)), 0.0
    return res.dirty, res.sum_weights


def iter_measurement_set(
    request: JobRequest, cache: WorkCache, cancelled=None, report=None
) -> Iterator:
    """Open and read an MS (summary first, as an urgent partial); returns Samples."""
    report = report or (lambda f, s: None)
    sel = request.ms
    yield Progress(0.0, "read MS")
    info = cache.ms_info(sel.path)
    antennas = antennas_from_ecef(info.antenna_positions, info.antenna_names, info.dish_diameter_m)
    yield Partial("read MS", 0.0, info=info, antennas=antennas, urgent=True)
    check(cancelled)
    data, t_read = cache.ms_data(
        sel, progress=lambda f: report(0.6 * f, "read MS"), cancelled=cancelled
    )
    check(cancelled)
    spec = image_spec_for(request, data.uvw, data.freq_hz)
    if horizon := image_note(request, spec):
        yield Partial("read MS", 0.6, urgent=True, warning=horizon)
    uv = cache.derived(
        "uv",
        ms_key(sel),
        lambda: uv_rows(
            data.uvw,
            data.time,
            data.ant1,
            data.ant2,
            info.nant,
            data.freq_hz,
            ~data.flag.all(axis=1),
        ),
    )
    note = data.bad_values_note  # non-finite UVW or visibilities flagged by the reader
    yield Partial("read MS", 0.6, uv=uv, spec=spec, urgent=note is not None, warning=note)
    sources = request.sky.sources_for(data.ra0_rad, data.dec0_rad)
    if sky_note := outside_image_note(request.sky, spec, data.ra0_rad, data.dec0_rad):
        yield Partial("read MS", 0.6, urgent=True, warning=sky_note)
    what = (
        f"{os.path.basename(data.path)}: field {data.field} '{data.field_name}', spw "
        f"{data.spw}, {data.column} {data.stokes}, {data.nrow} rows × {data.nchan} ch"
    )
    return Samples(
        "ms",
        data.uvw,
        data.freq_hz,
        data.vis,
        data.weight,
        data.flag,
        spec,
        data.ra0_rad,
        data.dec0_rad,
        uv,
        antennas,
        sources,
        {"read MS": t_read} if t_read else {},
        info=info,
        description=what,
        sky_key=(request.sky, ms_key(sel)),
        raw=data,
    )


def iter_samples(
    request: JobRequest, cache: WorkCache, cancelled=None, report: Report | None = None
) -> Iterator:
    """The request's source (synthetic or MS); returns its Samples (``yield from``)."""
    if request.source == "synthetic":
        return (yield from iter_synthetic(request, cache, cancelled))
    return (yield from iter_measurement_set(request, cache, cancelled, report))


def read_samples(
    request: JobRequest,
    cache: WorkCache | None = None,
    progress: Report | None = None,
    warn: Callable[[str], None] | None = None,
) -> Samples:
    """The request's Samples, its source run to the end (the commands), on the host.

    ``progress(fraction, stage)`` follows the source's progress; ``warn(line)``
    gets each warning it gives (e.g. non-finite values flagged).
    """
    share = SHARE[request.source]
    notify = progress or (lambda f, s: None)

    def report(fraction: float, stage: str) -> None:
        notify(min(1.0, fraction / share), stage)

    def on_event(event) -> None:
        if isinstance(event, Progress):
            report(event.fraction, event.stage)
        elif isinstance(event, Partial) and event.warning and warn is not None:
            warn(event.warning)

    samples = run_to_end(iter_samples(request, cache or WorkCache(), None, report), on_event)
    return samples.on_host()
