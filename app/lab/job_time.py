"""How long a job will take on this machine, said before it starts, and how long it has left.

Issue 28: a job the lab expects to take more than :data:`SLOW_S` is announced with its
estimate as it starts, and every running job shows the time it has left.

**Before a job** (:meth:`JobTimes.estimate`). The lab's jobs repeat: the same task,
device, algorithms and image size with another weighting, cell, declination or sky. A job
whose kind (:func:`job_kind`) has finished before is estimated from the last one, in
proportion to the visibility samples. A kind not seen yet is estimated from the prior
(:func:`prior_seconds`): each algorithm's seconds per sample for an imaging-only change
measured by ``uvlab bench algorithms`` (BENCHMARKS.md: the 2-core CPU at 512², an H200 at
1024²), the direct DFT's pixel·sample rate, and for CLEAN its minor cycles; times this
machine's speed against those measurements, learned from the imaging-only jobs that finish
here (:attr:`JobTimes.speed`). An MS job has no prior (the lab does not know its size
before the read): only its history.

**While it runs** (:func:`time_left`): from the progress once it says enough (elapsed ×
(1 − f)/f), before that from the estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

#: A job expected to take longer than this (seconds) is announced with its estimate.
SLOW_S = 3.0

#: Seconds per visibility sample of an imaging-only change (dirty image and PSF), by
#: device and algorithm: ``uvlab bench algorithms`` (BENCHMARKS.md, 2026-11-28), the
#: 2-core CPU at 512² (run 2's medians / 1,451,520 samples) and an H200 at 1024².
# fmt: off
PRIOR_S_PER_SAMPLE = {
    "cpu": {"conv": 2.5e-6, "ducc": 1.7e-7, "nn": 1.9e-7, "nn-oversampled": 3.2e-6,
            "hybrid": 2.8e-6, "pruned-nn": 9.3e-6},
    "gpu": {"conv": 9.0e-9, "ducc": 1.2e-7, "nn": 9.6e-9, "nn-oversampled": 1.8e-8,
            "hybrid": 7.6e-9, "pruned-nn": 9.0e-9},
}
# fmt: on
#: The image side those rates were measured at, by device.
PRIOR_NPIX = {"cpu": 512, "gpu": 1024}
#: Pixel·sample products per second of the direct DFT (BENCHMARKS.md: ~2e8 on the 2-core
#: CPU; the H200 made 1024² × 1,451,520 in 0.59 s).
DFT_RATE = {"cpu": 2.0e8, "gpu": 2.6e12}
#: Pixel·sample products per second of a comparison's subsampled DFT reference, summed by
#: recurrence and the numba rung's loop (the default scene's 32² × 1,451,520 in 1–3 s on
#: the 2-core CPU, loaded; the GPU's as the DFT's).
REFERENCE_RATE = {"cpu": 6.0e8, "gpu": 2.6e12}
#: Seconds per pixel·iteration of the minor cycles (Högbom's peak search and subtraction).
MINOR_S_PER_PIXEL = {"cpu": 2.0e-9, "gpu": 2.0e-11}
#: The learned speed stays within this factor of the measurements'.
SPEED_RANGE = (0.1, 10.0)
#: Stages whose presence marks a job that simulated or predicted (not imaging-only).
NOT_IMAGING_ONLY = ("uvw", "predict")


def job_kind(request) -> tuple:
    """What makes two jobs take comparable time: task, device, source, algorithms, size."""
    entries = request.compare if request.task == "compare" else (request.imaging,)
    source = request.source if request.source != "ms" else ("ms", str(request.ms.path))
    niter = getattr(request.clean, "niter", None) if request.task == "clean" else None
    return (
        request.task, _device(request), source, tuple(e.algorithm for e in entries),
        int(request.imaging.npix), niter,
    )  # fmt: skip


def samples(request) -> int | None:
    """The visibility samples of a synthetic job (integrations × baselines × channels)."""
    if request.source != "synthetic" or request.observation is None:
        return None
    from uvlab.app.ms.simulation_size import observation_size

    return int(observation_size(request.observation).nsamples)


def prior_seconds(request, device: str | None = None) -> float | None:
    """The measured machines' time for ``request`` (None: an MS, or an unknown algorithm)."""
    n = samples(request)
    dev = device or _device(request)
    if n is None or dev not in PRIOR_S_PER_SAMPLE:
        return None
    entries = request.compare if request.task == "compare" else (request.imaging,)
    repeats = int(getattr(request, "repeats", 1)) if request.task == "compare" else 1
    total = 0.0
    for e in entries:
        one = _image_seconds(e.algorithm, e.npix, n, dev)
        if one is None:
            return None
        if request.task == "compare":  # a warm-up, then timed runs within the budget
            from uvlab.app.lab.compare_timing import TIMING_BUDGET_S, planned_runs

            one *= planned_runs(repeats, one, TIMING_BUDGET_S) + (repeats > 1)
        total += one
    npix = int(request.imaging.npix)
    if request.task == "compare":  # and the DFT reference, subsampled
        from uvlab.app.lab.compare_reference import DFT_BUDGET

        total += min(float(n) * npix * npix, DFT_BUDGET[dev]) / REFERENCE_RATE[dev]
    elif request.task == "aliasing":
        total *= 2.0
    elif request.task == "clean":
        niter = int(getattr(request.clean, "niter", 0) or 0)
        total = 3.0 * total + niter * (2 * npix) ** 2 * MINOR_S_PER_PIXEL[dev]
    return total


def _image_seconds(algorithm: str, npix: int, n: int, dev: str) -> float | None:
    from uvlab.gpu.gridders.registry import grids

    if not grids(algorithm):  # the direct DFT: every pixel of every sample
        return 2.0 * float(n) * npix * npix / DFT_RATE[dev]  # dirty image and PSF
    rate = PRIOR_S_PER_SAMPLE[dev].get(algorithm)
    if rate is None:
        return None
    return rate * n * max(1.0, (npix / PRIOR_NPIX[dev]) ** 2)


def _device(request) -> str:
    from uvlab.gpu.backend import DeviceError, resolve_device

    try:
        return resolve_device(request.device)
    except DeviceError:
        return "cpu"


@dataclass
class JobTimes:
    """What the finished jobs took here: the last of each kind, and this machine's speed."""

    last: dict = field(default_factory=dict)  # job kind → (seconds, samples or None)
    speeds: list = field(default_factory=list)  # measured / prior of imaging-only jobs

    @property
    def speed(self) -> float:
        """This machine's time over the measured machines' (1 until a job has finished)."""
        if not self.speeds:
            return 1.0
        s = sorted(self.speeds)[len(self.speeds) // 2]
        return min(max(s, SPEED_RANGE[0]), SPEED_RANGE[1])

    def estimate(self, request) -> float | None:
        """Seconds ``request`` should take here, or None when nothing says."""
        n = samples(request)
        seen = self.last.get(job_kind(request))
        if seen is not None:
            seconds, m = seen
            return seconds * (n / m if n and m else 1.0)
        prior = prior_seconds(request)
        return None if prior is None else prior * self.speed

    def record(self, request, seconds: float, timing: dict | None = None) -> None:
        """A finished job: its kind's time, and for an imaging-only one the machine's speed."""
        if not (seconds > 0 and math.isfinite(seconds)):
            return
        self.last[job_kind(request)] = (float(seconds), samples(request))
        prior = prior_seconds(request)
        stages = timing or {}
        if request.task == "image" and prior and not any(k in stages for k in NOT_IMAGING_ONLY):
            self.speeds = [*self.speeds[-8:], seconds / prior]


def time_left(elapsed: float, fraction: float, estimate: float | None) -> float | None:
    """Seconds a running job has left: from its progress once it is 10 % done and has run
    half a second (elapsed × (1 − f)/f), before that from ``estimate``; None if neither."""
    if fraction >= 0.1 and elapsed >= 0.5:
        return elapsed * (1.0 - min(fraction, 1.0)) / fraction
    if estimate is not None:
        return max(estimate - elapsed, 0.0)
    return None


def format_seconds(seconds: float) -> str:
    """``"about 4 s"``, ``"about 2 min"``; ``"under a second"`` below one."""
    if seconds < 1.0:
        return "under a second"
    if seconds < 90.0:
        return f"about {seconds:.0f} s"
    return f"about {seconds / 60.0:.0f} min"


def slow_notice(request, seconds: float) -> str:
    """What the window says as a slow job starts: what, how long, how to stop it."""
    what = {"image": "imaging", "aliasing": "the aliasing maps", "compare": "the comparison",
            "clean": "CLEAN"}.get(request.task, request.task)  # fmt: skip
    if request.task != "compare":
        what += f" with {request.imaging.algorithm}"
    dev = "GPU" if _device(request) == "gpu" else "CPU"
    return (f"{what} at {request.imaging.npix}² will take {format_seconds(seconds)} on this "
            f"{dev}: Cancel (Esc) stops it")  # fmt: skip
