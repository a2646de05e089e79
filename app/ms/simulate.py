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

Before anything is computed or written, :func:`check_simulation` sizes the
observation from its spec alone (integrations × baselines × channels ×
correlations) and refuses it (:class:`~uvlab.app.runtime.memory.InsufficientMemoryError`,
:class:`~uvlab.app.runtime.diskspace.InsufficientSpaceError`, one line naming the sizes)
when the memory cannot hold one written chunk with the observation, or the
disk cannot hold the MS. The estimates (:func:`simulation_estimate`,
:func:`ms_bytes`, :func:`stokes_i_estimate`) are upper bounds from peaks
measured with NumPy on the CPU:

- the observation: ~80 bytes per row (uvw, flags and their temporaries);
- one written chunk (whole integrations, ~64 MiB of correlations, at least one
  integration): 512 bytes per (row, channel) sample with the per-antenna
  product (point sources, no smearing; measured 472), 256 summing rows
  directly (smearing or Gaussians; measured 237), noise included; plus the
  predict's own temporaries, 256 MiB or, for the per-antenna product, one
  integration's K operands if more (channels × antennas × sources × 48 bytes
  per Stokes parameter predicted);
- a whole Stokes-I prediction in memory (``uvlab compare``, the lab): 64 bytes
  per sample while predicted (measured ≤ 54), then the visibilities and flags
  next to the imaging's own estimate (:func:`uvlab.app.runtime.memory.imaging_estimate`);
- on disk: DATA (complex64) and FLAG (a byte, an upper bound on casacore's
  bits) per correlation, ~200 bytes per row for the other columns (measured
  150–190) and 4 MiB of subtables (measured 2.3 MB).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from uvlab.app.runtime.memory import MemoryEstimate, check_memory

#: Bytes per row the observation holds while it is simulated and written.
OBS_ROW_BYTES = 80
#: Peak bytes per (row, channel) sample of one written chunk, 4 correlations, by predict path.
CHUNK_SAMPLE_BYTES = {"factored": 512, "direct": 256}
#: Peak bytes per sample of a whole Stokes-I prediction held in memory (flags included).
STOKES_I_SAMPLE_BYTES = 64
#: Fixed temporaries of the MS writer and casacore.
WRITER_FIXED_BYTES = 64 * 2**20
#: Bytes on disk per main-table row besides DATA and FLAG.
MS_ROW_BYTES = 200
#: Bytes on disk of a new MS's subtables and table files.
MS_FIXED_BYTES = 4 * 2**20
#: The refusals' advice.
SMALLER = "use fewer channels or integrations (a longer --int-s), or a smaller array"


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


@dataclass(frozen=True)
class ObservationSize:
    """The shape of an observation, known from its spec without simulating it."""

    ntime: int
    nant: int
    nchan: int

    @property
    def nbl(self) -> int:
        return self.nant * (self.nant - 1) // 2

    @property
    def nrow(self) -> int:
        return self.ntime * self.nbl

    @property
    def nsamples(self) -> int:
        """(row, channel) samples."""
        return self.nrow * self.nchan

    def describe(self, ncorr: int | None = None) -> str:
        """``"900 integrations × 2016 baselines × 4096 channels × 4 correlations"``."""

        def n(count, word):
            return f"{count} {word}{'' if count == 1 else 's'}"

        text = " × ".join(
            [n(self.ntime, "integration"), n(self.nbl, "baseline"), n(self.nchan, "channel")]
        )
        return text if ncorr is None else f"{text} × {n(ncorr, 'correlation')}"


def observation_size(spec) -> ObservationSize:
    """Integrations, antennas and channels of ``spec``, as :func:`simulate_observation` makes them.

    Only the layout is loaded: nothing the size of the observation is allocated.
    """
    from uvlab.app.observing.layouts import ArrayLayout, load_layout
    from uvlab.app.observing.observation import SIDEREAL_RATE

    layout = spec.layout if isinstance(spec.layout, ArrayLayout) else load_layout(spec.layout)
    if spec.ha_mode:
        start, stop = spec.ha_range_h
        span_s = (stop - start) * 3600.0 / SIDEREAL_RATE
    else:
        span_s = float(spec.duration_h) * 3600.0
    return ObservationSize(max(round(span_s / spec.int_s), 1), layout.nant, int(spec.nchan))


def predict_path(sky, smearing: bool) -> str:
    """``"factored"`` (points, no smearing: the per-antenna product) or ``"direct"``."""
    gaussians = any(getattr(c, "kind", "point") == "gaussian" for c in sky)
    return "direct" if smearing or gaussians else "factored"


def predict_temporaries(size: ObservationSize, nsrc: int, path: str, npol: int = 4) -> float:
    """Bytes of the predict's own temporaries: its CPU budget, or one integration's K operands."""
    from uvlab.gpu.predict.chunking import CPU_BUDGET_BYTES
    from uvlab.gpu.predict.factored import BYTES_PER_K

    one_time = 0.0
    if path == "factored":
        one_time = float(size.nchan) * size.nant * max(int(nsrc), 1) * BYTES_PER_K * npol
    return max(float(CPU_BUDGET_BYTES), one_time)


def chunk_rows(size: ObservationSize, ncorr: int = 4) -> int:
    """Rows :func:`~uvlab.app.ms.writer.write_ms` writes at once (whole integrations)."""
    from uvlab.app.ms.writer import CHUNK_BYTES

    per_row = size.nchan * max(ncorr, 4) * 40
    return min(max(1, CHUNK_BYTES // per_row // max(size.nbl, 1)) * size.nbl, size.nrow)


def simulation_estimate(
    size: ObservationSize, *, nsrc: int = 1, path: str = "factored", ncorr: int = 4
) -> MemoryEstimate:
    """Memory :func:`simulate_ms` holds at once: the observation and one written chunk."""
    samples = float(chunk_rows(size, ncorr)) * size.nchan
    return MemoryEstimate(
        {
            "observation": float(OBS_ROW_BYTES) * size.nrow,
            "visibility chunk": CHUNK_SAMPLE_BYTES[path] * max(ncorr, 4) / 4 * samples,
            "predict temporaries": predict_temporaries(size, nsrc, path),
            "writer": float(WRITER_FIXED_BYTES),
        }
    )


def ms_bytes(size: ObservationSize, ncorr: int = 4) -> float:
    """Bytes the MS of ``size`` takes on disk (an upper bound)."""
    per_sample = ncorr * (8 + 1)  # DATA complex64 and FLAG per correlation
    return float(size.nsamples) * per_sample + float(MS_ROW_BYTES) * size.nrow + MS_FIXED_BYTES


def stokes_i_estimate(
    size: ObservationSize,
    *,
    nsrc: int = 1,
    path: str = "direct",
    itemsize: int = 16,
    flag_bytes: int = 1,
    extra_row_bytes: int = 0,
    imaging: MemoryEstimate | None = None,
) -> MemoryEstimate:
    """Memory to predict a whole Stokes-I data set in memory, then image it.

    The observation and the visibilities (``itemsize``) and flags
    (``flag_bytes`` per sample) stay; the prediction's temporaries come first,
    the imaging (``imaging``, default its per-sample part) after: the larger counts.
    """
    ns = float(size.nsamples)
    held = MemoryEstimate(
        {
            "observation": float(OBS_ROW_BYTES + extra_row_bytes) * size.nrow,
            "visibilities": (itemsize + flag_bytes) * ns,
        }
    )
    predict = MemoryEstimate(
        {
            "prediction": max(STOKES_I_SAMPLE_BYTES - itemsize - flag_bytes, 0) * ns
            + predict_temporaries(size, nsrc, path, npol=1)
        }
    )
    imaging = imaging if imaging is not None else MemoryEstimate({"samples": 128.0 * ns})
    return held + max(predict, imaging, key=lambda e: e.total)


def check_simulation(
    spec,
    path: str | os.PathLike | None = None,
    *,
    nsrc: int = 1,
    predict: str = "factored",
    ncorr: int = 4,
) -> ObservationSize:
    """Refuse a simulation the memory or the disk cannot hold, before anything is made.

    Raises :class:`~uvlab.app.runtime.memory.InsufficientMemoryError` or (with ``path``,
    the MS to write) :class:`~uvlab.app.runtime.diskspace.InsufficientSpaceError`.
    """
    from uvlab.app.runtime.diskspace import check_space

    size = observation_size(spec)
    what = size.describe(ncorr)
    check_memory(
        simulation_estimate(size, nsrc=nsrc, path=predict, ncorr=ncorr),
        f"simulating {what}",
        hint=SMALLER,
    )
    if path is not None:
        check_space(path, ms_bytes(size, ncorr), f"a MeasurementSet of {what}")
    return size


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
        (:func:`check_simulation`).
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
