"""Simulate an observation of a sky model straight into a new MeasurementSet.

The observation's geometry comes from :func:`uvlab.app.observation.simulate_observation`;
visibilities are predicted per chunk of whole integrations in the chosen feed
basis (DESIGN §1 brightness products: XX = I + Q, …, so the reader's
``I = (XX + YY)/2`` gives back the sky's Stokes I) and written by
:func:`uvlab.app.ms.writer.write_ms`, so memory stays bounded whatever the
size of the observation.

Thermal noise, when asked for, is complex Gaussian with standard deviation
``noise_jy`` on the real and on the imaginary part of every correlation;
SIGMA is then ``noise_jy`` and WEIGHT ``1/noise_jy²`` (else 1 and 1).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


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
) -> Callable[[slice], np.ndarray]:
    """A function ``rows → (nrow, chan, 2, 2)`` B-form visibilities (+ noise) for ``obs``.

    ``rows`` must cover whole integrations (as :func:`write_ms` asks for them);
    the per-antenna predict (:func:`uvlab.gpu.predict.predict_antennas`) runs
    on those integrations. Noise comes from ``numpy.random.default_rng(seed)``
    drawn chunk after chunk, so a seed reproduces the same MS.
    """
    from uvlab.gpu.predict import Smearing, predict_antennas

    smear = Smearing(obs.chan_width_hz, obs.int_s, obs.dec0_rad) if smearing else None
    rng = np.random.default_rng(seed)
    nbl, nchan = obs.nbl, obs.freq_hz.size

    def chunk(rows: slice) -> np.ndarray:
        if rows.start % nbl or rows.stop % nbl:
            raise ValueError(f"rows {rows.start}:{rows.stop} do not cover whole integrations")
        times = slice(rows.start // nbl, rows.stop // nbl)
        b = predict_antennas(
            obs.ant_uvw[times],
            obs.ant1,
            obs.ant2,
            obs.freq_hz,
            sources,
            mode=feeds,
            smearing=smear,
            dtype=dtype,
            device=device,
        )
        b = b.reshape(-1, nchan, 2, 2)
        if noise_jy > 0:
            shape = b.shape
            b = b + noise_jy * (rng.standard_normal(shape) + 1j * rng.standard_normal(shape))
        return b

    return chunk


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
) -> SimulationSummary:
    """Simulate ``spec`` observing ``sky`` and write the MeasurementSet ``path``.

    Parameters
    ----------
    spec : uvlab.app.observation.ObservationSpec
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
    """
    from uvlab.app.ms.columns import check_feeds
    from uvlab.app.ms.writer import write_ms
    from uvlab.app.observation import simulate_observation
    from uvlab.gpu.backend import resolve_device

    check_feeds(feeds)
    if not (noise_jy >= 0 and np.isfinite(noise_jy)):
        raise ValueError(f"noise must be a finite number ≥ 0 Jy, got {noise_jy}")
    report = progress or (lambda f, s: None)
    dev = resolve_device(device)
    report(0.0, "uvw")
    obs = simulate_observation(spec)
    sources = sky.to_source_arrays(obs.ra0_rad, obs.dec0_rad)
    fn = visibility_chunks(
        obs, sources, feeds=feeds, smearing=smearing, noise_jy=noise_jy, seed=seed, device=dev
    )
    sigma = noise_jy if noise_jy > 0 else 1.0
    out = write_ms(
        path,
        obs,
        fn,
        feeds=feeds,
        sigma=sigma,
        overwrite=overwrite,
        history=history,
        progress=lambda f: report(0.05 + 0.95 * f, "predict + write"),
        cancelled=cancelled,
    )
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
