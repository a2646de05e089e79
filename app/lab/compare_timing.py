"""How often a comparison times each entry: a warm-up, then timed runs within a budget.

:func:`uvlab.app.lab.compare.measure_entry` images an entry once untimed (the
warm-up: one-time work such as solving a least-misfit table, compiling a numba
loop or planning an FFT lands there, as in ``timeit``'s practice of discarding
the first call), then times it up to ``repeats`` times. With a budget (the
window's Compare: :data:`TIMING_BUDGET_S`) the warm-up images only every k-th
row, at most :data:`WARMUP_VIS` samples (:func:`warmup_rows`): the same code
path, grids, FFTs and tables as a full run, so the same one-time work lands
there, at a fraction of a full run's time; the timed runs then stop early once
another run, judged by the last one, would take them past the budget, but never
before :data:`MIN_TIMED_RUNS`: a slow entry is timed twice (its median and
spread are then those of two runs), a quick one as often as asked. Without a
budget (``uvlab compare --repeats R``) the warm-up is a full run and every entry
is timed exactly ``repeats`` times. :func:`planned_runs` is the same rule ahead
of time, for the job's time estimate (:mod:`uvlab.app.lab.job_time`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from uvlab.app.lab.samples import check

#: Seconds the window's Compare gives each entry's timed runs (the warm-up not counted).
TIMING_BUDGET_S = 3.0
#: Timed runs every entry gets (when ``repeats`` asks for as many), budget or not.
MIN_TIMED_RUNS = 2
#: Samples (rows × channels) the warm-up of a budgeted comparison images, at most.
WARMUP_VIS = 2.0e4


def warmup_rows(nrow: int, nchan: int) -> slice:
    """The rows a budgeted warm-up images: every k-th, at most :data:`WARMUP_VIS` samples."""
    return slice(None, None, max(1, math.ceil(nrow * nchan / WARMUP_VIS)))


def another_run(runs_s: Sequence[float], repeats: int, budget_s: float | None) -> bool:
    """Whether to time once more after the timed runs ``runs_s`` (seconds each).

    Up to ``repeats`` runs; past :data:`MIN_TIMED_RUNS`, only while the runs so far
    plus one more as long as the last stay within ``budget_s`` (None: no budget).
    """
    done = len(runs_s)
    if done >= repeats:
        return False
    if budget_s is None or done < MIN_TIMED_RUNS:
        return True
    return sum(runs_s) + runs_s[-1] <= budget_s


def planned_runs(repeats: int, run_s: float, budget_s: float | None) -> int:
    """Timed runs :func:`another_run` allows when every run takes ``run_s`` seconds."""
    runs: list[float] = []
    while another_run(runs, repeats, budget_s):
        runs.append(run_s)
    return len(runs)


def timed_runs(
    run: Callable[[], object],
    repeats: int,
    *,
    timing: Callable[[object], dict],
    budget_s: float | None = None,
    cancelled: Callable[[], bool] | None = None,
    warmup: Callable[[], object] | None = None,
) -> tuple[object, dict | None, list[dict]]:
    """Call ``warmup()`` (when ``repeats`` > 1) and ``run()`` for the timed runs.

    Parameters
    ----------
    run : callable() -> result
    repeats : int
        Timed runs at most (1: one run, no warm-up).
    timing : callable(result) -> dict, stage → seconds
        A run's stage timings; their sum is the run's time.
    budget_s : float, optional
        Seconds for the timed runs (:func:`another_run`); None: exactly ``repeats``.
    cancelled : callable() -> bool, optional
        Checked before each run.
    warmup : callable() -> result, optional
        The warm-up (its result is not kept); default ``run`` itself, whose result is.

    Returns
    -------
    (the first full run's result, the warm-up's timing or None, each timed run's timing)
        Only the first result is kept (every run makes the same image).
    """
    repeats = max(1, int(repeats))
    first, warm = None, None
    if repeats > 1:
        check(cancelled)
        res = (warmup or run)()
        first = res if warmup is None else None
        warm = dict(timing(res))
    timings: list[dict] = []
    while another_run([float(sum(t.values())) for t in timings], repeats, budget_s):
        check(cancelled)
        res = run()
        first = res if first is None else first
        timings.append(dict(timing(res)))
    return first, warm, timings
