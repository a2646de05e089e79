"""Compare gridding algorithms against the exact DFT of the same weighted data.

:func:`compare_algorithms` images one data set with each algorithm (dirty
image only, no PSF), computes the reference ``dft`` image of the same
weighted samples (DESIGN §3), and returns per algorithm its image, its error
map ``|I − I_dft| / peak(I_dft)`` and metrics (:func:`uvlab.gpu.aliasing.error_map`:
RMS over the central half, over the full image, maximum), the stage timings
and the gridding rate (samples with nonzero weight ÷ grid seconds).

The reference is the 2-D DFT without the w-term, like the gridders. On the
CPU it costs about N²·nvis complex multiply-adds plus 2·N·nvis complex
exponentials (measured 2e8–1e9 pixel·visibilities per second on two cores);
when that exceeds :data:`CPU_DFT_BUDGET` it is evaluated only on every k-th
pixel in each axis (``dirty_dft(..., pixels=k)``, k dividing N/2 so that the
subsampled grid keeps the image centre), the algorithms' images are compared
on those pixels only, and :attr:`Comparison.reference_label` says so. Pure
Python over :mod:`uvlab.gpu`: used by ``uvlab compare`` and the GUI.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from uvlab.app.errors import Cancelled

#: N²·nvis products the CPU reference may cost before it is subsampled (~20 s at 2e8/s).
CPU_DFT_BUDGET = 4.0e9
#: The same on a GPU (float64 cuBLAS).
GPU_DFT_BUDGET = 1.0e14
#: Bytes the reference's factor matrices may take per chunk.
DFT_CHUNK_BYTES = 256 * 2**20


@dataclass(frozen=True)
class AlgorithmResult:
    """One algorithm's dirty image, error map, metrics and timing."""

    name: str
    image: np.ndarray
    error: np.ndarray
    metrics: dict
    timing: dict
    nvis: int

    @property
    def rate_vis_per_s(self) -> float | None:
        """Samples with nonzero weight per second of the grid stage."""
        t = float(self.timing.get("grid", 0.0))
        return self.nvis / t if t > 0 else None


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
            "DFT image's peak; rate_vis_per_s = nvis / grid seconds",
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
) -> Comparison:
    """Image with each algorithm and measure its error against the DFT.

    Parameters
    ----------
    uvw : (row, 3) float, metres
    freq_hz : (chan,) float
    vis : (row, chan) complex
    weight : (row, chan) float or broadcastable
    spec : ImageSpec
    algorithms : sequence of str
        Gridder names (``dft`` is the reference and is not allowed here).
    flag : (row, chan) bool, optional
    weighting : Weighting, optional
    params : GridParams, optional
    device : {"auto", "cpu", "gpu"}
        Where the reference DFT runs (the gridders run where they run).
    step : int, optional
        Reference subsampling k (must divide N/2); default from the budget.
    progress : callable(fraction, stage), optional
    cancelled : callable() -> bool, optional
    """
    from uvlab.gpu.aliasing import error_map
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.imaging.imager import ImagingError, flatten_samples, make_image
    from uvlab.gpu.imaging.weighting import Weighting, imaging_weights

    algorithms = list(algorithms)
    if not algorithms or "dft" in algorithms:
        raise ValueError("give one or more gridding algorithms; dft is the reference")
    report = progress or (lambda f, s: None)
    weighting = weighting or Weighting()
    dev = resolve_device(device)
    u, v, _, vis_f, wt = flatten_samples(uvw, freq_hz, vis, weight, flag)
    if u.size == 0:
        raise ImagingError("every sample is flagged or has zero weight: nothing to image")
    wt = imaging_weights(u, v, wt, spec, weighting)
    sumw = float(wt.sum())
    nvis = int(np.count_nonzero(wt))
    if step is None:
        step = dft_step(spec.npix, nvis, GPU_DFT_BUDGET if dev == "gpu" else CPU_DFT_BUDGET)
    if step < 1 or (spec.npix // 2) % step:
        raise ValueError(f"reference step {step} must divide N/2 = {spec.npix // 2}")
    total = len(algorithms) + 1
    report(0.0, "dft reference")
    ref, t_ref = reference_image(u, v, wt * vis_f, sumw, spec, step, dev)
    results = {}
    for k, name in enumerate(algorithms, start=1):
        if cancelled is not None and cancelled():
            raise Cancelled("comparison cancelled")
        report(k / total, name)
        res = make_image(
            uvw,
            freq_hz,
            vis,
            weight,
            spec,
            flag=flag,
            weighting=weighting,
            algorithm=name,
            params=params,
            device=device,
            psf=False,
        )
        err, metrics = error_map(res.dirty[::step, ::step], ref)
        results[name] = AlgorithmResult(name, res.dirty, err, metrics, dict(res.timing), res.nvis)
    report(1.0, "done")
    return Comparison(spec, ref, step, results, {"dft": t_ref}, dev, nvis)
