"""Compare imaging algorithms against the exact DFT of the same weighted data.

:func:`iter_comparison` is the one comparison loop: the window's compare mode
(:mod:`uvlab.app.lab.compare_task`), ``uvlab compare`` and
:func:`compare_algorithms` all drain it. It images one data set with each
entry (an algorithm with its parameters; dirty image only, no PSF), computes
the reference ``dft`` image of the same weighted samples (DESIGN §3), and
returns per entry its image, its error map ``|I − I_dft| / peak(I_dft)`` and
metrics (:func:`uvlab.gpu.aliasing.error_map`: RMS over the central half,
over the full image, maximum), the stage timings and the gridding rate
(samples with nonzero weight ÷ grid seconds).

The reference is the 2-D DFT without the w-term, like the gridders. On the
CPU it costs about N²·nvis complex multiply-adds plus 2·N·nvis complex
exponentials (measured 2e8–1e9 pixel·visibilities per second on two cores);
when that exceeds :data:`DFT_BUDGET` it is evaluated only on every k-th
pixel in each axis (``dirty_dft(..., pixels=k)``, k dividing N/2 so that the
subsampled grid keeps the image centre), the entries' images are compared
on those pixels only, and :attr:`Comparison.reference_label` says so. The
same budget decides whether the aliasing task computes its error map.

The reference may be summed over chunks of visibilities (it is linear in
them) so that a long one can be cancelled between chunks (the window), or
made in one call (the commands).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from uvlab.app.lab.jobs import Progress, run_to_end
from uvlab.app.lab.samples import check

if TYPE_CHECKING:
    from uvlab.gpu.gridders.params import GridParams

#: N²·nvis products the DFT reference may cost, per device, before it is subsampled
#: (``uvlab compare``, compare mode) or skipped (the aliasing task's error map):
#: ~20 s at 2e8/s on the CPU; float64 cuBLAS on a GPU.
DFT_BUDGET = {"cpu": 4.0e9, "gpu": 1.0e14}
#: Bytes the reference's factor matrices may take per chunk.
DFT_CHUNK_BYTES = 256 * 2**20
#: Pixel·visibility products per chunk of a reference that can be cancelled between
#: chunks (≈ 1–3 s on one CPU core): the window's tasks.
REFERENCE_CHUNK_WORK = 5.0e8
#: Pixel·offset-pair products the bound (:func:`uvlab.gpu.aliasing.iter_bound_rows`,
#: ~50 ns each on the CPU) may cost per algorithm before it is subsampled further.
BOUND_BUDGET = 6.0e7
#: Bound values below this (units of the DFT peak) are float rounding, left out of
#: ``error_over_bound_max`` (the error there is rounding too).
BOUND_FLOOR = 1e-12


@dataclass(frozen=True)
class AlgorithmResult:
    """One algorithm's dirty image, error map, metrics and timing."""

    name: str
    image: np.ndarray
    error: np.ndarray
    metrics: dict
    timing: dict
    nvis: int
    analytic: np.ndarray | None = None
    bound: np.ndarray | None = None
    bound_step: int | None = None

    @property
    def rate_vis_per_s(self) -> float | None:
        """Samples with nonzero weight per second of the grid stage."""
        t = float(self.timing.get("grid", 0.0))
        return self.nvis / t if t > 0 else None

    @property
    def total_s(self) -> float:
        """Seconds of every timed stage together."""
        return float(sum(self.timing.values()))


@dataclass(frozen=True)
class Comparison:
    """Everything :func:`compare_algorithms` measured.

    Attributes
    ----------
    spec : ImageSpec
    reference : (N/k, N/k) float64
        The DFT image at pixels 0, k, 2k, … (k = ``step``; the full image when 1).
    step : int
    results : dict name → AlgorithmResult, in the order asked
    reference_timing : dict, stage → seconds
    reference_device : str
    nvis : int
    """

    spec: object
    reference: np.ndarray
    step: int
    results: dict
    reference_timing: dict = field(default_factory=dict)
    reference_device: str = "cpu"
    nvis: int = 0

    @property
    def reference_label(self) -> str:
        if self.step == 1:
            return "dft"
        return f"dft subsampled every {self.step} pixels"

    def metrics(self) -> dict:
        """The JSON record written as ``metrics.json``."""
        return {
            "reference": self.reference_label,
            "reference_step": self.step,
            "reference_device": self.reference_device,
            "reference_timing": {k: float(v) for k, v in self.reference_timing.items()},
            "npix": self.spec.npix,
            "cell_arcsec": self.spec.cell_arcsec,
            "nvis": self.nvis,
            "note": "rms_central, rms_full and max_error are |I - I_dft| relative to the "
            "DFT image's peak; rate_vis_per_s = nvis / grid seconds; bound_max is the "
            "largest (sum|wV|/sumw) E(l,m) in the same units, error_over_bound_max the "
            "largest error/bound on every bound_step-th pixel (at most 1)",
            "algorithms": {
                name: {
                    **r.metrics,
                    "timing": {k: float(v) for k, v in r.timing.items()},
                    "rate_vis_per_s": r.rate_vis_per_s,
                    "nvis": r.nvis,
                }
                for name, r in self.results.items()
            },
        }


def analysed_params(name: str, params: GridParams, npix: int) -> tuple[GridParams, bool]:
    """The parameters whose 1-D chain the analytic map follows, and whether it bounds the image.

    ``conv`` run by ducc0 (the ES kernel, engine "auto" or "ducc") grids with
    ducc0's own kernel and padding: its map is that of uvlab's exact ES chain
    of the same support and σ, a guide and not a bound of that image. With
    ``wstack`` the image carries the w-term that the reference leaves out.
    """
    from uvlab.gpu.gridders.conv import uses_ducc

    if name == "conv" and uses_ducc(params, npix):
        return replace(params, exact=True), False
    return params, not (name == "conv" and params.wstack)


def bound_maps(name: str, params: GridParams, spec, step: int) -> tuple[np.ndarray, int]:
    """``(E, k)``: the analytic bound map on every k-th pixel, k a multiple of ``step``.

    k is the smallest multiple of ``step`` dividing N/2 for which the
    bound's cost, (N/k)² pixels × offset pairs, stays within
    :data:`BOUND_BUDGET` (N/2 at most).
    """
    from uvlab.gpu.aliasing import BoundSamples, axis_bound_samples, bound_map

    su, sv = axis_bound_samples(name, spec, params, step)
    pairs = su.values.shape[0] * sv.values.shape[0]
    half = spec.npix // 2
    k = step
    while k < half and (half % k or (spec.npix / k) ** 2 * pairs > BOUND_BUDGET):
        k += step
    m = k // step
    su, sv = (BoundSamples(x.values[:, ::m], x.halfwidth[::m], x.spacing) for x in (su, sv))
    return bound_map(su, sv), k


def with_bound(
    result: AlgorithmResult, algorithm: str, params, spec, step: int, abs_sum: float, peak: float
) -> AlgorithmResult:
    """``result`` with its analytic map, bound and their metrics (``uvlab compare``).

    bound = (Σ|w·V|/Σw)·E / peak(I_dft): the units of the error map, on every
    ``bound_step``-th pixel (the error map's pixels when the cost allows).
    Metrics: ``bound_max``, ``error_over_bound_max`` (over pixels where the
    bound exceeds :data:`BOUND_FLOOR`) and ``bound_step``; both null for a
    chain that the map does not describe (:func:`analysed_params`).
    """
    chain, bounds = analysed_params(algorithm, params, spec.npix)
    e, k = bound_maps(algorithm, chain, spec, step)
    metrics = {**result.metrics, "bound_max": None, "error_over_bound_max": None}
    metrics["bound_step"] = k
    if not bounds:
        metrics["bound_note"] = "no bound: ducc0's kernel or the w-term is not uvlab's chain"
        return replace(result, metrics=metrics, analytic=e, bound_step=k)
    bound = e * (abs_sum / peak)
    err = result.error[:: k // step, :: k // step]
    lit = bound > BOUND_FLOOR
    ratio = float((err[lit] / bound[lit]).max()) if lit.any() else 0.0
    metrics.update(bound_max=float(bound.max()), error_over_bound_max=ratio)
    return replace(result, metrics=metrics, analytic=e, bound=bound, bound_step=k)


def write_metrics_json(cmp: Comparison, path, data_label: str) -> Path:
    """Write ``metrics.json``: :meth:`Comparison.metrics` plus ``"data": data_label``.

    The one writer of the file, used by ``uvlab compare`` and the GUI's compare mode;
    written atomically (:mod:`uvlab.app.atomic`).
    """
    from uvlab.app.atomic import write_text

    metrics = cmp.metrics()
    metrics["data"] = data_label
    return write_text(path, json.dumps(metrics, indent=2))


def dft_step(npix: int, nvis: int, budget: float) -> int:
    """Smallest k dividing N/2 with (N/k)²·nvis ≤ ``budget`` (at most N/16, at least 1)."""
    half = npix // 2
    divisors = [k for k in range(1, half + 1) if half % k == 0]
    for k in divisors:
        if (npix / k) ** 2 * nvis <= budget:
            return k
    allowed = [k for k in divisors if k <= max(1, npix // 16)]
    return allowed[-1]


def reference_image(u, v, wvis, sumw: float, spec, step: int, device: str):
    """The (subsampled) DFT image normalised by Σw, and the seconds it took."""
    from uvlab.gpu.backend import to_numpy
    from uvlab.gpu.imaging.dft import dirty_dft

    t0 = time.perf_counter()
    n_out = -(-spec.npix // step)
    chunk = int(max(256, DFT_CHUNK_BYTES // (4 * 16 * n_out)))
    if device == "gpu":
        import cupy

        u, v, wvis = cupy.asarray(u), cupy.asarray(v), cupy.asarray(wvis)
        img = to_numpy(dirty_dft(u, v, wvis, spec, pixels=step, chunk=chunk))
        cupy.cuda.Device().synchronize()
    else:
        img = dirty_dft(u, v, wvis, spec, pixels=step, chunk=chunk)
    return img / sumw, time.perf_counter() - t0


def chunked_reference(
    u, v, wvis, sumw: float, spec, step: int, device: str, chunk_work=None, cancelled=None
) -> Iterator[float]:
    """The DFT reference, summed over visibility chunks; yields fractions, returns (image, s).

    ``chunk_work`` bounds the pixel·visibility products per chunk (None: one chunk,
    one :func:`reference_image` call); ``cancelled()`` is polled between chunks.
    """
    n_out = -(-spec.npix // step)
    nchunk = 1 if chunk_work is None else max(1, math.ceil(n_out**2 * u.size / chunk_work))
    edges = np.linspace(0, u.size, nchunk + 1).round().astype(int)
    img, seconds = None, 0.0
    for k in range(nchunk):
        sl = slice(edges[k], edges[k + 1])
        part, t = reference_image(u[sl], v[sl], wvis[sl], sumw, spec, step, device)
        img, seconds = (part if img is None else img + part), seconds + t
        check(cancelled)
        yield (k + 1) / nchunk
    return img, seconds


@dataclass(frozen=True)
class Entry:
    """One imaging of a comparison.

    Attributes
    ----------
    label : str
        Its key in :attr:`Comparison.results` (and its row in the table).
    algorithm : str
        A gridder (the DFT is the reference).
    params : GridParams or None
        Its gridder parameters, the padding σ included.
    """

    label: str
    algorithm: str
    params: GridParams | None = None


def measure_entry(
    uvw, freq_hz, vis, weight, spec, entry: Entry, ref, step: int, *,
    flag=None, weighting=None, device: str = "auto",
) -> AlgorithmResult:  # fmt: skip
    """Image with one entry and measure it against the DFT reference ``ref``.

    ``ref`` is the reference on every ``step``-th pixel (:attr:`Comparison.reference`);
    the other arguments are those of :func:`iter_comparison`. The error map and
    metrics are :func:`uvlab.gpu.aliasing.error_map`'s on those pixels.
    """
    from uvlab.gpu.aliasing import error_map
    from uvlab.gpu.imaging.imager import make_image

    res = make_image(
        uvw,
        freq_hz,
        vis,
        weight,
        spec,
        flag=flag,
        weighting=weighting,
        algorithm=entry.algorithm,
        params=entry.params,
        device=device,
        psf=False,
    )
    err, metrics = error_map(res.dirty[::step, ::step], ref)
    return AlgorithmResult(entry.label, res.dirty, err, metrics, dict(res.timing), res.nvis)


#: Share of the progress given to the DFT reference (the entries share the rest).
REFERENCE_SHARE = 0.7


def iter_comparison(
    uvw,
    freq_hz,
    vis,
    weight,
    spec,
    entries: Sequence[Entry],
    *,
    flag=None,
    weighting=None,
    device: str = "auto",
    step: int | None = None,
    chunk_work: float | None = None,
    cancelled: Callable[[], bool] | None = None,
    bound: bool = False,
) -> Iterator[Progress]:
    """Image with each entry and measure its error against the DFT; returns a Comparison.

    Yields :class:`~uvlab.app.lab.jobs.Progress` (fraction in [0, 1], stage)
    while it works; its return value (``yield from``) is the :class:`Comparison`.

    Parameters
    ----------
    uvw : (row, 3) float, metres
    freq_hz : (chan,) float
    vis : (row, chan) complex
    weight : (row, chan) float or broadcastable
    spec : ImageSpec
    entries : sequence of Entry
    flag : (row, chan) bool, optional
    weighting : Weighting, optional
    device : {"auto", "cpu", "gpu"}
        Where the reference DFT runs (and what the gridders are given).
    step : int, optional
        Reference subsampling k (must divide N/2); default from :data:`DFT_BUDGET`.
    chunk_work : float, optional
        Pixel·visibility products per chunk of the reference (None: one chunk).
    cancelled : callable() -> bool, optional
        Polled between chunks and entries (:class:`~uvlab.app.errors.Cancelled`).
    bound : bool
        Also each entry's analytic map and bound (:func:`with_bound`).
    """
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.imaging.imager import ImagingError, flatten_samples
    from uvlab.gpu.imaging.weighting import Weighting, imaging_weights

    if not entries or any(e.algorithm == "dft" for e in entries):
        raise ValueError("give one or more gridding algorithms; dft is the reference")
    weighting = weighting or Weighting()
    dev = resolve_device(device)
    u, v, _, vis_f, wt = flatten_samples(uvw, freq_hz, vis, weight, flag)
    if u.size == 0:
        raise ImagingError("every sample is flagged or has zero weight: nothing to image")
    wt = imaging_weights(u, v, wt, spec, weighting)
    sumw = float(wt.sum())
    wvis = wt * vis_f
    nvis = int(np.count_nonzero(wt))
    if step is None:
        step = dft_step(spec.npix, nvis, DFT_BUDGET[dev])
    if step < 1 or (spec.npix // 2) % step:
        raise ValueError(f"reference step {step} must divide N/2 = {spec.npix // 2}")
    yield Progress(0.0, "DFT reference")
    chunks = chunked_reference(u, v, wvis, sumw, spec, step, dev, chunk_work, cancelled)
    while True:
        try:
            frac = next(chunks)
        except StopIteration as stop:
            ref, t_ref = stop.value
            break
        yield Progress(REFERENCE_SHARE * frac, "DFT reference")
    if bound:
        abs_sum, peak = float(np.abs(wvis).sum()) / sumw, float(np.abs(ref).max())
    results = {}
    for k, e in enumerate(entries):
        check(cancelled)
        yield Progress(REFERENCE_SHARE + (1 - REFERENCE_SHARE) * k / len(entries), e.label)
        result = measure_entry(
            uvw, freq_hz, vis, weight, spec, e, ref, step,
            flag=flag, weighting=weighting, device=device,
        )  # fmt: skip
        if bound:
            params = e.params or GridParams()
            result = with_bound(result, e.algorithm, params, spec, step, abs_sum, peak)
        results[e.label] = result
    check(cancelled)
    yield Progress(1.0, "done")
    return Comparison(spec, ref, step, results, {"dft": t_ref}, dev, nvis)


def iter_samples_comparison(request, samples, entries, cancelled=None, **options):
    """:func:`iter_comparison` of a job's imaging-ready ``samples`` (the window's tasks).

    The job's weighting and device, the reference summed in chunks of
    :data:`REFERENCE_CHUNK_WORK` (cancellable between them); ``options`` go on
    to :func:`iter_comparison` (e.g. ``step=1``).
    """
    s = samples
    return iter_comparison(
        s.uvw,
        s.freq_hz,
        s.vis,
        s.weight,
        s.spec,
        entries,
        flag=s.flag,
        weighting=request.imaging.weighting_spec(),
        device=request.device,
        chunk_work=REFERENCE_CHUNK_WORK,
        cancelled=cancelled,
        **options,
    )


def compare_algorithms(
    uvw,
    freq_hz,
    vis,
    weight,
    spec,
    *,
    algorithms,
    flag=None,
    weighting=None,
    params=None,
    device: str = "auto",
    step: int | None = None,
    progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    bound: bool = False,
) -> Comparison:
    """:func:`iter_comparison` run to the end, for gridders that share one ``params``.

    Parameters
    ----------
    algorithms : sequence of str
        Gridder names (``dft`` is the reference and is not allowed here);
        each one's result is keyed by its name.
    params : GridParams, optional
    progress : callable(fraction, stage), optional
    Others as :func:`iter_comparison` (the reference in one chunk).
    """
    entries = [Entry(name, name, params) for name in dict.fromkeys(algorithms)]
    return drain(
        iter_comparison(
            uvw,
            freq_hz,
            vis,
            weight,
            spec,
            entries,
            flag=flag,
            weighting=weighting,
            device=device,
            step=step,
            cancelled=cancelled,
            bound=bound,
        ),
        progress,
    )


def drain(events: Iterator[Progress], progress: Callable[[float, str], None] | None = None):
    """Run a generator of Progress events to its end; returns its return value."""
    return run_to_end(events, None if progress is None else lambda e: progress(e.fraction, e.stage))
