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
analytic bound of each entry is :mod:`uvlab.app.lab.compare_bound`, how often each
entry is timed :mod:`uvlab.app.lab.compare_timing`, and the result records
(:class:`AlgorithmResult`, :class:`Comparison`, ``metrics.json``)
:mod:`uvlab.app.lab.compare_results`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
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
    reference_step,
)
from uvlab.app.lab.compare_results import AlgorithmResult, Comparison, write_metrics_json
from uvlab.app.lab.compare_timing import TIMING_BUDGET_S, timed_runs, warmup_rows
from uvlab.app.lab.jobs import Progress, run_to_end
from uvlab.app.lab.samples import block_check, check
from uvlab.gpu.gridders.registry import REFERENCE, grids

__all__ = [  # the names other modules take from here
    "BOUND_BUDGET", "BOUND_FLOOR", "DFT_BUDGET", "DFT_CHUNK_BYTES", "AlgorithmResult",
    "Comparison", "Entry", "bounded", "compare_algorithms", "dft_step", "drain", "iter_comparison",
    "iter_samples_comparison", "measure_entry", "measured", "write_metrics_json",
]  # fmt: skip

if TYPE_CHECKING:
    from uvlab.gpu.gridders.params import GridParams


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
    budget_s: float | None = None,
) -> AlgorithmResult:  # fmt: skip
    """Image with one entry, time it ``repeats`` times, and measure it against the DFT ``ref``.

    ``ref`` is the reference on every ``step``-th pixel (:attr:`Comparison.reference`);
    the other arguments are those of :func:`iter_comparison` (``cancelled`` is
    checked between blocks of the gridding). The error map and
    metrics are :func:`uvlab.gpu.aliasing.error_map`'s on those pixels, of the
    first full run's image (every run makes the same one). With ``repeats`` > 1 a
    warm-up comes first (``warmup_s``: one-time work, such as solving a
    least-misfit table, lands there) and ``repeats`` timed runs follow; the timing
    is the run of median total time, with every timed run's total in ``runs_s``. With
    ``budget_s`` the warm-up images every k-th row only
    (:func:`~uvlab.app.lab.compare_timing.warmup_rows`; all of them where those rows
    are all flagged) and the timed runs may stop before ``repeats``, after two
    (:mod:`uvlab.app.lab.compare_timing`).
    """
    from uvlab.gpu.gridders.registry import algorithm
    from uvlab.gpu.imaging.imager import ImagingError, make_image

    def run(rows=slice(None)):
        return make_image(
            uvw[rows], freq_hz, vis[rows], weight if np.ndim(weight) < 2 else weight[rows],
            spec, flag=None if flag is None else flag[rows], weighting=weighting,
            algorithm=entry.algorithm, params=entry.params, device=device, psf=False,
            on_block=block_check(cancelled),
        )  # fmt: skip

    def small_warmup():  # every k-th row: the one-time work at a fraction of the cost
        rows = warmup_rows(*np.shape(vis))
        try:
            return run(rows)
        except ImagingError:  # those rows all flagged: a full run then
            return run()

    res, first, timings = timed_runs(
        run, repeats, timing=lambda r: r.timing, budget_s=budget_s, cancelled=cancelled,
        warmup=None if budget_s is None else small_warmup,
    )  # fmt: skip
    warmup = None if first is None else float(sum(first.values()))
    totals = tuple(float(sum(t.values())) for t in timings)
    median = sorted(range(len(totals)), key=totals.__getitem__)[(len(totals) - 1) // 2]
    backend = algorithm(entry.algorithm).backend(res.device)
    return measured(
        entry.label, res.dirty, ref, step, timings[median], res.nvis,
        runs_s=totals, backend=backend, warmup_s=warmup,
    )  # fmt: skip


def measured(label: str, dirty, ref, step: int, timing: dict, nvis: int, **fields):
    """An entry's :class:`AlgorithmResult` of its image ``dirty``: the error map and metrics
    against the reference ``ref`` on every ``step``-th pixel
    (:func:`uvlab.gpu.aliasing.error_map`); ``fields`` are the result's others (``runs_s``,
    ``backend``, ``warmup_s``). The one-process loop's and the chunked path's
    (:mod:`uvlab.app.commands.compare_scaled`)."""
    from uvlab.gpu.aliasing import error_map

    err, metrics = error_map(dirty[::step, ::step], ref)
    return AlgorithmResult(label, dirty, err, metrics, timing, nvis, **fields)


def bounded(result: AlgorithmResult, algorithm: str, params, spec, step: int, abs_sum: float,
            peak: float) -> AlgorithmResult:  # fmt: skip
    """``result`` with its analytic map and bound (:func:`~uvlab.app.lab.compare_bound.
    bound_fields`): ``abs_sum`` = Σ|w·V|/Σw of the data, ``peak`` the reference's |peak|."""
    from uvlab.gpu.gridders.params import GridParams

    args = (algorithm, params or GridParams(), spec, step, abs_sum, peak)
    return replace(result, **bound_fields(result.error, result.metrics, *args))


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
    budget_s: float | None = None,
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
    budget_s : float, optional
        Seconds for each entry's timed runs (at least two; None: ``repeats`` each).
    """
    from uvlab.gpu.backend import resolve_device
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
    step = reference_step(spec.npix, nvis, step, dev)
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
            budget_s=budget_s,
        )  # fmt: skip
        if bound:
            result = bounded(result, e.algorithm, e.params, spec, step, abs_sum, peak)
        results[e.label] = result
    check(cancelled)
    yield Progress(1.0, "done")
    return Comparison(spec, ref, step, results, {REFERENCE: t_ref}, dev, nvis)


def iter_samples_comparison(request, samples, entries, cancelled=None, **options):
    """:func:`iter_comparison` of a job's imaging-ready ``samples`` (the window's tasks).

    The job's weighting and device, the reference summed in chunks of
    :data:`REFERENCE_CHUNK_WORK` (cancellable between them; on the GPU
    :data:`REFERENCE_CHUNK_WORK_GPU`), each entry's timed runs within
    :data:`~uvlab.app.lab.compare_timing.TIMING_BUDGET_S`; ``options`` go on to
    :func:`iter_comparison` (e.g. ``step=1``).
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
        **{"budget_s": TIMING_BUDGET_S, **options},
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
