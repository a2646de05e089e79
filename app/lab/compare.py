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
made in one call (the commands): :mod:`uvlab.app.lab.compare_reference`. The
analytic bound of each entry is :mod:`uvlab.app.lab.compare_bound`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from uvlab.app.lab.compare_bound import BOUND_BUDGET, BOUND_FLOOR, bound_fields
from uvlab.app.lab.compare_reference import (
    DFT_BUDGET,
    DFT_CHUNK_BYTES,
    REFERENCE_CHUNK_WORK,
    REFERENCE_CHUNK_WORK_GPU,
    chunked_reference,
    dft_step,
)
from uvlab.app.lab.jobs import Progress, run_to_end
from uvlab.app.lab.samples import block_check, check
from uvlab.gpu.gridders.registry import REFERENCE, grids

__all__ = [  # the names other modules take from here
    "BOUND_BUDGET", "BOUND_FLOOR", "DFT_BUDGET", "DFT_CHUNK_BYTES", "AlgorithmResult",
    "Comparison", "Entry", "compare_algorithms", "dft_step", "drain", "iter_comparison",
    "iter_samples_comparison", "measure_entry", "write_metrics_json",
]  # fmt: skip

if TYPE_CHECKING:
    from uvlab.gpu.gridders.params import GridParams


@dataclass(frozen=True)
class AlgorithmResult:
    """One algorithm's dirty image, error map, metrics and timing.

    Attributes
    ----------
    timing : dict, stage → seconds
        The stages of the run of median total time (of ``runs_s``).
    runs_s : tuple of float
        Total seconds of each timed run, in order (empty: the one run of ``timing``).
    warmup_s : float or None
        Total seconds of the untimed first run before them (one-time work such as
        a least-misfit table's solve lands there); None when there was none.
    backend : str
        What computed the image (:meth:`~uvlab.gpu.gridders.registry.Algorithm.backend`).
    """

    name: str
    image: np.ndarray
    error: np.ndarray
    metrics: dict
    timing: dict
    nvis: int
    analytic: np.ndarray | None = None
    bound: np.ndarray | None = None
    bound_step: int | None = None
    runs_s: tuple = ()
    backend: str = ""
    warmup_s: float | None = None

    @property
    def rate_vis_per_s(self) -> float | None:
        """Samples with nonzero weight per second of the grid stage."""
        t = float(self.timing.get("grid", 0.0))
        return self.nvis / t if t > 0 else None

    @property
    def total_s(self) -> float:
        """Seconds of every timed stage together: the median run's total."""
        return float(sum(self.timing.values()))

    @property
    def spread_s(self) -> tuple[float, float]:
        """(fastest, slowest) total seconds of the timed runs."""
        runs = self.runs_s or (self.total_s,)
        return float(min(runs)), float(max(runs))


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
    def reference_spec(self):
        """The geometry of :attr:`reference` and the error maps: every ``step``-th pixel."""
        return self.spec.every(self.step)

    @property
    def reference_label(self) -> str:
        if self.step == 1:
            return REFERENCE
        return f"{REFERENCE} subsampled every {self.step} pixels"

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
            "DFT image's peak; timing is the stages of the run of median total time "
            "(total_s) of runs_s, each timed run's total, after an untimed warm-up run "
            "(warmup_s) when there are several; rate_vis_per_s = nvis / grid seconds "
            "of that run; bound_max is the "
            "largest (sum|wV|/sumw) E(l,m) in the same units, error_over_bound_max the "
            "largest error/bound on every bound_step-th pixel (at most 1)",
            "algorithms": {
                name: {
                    **r.metrics,
                    "backend": r.backend,
                    "timing": {k: float(v) for k, v in r.timing.items()},
                    "total_s": r.total_s,
                    "runs_s": [float(t) for t in r.runs_s or (r.total_s,)],
                    "warmup_s": r.warmup_s,
                    "rate_vis_per_s": r.rate_vis_per_s,
                    "nvis": r.nvis,
                }
                for name, r in self.results.items()
            },
        }


def write_metrics_json(cmp: Comparison, path, data_label: str) -> Path:
    """Write ``metrics.json``: :meth:`Comparison.metrics` plus ``"data": data_label``.

    The one writer of the file, used by ``uvlab compare`` and the GUI's compare mode;
    written atomically (:mod:`uvlab.app.outputs.atomic`).
    """
    from uvlab.app.outputs.atomic import write_text

    metrics = cmp.metrics()
    metrics["data"] = data_label
    return write_text(path, json.dumps(metrics, indent=2))


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
    flag=None, weighting=None, device: str = "auto", cancelled=None, repeats: int = 1,
) -> AlgorithmResult:  # fmt: skip
    """Image with one entry, time it ``repeats`` times, and measure it against the DFT ``ref``.

    ``ref`` is the reference on every ``step``-th pixel (:attr:`Comparison.reference`);
    the other arguments are those of :func:`iter_comparison` (``cancelled`` is
    checked between blocks of the gridding). The error map and
    metrics are :func:`uvlab.gpu.aliasing.error_map`'s on those pixels, of the
    first run's image (every run makes the same one). With ``repeats`` > 1 that
    first run is a warm-up (``warmup_s``: one-time work, such as solving a
    least-misfit table, lands there) and ``repeats`` timed runs follow; the timing
    is the run of median total time, with every timed run's total in ``runs_s``.
    """
    from uvlab.gpu.aliasing import error_map
    from uvlab.gpu.gridders.registry import algorithm
    from uvlab.gpu.imaging.imager import make_image

    repeats = max(1, int(repeats))
    res, timings = None, []
    for _ in range(repeats + (repeats > 1)):
        check(cancelled)
        run = make_image(
            uvw, freq_hz, vis, weight, spec, flag=flag, weighting=weighting,
            algorithm=entry.algorithm, params=entry.params, device=device, psf=False,
            on_block=block_check(cancelled),
        )  # fmt: skip
        res = res or run  # the first run's image; the others' timings only
        timings.append(dict(run.timing))
    warmup = float(sum(timings.pop(0).values())) if repeats > 1 else None
    totals = tuple(float(sum(t.values())) for t in timings)
    median = sorted(range(len(totals)), key=totals.__getitem__)[(len(totals) - 1) // 2]
    err, metrics = error_map(res.dirty[::step, ::step], ref)
    backend = algorithm(entry.algorithm).backend(res.device)
    return AlgorithmResult(
        entry.label, res.dirty, err, metrics, timings[median], res.nvis,
        runs_s=totals, backend=backend, warmup_s=warmup,
    )  # fmt: skip


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
    repeats: int = 1,
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
        Polled between chunks and entries (:class:`~uvlab.app.runtime.errors.Cancelled`).
    bound : bool
        Also each entry's analytic map and bound (:mod:`~uvlab.app.lab.compare_bound`).
    repeats : int
        Timed runs per entry (:func:`measure_entry`: the median and the spread).
    """
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.imaging.imager import ImagingError, flatten_samples
    from uvlab.gpu.imaging.weighting import Weighting, imaging_weights

    if not entries or not all(grids(e.algorithm) for e in entries):
        raise ValueError("give one or more gridding algorithms; dft is the reference")
    weighting = weighting or Weighting()
    dev = resolve_device(device)
    check(cancelled)
    u, v, _, vis_f, wt = flatten_samples(uvw, freq_hz, vis, weight, flag)
    if u.size == 0:
        raise ImagingError("every sample is flagged or has zero weight: nothing to image")
    check(cancelled)
    wt = imaging_weights(u, v, wt, spec, weighting)
    check(cancelled)
    sumw = float(wt.sum())
    wvis = wt * vis_f
    nvis = int(np.count_nonzero(wt))
    check(cancelled)
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
            flag=flag, weighting=weighting, device=device, cancelled=cancelled, repeats=repeats,
        )  # fmt: skip
        if bound:
            params = e.params or GridParams()
            args = (e.algorithm, params, spec, step, abs_sum, peak)
            result = replace(result, **bound_fields(result.error, result.metrics, *args))
        results[e.label] = result
    check(cancelled)
    yield Progress(1.0, "done")
    return Comparison(spec, ref, step, results, {REFERENCE: t_ref}, dev, nvis)


def iter_samples_comparison(request, samples, entries, cancelled=None, **options):
    """:func:`iter_comparison` of a job's imaging-ready ``samples`` (the window's tasks).

    The job's weighting and device, the reference summed in chunks of
    :data:`REFERENCE_CHUNK_WORK` (cancellable between them; on the GPU
    :data:`REFERENCE_CHUNK_WORK_GPU`); ``options`` go on to :func:`iter_comparison`
    (e.g. ``step=1``).
    """
    from uvlab.gpu.backend import resolve_device

    s = samples
    gpu = resolve_device(request.device) == "gpu"
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
        chunk_work=REFERENCE_CHUNK_WORK_GPU if gpu else REFERENCE_CHUNK_WORK,
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
    repeats: int = 1,
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
            repeats=repeats,
        ),
        progress,
    )


def drain(events: Iterator[Progress], progress: Callable[[float, str], None] | None = None):
    """Run a generator of Progress events to its end; returns its return value."""
    return run_to_end(events, None if progress is None else lambda e: progress(e.fraction, e.stage))
