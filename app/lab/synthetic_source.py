"""The lab's synthetic source: simulate the request's observation and predict its sky (no Qt).

:func:`iter_synthetic` yields :class:`~uvlab.app.lab.jobs.Progress` and
:class:`~uvlab.app.lab.jobs.Partial` events and returns imaging-ready
:class:`~uvlab.app.lab.samples.Samples` (``samples = yield from ...``). It
predicts in time chunks (:func:`~uvlab.app.lab.sizing.time_chunks`), with a
preview image and the uv tracks so far after each (at most every
:data:`~uvlab.app.lab.synthetic_preview.PREVIEW_INTERVAL_S`); the request is sized before
anything is simulated (:func:`~uvlab.app.lab.sizing.check_job_memory`). The job's shared
inputs and its predictions of a chunk are a
:class:`~uvlab.app.lab.synthetic_run.SyntheticRun`.

A sky edit re-predicts only what changed (:mod:`uvlab.app.lab.sky_edits`).

The request's :class:`~uvlab.app.lab.corruptions.Corruptions` (the Instrument tab) enter
the synthetic prediction: the primary beam and gain errors through an
:class:`~uvlab.app.instrument.jones.ObservationJones` of the components predicted (a sky edit's too:
the visibilities stay linear in the sky), the thermal noise added per integration from its
seed. When any is on, they join the prediction's cache key (after the image sky), so a
change of them predicts everything again and an imaging change reuses the prediction.

The preview image of a synthetic run is the natural-weighted ``conv`` image of the chunks
predicted so far, accumulated linearly (:mod:`~uvlab.app.lab.synthetic_preview`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from uvlab.app.lab.image_notes import image_note
from uvlab.app.lab.jobs import Antennas, JobRequest, Partial, Progress
from uvlab.app.lab.samples import Samples, WorkCache, check, image_spec_for
from uvlab.app.lab.sizing import check_job_memory, time_chunks
from uvlab.app.lab.sky_edits import edit_sources, held_edit
from uvlab.app.lab.synthetic_preview import Previews
from uvlab.app.lab.synthetic_run import SyntheticRun

if TYPE_CHECKING:
    from uvlab.app.lab.corruptions import Corruptions

#: An image sky's degridding counted as this many components when chunking the prediction.
IMAGE_SKY_WORK = 20


def iter_synthetic(request: JobRequest, cache: WorkCache, cancelled=None) -> Iterator:
    """Simulate and predict in time chunks; returns Samples (``yield from``).

    Each chunk is predicted by :func:`uvlab.app.observing.predict_obs.predict_integrations`
    (Stokes I), as ``uvlab simulate`` predicts what it writes. The observation
    comes from the cache when it is the held one; so do the visibilities, as
    they are (``cache.last_prediction_kind == "cached"``) or updated for a sky
    edit (``"incremental"``: no preview images, one partial with the uv; the
    timing's ``predict`` is the time the edit's components took), else every
    component is predicted (``"full"``).
    """
    from uvlab.gpu.backend import resolve_device

    dev = resolve_device(request.device)
    key, corrupt = _prediction_key(request, dev)
    predicted = cache.prediction(key) is not None
    edit = None if predicted else held_edit(cache, key)
    if not predicted and edit is None:
        cache.store_prediction(None, None)  # about to be replaced: free it before sizing
    # before anything the size of the data is made; an edit's chunks are small
    check_job_memory(request, predicted or edit is not None)
    yield Progress(0.0, "uvw")
    obs, t_uvw = cache.observation(request.observation)
    check(cancelled)
    layout = obs.layout
    antennas = Antennas(
        layout.enu(), layout.antenna_names, np.asarray(layout.dish_diameter), layout.subarray
    )
    spec = image_spec_for(request, obs.uvw, obs.freq_hz, cache, data_key=request.observation)
    if horizon := image_note(request, spec):
        yield Partial("uvw", 0.0, urgent=True, warning=horizon)
    run = SyntheticRun.start(request, cache, cancelled, dev, corrupt, obs, antennas, spec)
    timing = {"uvw": t_uvw} if t_uvw else {}  # cached parts cost nothing this run
    vis = cache.prediction(key)
    if vis is None and edit is not None:
        vis = yield from _iter_edit(run, key, edit, timing)
    elif vis is None:
        vis = yield from _iter_full(run, key, timing)
    else:
        cache.last_prediction_kind = "cached"
        yield _complete(run)
    return _samples(run, key, vis, timing)


def _prediction_key(request: JobRequest, dev: str) -> tuple[tuple, Corruptions | None]:
    """(the prediction's cache key, the corruptions that enter it: None when none is on)."""
    key = (request.observation, request.sky, request.smearing, request.imaging.precision, dev)
    if request.image_sky is not None:  # last: held_edit compares key[2:], so a new image
        key = (*key, request.image_sky)  # (or none) is predicted in full
    corrupt = request.corruptions
    if corrupt is not None and corrupt.active:  # beam, gains, noise: a change predicts anew
        return (*key, corrupt), corrupt
    return key, None


def _complete(run: SyntheticRun) -> Partial:
    """All the uv at once (a prediction reused or updated: no chunks to show)."""
    return Partial(
        "predict",
        0.7,
        uv=run.uv_until(run.ntime),
        spec=run.spec,
        antennas=run.antennas,
        urgent=run.note is not None,
        warning=run.note,
    )


def _iter_edit(run: SyntheticRun, key, edit, timing: dict) -> Iterator:
    """Update the held prediction for a sky edit in place; returns it (``yield from``)."""
    obs, cache = run.obs, run.cache
    vis = cache.take_prediction()  # changed in place: a cancelled edit leaves none held
    delta = edit_sources(edit, run.request.sky.centre_deg, obs.ra0_rad, obs.dec0_rad)
    work = run.nbl * run.nchan * delta.nsrc
    chunks = time_chunks(run.ntime, work, run.dev) if delta.nsrc else []
    for k, sl in enumerate(chunks):
        vis[sl] += run.predict(delta, sl)
        check(run.cancelled)
        yield Progress(0.05 + 0.65 * (k + 1) / len(chunks), "predict")
    timing["predict"] = run.timer.seconds().get("predict", 0.0)
    cache.store_prediction(key, vis)
    cache.prediction_edits += 1
    cache.last_prediction_kind = "incremental"
    cache.last_prediction_delta = tuple(map(len, edit))
    yield _complete(run)
    return vis


def _iter_full(run: SyntheticRun, key, timing: dict) -> Iterator:
    """Predict every component in time chunks, with previews; returns the visibilities."""
    cdtype = np.complex64 if run.request.imaging.precision == "single" else np.complex128
    vis = run.xp.zeros((run.ntime, run.nbl, run.nchan), dtype=cdtype)
    previews = Previews()
    work = run.sources.nsrc + (0 if run.image is None else IMAGE_SKY_WORK)
    chunks = time_chunks(run.ntime, run.nbl * run.nchan * work, run.dev)
    for k, sl in enumerate(chunks):
        run.predict_chunk(vis, sl, cdtype)
        check(run.cancelled)
        frac = 0.05 + 0.65 * (k + 1) / len(chunks)
        yield Progress(frac, "predict")
        if not previews.due(last=k == len(chunks) - 1):
            continue
        preview = previews.update(run, vis, sl.stop)
        yield Partial(
            "predict",
            frac,
            uv=run.uv_until(sl.stop),
            dirty=preview,
            spec=run.spec,
            antennas=run.antennas if k == 0 else None,
            urgent=k == 0 and run.note is not None,
            warning=run.note if k == 0 else None,
        )
    timing["predict"] = run.timer.seconds().get("predict", 0.0)
    if previews.seconds:
        timing["preview"] = previews.seconds
    run.cache.store_prediction(key, vis)
    run.cache.prediction_edits = 0
    run.cache.last_prediction_kind = "full"
    return vis


def _samples(run: SyntheticRun, key, vis, timing: dict) -> Samples:
    """The job's imaging-ready samples, described in one line."""
    request, obs, corrupt = run.request, run.obs, run.corrupt
    what = f"{obs.layout.name}, {run.ntime} × {run.nbl} baselines × {run.nchan} ch, "
    what += f"{run.sources.nsrc} sources"
    if request.image_sky is not None:
        what += f" and the image {request.image_sky.name!r}"
    if corrupt is not None:
        what += f"; {corrupt.describe()}"
    return Samples(
        "synthetic",
        run.uvw,
        obs.freq_hz,
        vis.reshape(-1, run.nchan),
        1.0,
        run.flag[:, None],
        run.spec,
        obs.ra0_rad,
        obs.dec0_rad,
        run.uv_until(run.ntime),
        run.antennas,
        run.sources,
        timing,
        description=what,
        sky_key=(request.sky, request.observation),
        raw=obs,
        data_key=request.observation,  # uvw, flags and frequencies are the observation's
        vis_key=key,  # the prediction's (an edit in place changes the key too)
    )
