"""The records of a comparison (:mod:`uvlab.app.lab.compare`): each entry's result, the
whole comparison, and its ``metrics.json``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from uvlab.gpu.gridders.registry import REFERENCE


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
    timing_path : str or None
        How the timings were taken when not by the one-process loop's timed runs (the
        chunked path's wall time over the cluster): ``metrics.json``'s ``timing_path``.
    """

    spec: object
    reference: np.ndarray
    step: int
    results: dict
    reference_timing: dict = field(default_factory=dict)
    reference_device: str = "cpu"
    nvis: int = 0
    timing_path: str | None = None

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
            **({} if self.timing_path is None else {"timing_path": self.timing_path}),
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
