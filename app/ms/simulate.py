"""Simulate an observation of a sky model straight into a new MeasurementSet.

The observation's geometry comes from :func:`uvlab.app.observing.observation.simulate_observation`;
visibilities are predicted per chunk of whole integrations in the chosen feed
basis (DESIGN §1 brightness products: XX = I + Q, …, so the reader's
``I = (XX + YY)/2`` gives back the sky's Stokes I) by
:func:`uvlab.app.observing.predict_obs.predict_integrations`, the lab's predict too, and written by
:func:`uvlab.app.ms.writer.write_ms`, so memory stays bounded whatever the
size of the observation.

Thermal noise, when asked for, is complex Gaussian with standard deviation
``noise_jy`` on the real and on the imaginary part of every correlation;
SIGMA is then ``noise_jy`` and WEIGHT ``1/noise_jy²`` (else 1 and 1).

Before anything is computed or written, the observation is sized from its spec
and refused when the memory or the disk cannot hold it
(:func:`uvlab.app.ms.simulation_size.check_simulation`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from uvlab.app.ms.simulation_size import check_simulation, predict_path


@dataclass(frozen=True)
class SimulationSummary:
    """What :func:`simulate_ms` wrote."""

    path: str
    nrows: int
    ntime: int
    nbl: int
    nchan: int
    nsources: int
    flagged_fraction: float
    device: str


def visibility_chunks(
    obs,
    sources,
    *,
    feeds: str,
    smearing: bool = True,
    noise_jy: float = 0.0,
    seed: int | None = None,
    device: str = "auto",
    dtype=np.float64,
    image=None,
    jones=None,
) -> Callable[[slice], np.ndarray]:
    """A function ``rows → (nrow, chan, 2, 2)`` B-form visibilities (+ noise) for ``obs``.

    ``rows`` must cover whole integrations (as :func:`write_ms` asks for them);
    those integrations are predicted by
    :func:`uvlab.app.observing.predict_obs.predict_integrations`,
    as the lab's synthetic source predicts its own. Noise comes from
    ``numpy.random.default_rng(seed)`` drawn chunk after chunk, so a seed
    reproduces the same MS. ``image`` = (model, ImageSpec, ImageSky): an image sky
    degridded on top (:func:`uvlab.app.observing.predict_obs.predict_image_integrations`), without
    beams or gains. ``jones``: an :class:`uvlab.app.instrument.jones.ObservationJones` (E and G).
    """
    from uvlab.app.ms.finite import check_chunk, likely_cause
    from uvlab.app.observing.predict_obs import predict_image_integrations, predict_integrations

    rng = np.random.default_rng(seed)
    nbl, nchan = obs.nbl, obs.freq_hz.size

    def chunk(rows: slice) -> np.ndarray:
        if rows.start % nbl or rows.stop % nbl:
            raise ValueError(f"rows {rows.start}:{rows.stop} do not cover whole integrations")
        times = slice(rows.start // nbl, rows.stop // nbl)
        with np.errstate(over="ignore", invalid="ignore"):  # check_chunk reports them
            b = predict_integrations(
                obs, sources, times, mode=feeds, smearing=smearing, dtype=dtype, device=device,
                jones=jones,
            )  # fmt: skip
            b = b.reshape(-1, nchan, 2, 2)
            if image is not None:
                model, spec, sky = image
                b = b + predict_image_integrations(
                    obs, model, spec, times, mode=feeds, ref_freq_hz=sky.ref_freq_hz,
                    spectral_index=sky.spectral_index, device=device,
                ).reshape(-1, nchan, 2, 2)  # fmt: skip
            if noise_jy > 0:
                b = add_noise(b, noise_jy, rng)
        check_chunk(  # before the chunk is written: a refusal removes the whole build
            b,
            f"the visibilities of rows {rows.start}–{rows.stop - 1}",
            lambda: likely_cause(
                obs.uvw_rows()[rows], obs.freq_hz, sources, mode=feeds, image=image is not None,
                options={"--gain-amp-rms": getattr(getattr(jones, "options", None),
                                                   "gain_amp_rms", 0.0),
                         "--noise-jy": noise_jy},
            ),
        )  # fmt: skip
        return b

    return chunk


def add_noise(b: np.ndarray, noise_jy: float, rng: np.random.Generator) -> np.ndarray:
    """``b`` plus complex Gaussian noise of σ ``noise_jy`` on each part, drawn from ``rng``
    (the real parts of the whole chunk, then the imaginary ones: a chunk after another from
    one generator gives the one-process simulation's noise)."""
    shape = b.shape
    return b + noise_jy * (rng.standard_normal(shape) + 1j * rng.standard_normal(shape))


def simulate_ms(
    spec,
    sky,
    path: str | os.PathLike,
    *,
    feeds: str = "linear",
    smearing: bool = True,
    noise_jy: float = 0.0,
    seed: int | None = None,
    device: str = "auto",
    overwrite: bool = False,
    history: str = "uvlab simulate",
    progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    image_sky=None,
    jones=None,
    runner: Callable | None = None,
    chunk_rows: int | None = None,
) -> SimulationSummary:
    """Simulate ``spec`` observing ``sky`` and write the MeasurementSet ``path``.

    Parameters
    ----------
    spec : uvlab.app.observing.observation.ObservationSpec
    sky : uvlab.app.skymodel.SkyModel
    path : str or path-like
        MS to create (see :func:`uvlab.app.ms.writer.write_ms` for ``overwrite``).
    feeds : {"linear", "circular"}
    smearing : bool
        Time and bandwidth smearing in the predict.
    noise_jy : float
        Thermal noise σ per real/imaginary part, Jy (0: none).
    seed : int, optional
    device : {"auto", "cpu", "gpu"}
    progress : callable(fraction, stage), optional
    cancelled : callable() -> bool, optional
    image_sky : uvlab.app.skymodel.image_sky.ImageSky, optional
        A picture or FITS image observed as well (degridded from its native
        grid, :meth:`~uvlab.app.skymodel.image_sky.ImageSky.native_grid`).
    jones : uvlab.app.instrument.jones.JonesOptions, optional
        Primary beams and antenna gains (E and G) in the predict.
    runner : callable(chunk, nrow, noise_jy, seed) -> chunk, optional
        Turns the noiseless ``rows → visibilities`` function of :func:`visibility_chunks`
        into the one :func:`~uvlab.app.ms.writer.write_ms` calls, adding the noise
        (:mod:`uvlab.app.scale.ms_simulate`: the chunks computed on a Dask cluster); default:
        the chunks predicted here, noise included.
    chunk_rows : int, optional
        Rows per written chunk (rounded up to whole integrations; default ~64 MiB).

    Raises
    ------
    InsufficientMemoryError, InsufficientSpaceError
        Before anything is computed, when the memory cannot hold the
        observation and one written chunk, or the disk the MS
        (:func:`~uvlab.app.ms.simulation_size.check_simulation`).
    """
    from uvlab.app.ms.columns import check_feeds
    from uvlab.app.ms.writer import write_ms
    from uvlab.app.observing.observation import simulate_observation
    from uvlab.gpu.backend import resolve_device

    check_feeds(feeds)
    if not (noise_jy >= 0 and np.isfinite(noise_jy)):
        raise ValueError(f"noise must be a finite number ≥ 0 Jy, got {noise_jy}")
    report = progress or (lambda f, s: None)
    dev = resolve_device(device)
    check_simulation(spec, path, nsrc=len(sky), predict=predict_path(sky, smearing))
    report(0.0, "uvw")
    obs = simulate_observation(spec)
    sources = sky.to_source_arrays(obs.ra0_rad, obs.dec0_rad)
    jterms = None
    if jones is not None and jones.active:
        from uvlab.app.instrument.jones import ObservationJones
        from uvlab.app.ms.columns import RECEPTOR_ANGLES

        jterms = ObservationJones(obs, sources, jones, feeds, RECEPTOR_ANGLES[feeds][0])
    image = None
    if image_sky is not None:
        from uvlab.gpu.backend import get_xp

        model, grid = image_sky.native_grid(spec.ra_deg, spec.dec_deg)
        if runner is None:
            model = get_xp(device=dev).asarray(model)  # on the device once
        image = (model, grid, image_sky)
    fn = visibility_chunks(
        obs, sources, feeds=feeds, smearing=smearing, noise_jy=noise_jy if runner is None else 0.0,
        seed=seed, device=dev, image=image, jones=jterms,
    )  # fmt: skip
    if runner is not None:
        fn = runner(fn, obs.nrow, noise_jy, seed)
    sigma = noise_jy if noise_jy > 0 else 1.0
    try:
        out = write_ms(
            path, obs, fn, feeds=feeds, sigma=sigma, overwrite=overwrite, history=history,
            progress=lambda f: report(0.05 + 0.95 * f, "predict + write"),
            cancelled=cancelled, chunk_rows=chunk_rows,
        )  # fmt: skip
    finally:
        if runner is not None and hasattr(runner, "close"):
            runner.close()  # what is still in flight on the cluster
    report(1.0, "done")
    return SimulationSummary(
        path=str(out),
        nrows=obs.nrow,
        ntime=obs.ntime,
        nbl=obs.nbl,
        nchan=int(obs.freq_hz.size),
        nsources=len(sky),
        flagged_fraction=float(obs.flag.mean()),
        device=dev,
    )
