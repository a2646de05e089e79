"""The lab's synthetic source: simulate the request's observation and predict its sky (no Qt).

:func:`iter_synthetic` yields :class:`~uvlab.app.lab.jobs.Progress` and
:class:`~uvlab.app.lab.jobs.Partial` events and returns imaging-ready
:class:`~uvlab.app.lab.samples.Samples` (``samples = yield from ...``). It
predicts in time chunks (:func:`~uvlab.app.lab.sizing.time_chunks`), with a
preview image and the uv tracks so far after each (at most every
:data:`PREVIEW_INTERVAL_S`); the request is sized before anything is simulated
(:func:`~uvlab.app.lab.sizing.check_job_memory`).

A sky edit re-predicts only what changed (:mod:`uvlab.app.lab.sky_edits`).

The request's :class:`~uvlab.app.lab.corruptions.Corruptions` (the Instrument tab) enter
the synthetic prediction: the primary beam and gain errors through an
:class:`~uvlab.app.instrument.jones.ObservationJones` of the components predicted (a sky edit's too:
the visibilities stay linear in the sky), the thermal noise added per integration from its
seed. When any is on, they join the prediction's cache key (after the image sky), so a
change of them predicts everything again and an imaging change reuses the prediction.

The preview image of a synthetic run is the natural-weighted ``conv`` (ducc0,
ε = 1e-4) image of the chunks predicted so far, accumulated linearly:
``Σ_k D_k·W_k / Σ_k W_k`` with ``D_k`` the normalised image of the times
predicted since the previous preview and ``W_k`` their weight sum.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator

import numpy as np

from uvlab.app.lab.image_notes import image_note, outside_image_note
from uvlab.app.lab.jobs import Antennas, JobRequest, Partial, Progress, UvData
from uvlab.app.lab.samples import Samples, WorkCache, check, image_spec_for, uv_rows
from uvlab.app.lab.sizing import check_job_memory, time_chunks
from uvlab.app.lab.sky_edits import edit_sources, held_edit

#: An image sky's degridding counted as this many components when chunking the prediction.
IMAGE_SKY_WORK = 20
#: Accuracy of the preview images.
PREVIEW_EPS = 1e-4
#: A preview image and the uv so far are made at most this often (and after the last chunk).
PREVIEW_INTERVAL_S = 0.25


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
    from uvlab.app.observing.predict_obs import predict_integrations
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

        With the request's beam and gains (:class:`~uvlab.app.instrument.jones.ObservationJones`).
        """
        with timer.stage("predict"):
            jones = None
            if corrupt is not None and corrupt.jones.active:
                if id(components) not in jones_for:
                    from uvlab.app.instrument.jones import ObservationJones

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
        from uvlab.app.observing.predict_obs import predict_image_integrations

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
