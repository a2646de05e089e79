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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from uvlab.app.lab.image_notes import image_note, outside_image_note
from uvlab.app.lab.jobs import Antennas, JobRequest, Partial, Progress, UvData
from uvlab.app.lab.samples import Samples, WorkCache, check, image_spec_for, uv_rows
from uvlab.app.lab.sizing import check_job_memory, time_chunks
from uvlab.app.lab.sky_edits import edit_sources, held_edit

if TYPE_CHECKING:
    from uvlab.app.lab.corruptions import Corruptions
    from uvlab.app.observing.observation import Observation
    from uvlab.gpu.image_spec import ImageSpec
    from uvlab.gpu.sources import SourceArrays
    from uvlab.gpu.timing import StageTimer

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
    run = _Run.start(request, cache, cancelled, dev, corrupt, obs, antennas, spec)
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


@dataclass
class _Run:
    """What the steps of one synthetic job share: its request, observation and image.

    ``uvw`` (row, 3) m, ``flag`` (row,) and ``times`` (row,) are the observation's rows
    (time-major); ``noise_sigma`` is σ_I of the thermal noise per real/imaginary part, Jy
    (0: none); ``image`` the image sky's (model, grid) about the phase centre, or None;
    ``jones_for`` maps id(components) → their ObservationJones (the beam at their positions).
    """

    request: JobRequest
    cache: WorkCache
    cancelled: object
    dev: str
    xp: object  # the visibilities stay where they are predicted
    corrupt: Corruptions | None
    obs: Observation
    antennas: Antennas
    spec: ImageSpec
    sources: SourceArrays
    note: str | None
    uvw: np.ndarray
    flag: np.ndarray
    times: np.ndarray
    timer: StageTimer
    noise_sigma: float
    image: tuple | None
    jones_for: dict = field(default_factory=dict)

    @classmethod
    def start(cls, request, cache, cancelled, dev, corrupt, obs, antennas, spec) -> _Run:
        """The job's shared inputs, once its observation and image geometry are known."""
        from uvlab.gpu.backend import get_xp
        from uvlab.gpu.timing import StageTimer

        sources = request.sky.sources_for(obs.ra0_rad, obs.dec0_rad)
        note = outside_image_note(request.sky, spec, obs.ra0_rad, obs.dec0_rad)
        # CUDA events on the GPU: its prediction stays there, so the time is the device's too
        timer = StageTimer(gpu=dev == "gpu")
        return cls(
            request, cache, cancelled, dev, get_xp(device=dev), corrupt, obs, antennas, spec,
            sources, note, obs.uvw.reshape(-1, 3), obs.flag.reshape(-1), obs.time_rows(), timer,
            _noise_sigma(obs, corrupt), _image_grid(request, obs, cache),
        )  # fmt: skip

    @property
    def ntime(self) -> int:
        return self.obs.ntime

    @property
    def nbl(self) -> int:
        return self.obs.nbl

    @property
    def nchan(self) -> int:
        return self.obs.freq_hz.size


def _noise_sigma(obs: Observation, corrupt: Corruptions | None) -> float:
    """σ_I of the thermal noise per real/imaginary part, Jy (0: no noise)."""
    if corrupt is None or not corrupt.has_noise:
        return 0.0
    from uvlab.app.lab.corruptions import stokes_i_sigma

    return stokes_i_sigma(corrupt.sefd_jy, obs.chan_width_hz, obs.int_s)


def _image_grid(request: JobRequest, obs: Observation, cache: WorkCache) -> tuple | None:
    """The image sky on its own grid about the phase centre (model, grid), or None."""
    if request.image_sky is None:
        return None
    sky_img = request.image_sky
    ra0, dec0 = math.degrees(obs.ra0_rad), math.degrees(obs.dec0_rad)
    return cache.derived(
        "image-sky-grid", (sky_img, ra0, dec0), lambda: sky_img.native_grid(ra0, dec0)
    )


def _rows_until(run: _Run, t: int) -> UvData:
    """The uv rows of the first ``t`` times."""
    obs, r = run.obs, t * run.nbl
    return uv_rows(
        run.uvw[:r],
        run.times[:r],
        np.tile(obs.ant1, t),
        np.tile(obs.ant2, t),
        obs.layout.nant,
        obs.freq_hz,
        ~run.flag[:r],
    )


def _uv_until(run: _Run, t: int) -> UvData:
    """The uv rows of the first t times; all of them are kept for later jobs."""
    if t < run.ntime:
        return _rows_until(run, t)
    return run.cache.derived("uv", run.request.observation, lambda: _rows_until(run, run.ntime))


def _complete(run: _Run) -> Partial:
    """All the uv at once (a prediction reused or updated: no chunks to show)."""
    return Partial(
        "predict",
        0.7,
        uv=_uv_until(run, run.ntime),
        spec=run.spec,
        antennas=run.antennas,
        urgent=run.note is not None,
        warning=run.note,
    )


def _predict(run: _Run, components, sl: slice):
    """Integrations ``sl`` of ``components``, left where predicted, timed as "predict".

    With the request's beam and gains (:class:`~uvlab.app.instrument.jones.ObservationJones`).
    """
    from uvlab.app.observing.predict_obs import predict_integrations

    corrupt = run.corrupt
    with run.timer.stage("predict"):
        jones = None
        if corrupt is not None and corrupt.jones.active:
            if id(components) not in run.jones_for:
                from uvlab.app.instrument.jones import ObservationJones

                run.jones_for[id(components)] = ObservationJones(
                    run.obs, components, corrupt.jones, "scalar"
                )
            jones = run.jones_for[id(components)]
        return predict_integrations(
            run.obs, components, sl, smearing=run.request.smearing,
            dtype=run.request.imaging.dtype, device=run.dev, host=False, jones=jones,
        )  # fmt: skip


def _predict_image(run: _Run, sl: slice, cdtype):
    """Integrations ``sl`` of the image sky (degridded; no smearing), timed as "predict"."""
    from uvlab.app.observing.predict_obs import predict_image_integrations

    model, grid = run.image
    with run.timer.stage("predict"):
        v = predict_image_integrations(
            run.obs, model, grid, sl, ref_freq_hz=run.request.image_sky.ref_freq_hz,
            spectral_index=run.request.image_sky.spectral_index, device=run.dev,
        )  # fmt: skip
        return run.xp.asarray(v.astype(cdtype, copy=False))


def _predict_chunk(run: _Run, vis, sl: slice, cdtype) -> None:
    """Integrations ``sl`` of the whole sky into ``vis``: components, image sky, noise."""
    if run.sources.nsrc:
        vis[sl] = _predict(run, run.sources, sl)
    if run.image is not None:
        vis[sl] += _predict_image(run, sl, cdtype)
    if run.noise_sigma:  # linear in the sky: an edit later leaves the noise as it is
        from uvlab.app.lab.corruptions import add_noise

        add_noise(vis, sl, run.noise_sigma, run.corrupt.noise_seed, run.xp)


def _iter_edit(run: _Run, key, edit, timing: dict) -> Iterator:
    """Update the held prediction for a sky edit in place; returns it (``yield from``)."""
    obs, cache = run.obs, run.cache
    vis = cache.take_prediction()  # changed in place: a cancelled edit leaves none held
    delta = edit_sources(edit, run.request.sky.centre_deg, obs.ra0_rad, obs.dec0_rad)
    work = run.nbl * run.nchan * delta.nsrc
    chunks = time_chunks(run.ntime, work, run.dev) if delta.nsrc else []
    for k, sl in enumerate(chunks):
        vis[sl] += _predict(run, delta, sl)
        check(run.cancelled)
        yield Progress(0.05 + 0.65 * (k + 1) / len(chunks), "predict")
    timing["predict"] = run.timer.seconds().get("predict", 0.0)
    cache.store_prediction(key, vis)
    cache.prediction_edits += 1
    cache.last_prediction_kind = "incremental"
    cache.last_prediction_delta = tuple(map(len, edit))
    yield _complete(run)
    return vis


def _iter_full(run: _Run, key, timing: dict) -> Iterator:
    """Predict every component in time chunks, with previews; returns the visibilities."""
    cdtype = np.complex64 if run.request.imaging.precision == "single" else np.complex128
    vis = run.xp.zeros((run.ntime, run.nbl, run.nchan), dtype=cdtype)
    previews = _Previews()
    work = run.sources.nsrc + (0 if run.image is None else IMAGE_SKY_WORK)
    chunks = time_chunks(run.ntime, run.nbl * run.nchan * work, run.dev)
    for k, sl in enumerate(chunks):
        _predict_chunk(run, vis, sl, cdtype)
        check(run.cancelled)
        frac = 0.05 + 0.65 * (k + 1) / len(chunks)
        yield Progress(frac, "predict")
        if not previews.due(last=k == len(chunks) - 1):
            continue
        preview = previews.update(run, vis, sl.stop)
        yield Partial(
            "predict",
            frac,
            uv=_uv_until(run, sl.stop),
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


@dataclass
class _Previews:
    """The preview image so far: Σ D_k·W_k (an image once one is made) and Σ W_k.

    ``shown``: times in the preview so far; ``last_shown``: when it was drawn
    (:func:`time.monotonic`); ``seconds``: the time spent imaging previews.
    """

    acc: object = 0.0
    wsum: float = 0.0
    shown: int = 0
    last_shown: float = -math.inf
    seconds: float = 0.0

    def due(self, last: bool) -> bool:
        """Whether to draw now: after the last chunk, else at most every PREVIEW_INTERVAL_S."""
        return last or time.monotonic() - self.last_shown >= PREVIEW_INTERVAL_S

    def update(self, run: _Run, vis, stop: int) -> np.ndarray | None:
        """Add the times predicted since the last preview; the preview (None: none asked)."""
        preview = None
        if run.request.preview:  # image the times predicted since the last preview
            t0 = time.perf_counter()
            rows = slice(self.shown * run.nbl, stop * run.nbl)
            d, w = _preview(
                run.uvw[rows],
                run.obs.freq_hz,
                vis[self.shown : stop].reshape(-1, run.nchan),
                run.flag[rows],
                run.spec,
                run.request.imaging,
                run.dev,
            )
            self.acc, self.wsum = self.acc + d * w, self.wsum + w
            preview = self.acc / self.wsum if self.wsum > 0 else None
            self.seconds += time.perf_counter() - t0
            check(run.cancelled)
        self.shown, self.last_shown = stop, time.monotonic()
        return preview


def _samples(run: _Run, key, vis, timing: dict) -> Samples:
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
        _uv_until(run, run.ntime),
        run.antennas,
        run.sources,
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
