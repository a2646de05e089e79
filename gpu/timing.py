"""Per-stage timing (DESIGN §4): CUDA events on the GPU, perf_counter on the CPU.

Each stage is also logged at DEBUG as it ends (``uvlab.gpu.timing``; the CLI's
``--verbose`` and ``--log-file`` show it), with its time on the CPU; on the GPU only its
name, since the time is known only after a synchronisation.
"""

from __future__ import annotations

import logging
import time
from contextlib import contextmanager, nullcontext

log = logging.getLogger(__name__)

#: Stage names in pipeline order (DESIGN §4).
STAGES = (
    "read MS",
    "uvw",
    "host→device",
    "predict",
    "weighting",
    "sort / bin",
    "grid",
    "prune",
    "FFT",
    "correct",
    "device→host",
    "display",
)


def timed(timer, name: str):
    """``timer.stage(name)``, or a no-op context when there is no timer."""
    return timer.stage(name) if timer is not None else nullcontext()


class StageTimer:
    """Accumulate wall time per named stage.

    On the GPU (``gpu=True``) each stage is bracketed by two
    ``cupy.cuda.Event`` records and resolved lazily in :meth:`seconds`, so
    timing adds no host synchronisation inside a pipeline.

    Examples
    --------
    >>> t = StageTimer()
    >>> with t.stage("grid"):
    ...     pass
    >>> sorted(t.seconds())
    ['grid']
    """

    def __init__(self, gpu: bool = False):
        self.gpu = gpu
        self._cpu: dict[str, float] = {}
        self._events: list[tuple[str, object, object]] = []

    @contextmanager
    def stage(self, name: str):
        if self.gpu:
            import cupy

            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            try:
                yield
            finally:
                stop.record()
                self._events.append((name, start, stop))
            log.debug("stage %s: queued on the GPU", name)
        else:
            t0 = time.perf_counter()
            try:
                yield
            finally:
                seconds = time.perf_counter() - t0
                self._cpu[name] = self._cpu.get(name, 0.0) + seconds
            log.debug("stage %s: %.3f s", name, seconds)

    def add(self, name: str, seconds: float) -> None:
        """Add an externally measured duration to a stage."""
        self._cpu[name] = self._cpu.get(name, 0.0) + float(seconds)

    def seconds(self) -> dict[str, float]:
        """Stage → seconds, in DESIGN §4 order then any extra stages."""
        out = dict(self._cpu)
        if self._events:
            import cupy

            for name, start, stop in self._events:
                stop.synchronize()
                out[name] = out.get(name, 0.0) + cupy.cuda.get_elapsed_time(start, stop) / 1e3
        order = {s: i for i, s in enumerate(STAGES)}
        return dict(sorted(out.items(), key=lambda kv: order.get(kv[0], len(order))))

    def total(self) -> float:
        return float(sum(self.seconds().values()))
