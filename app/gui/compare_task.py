"""The ``compare`` task: several imaging entries against one DFT reference (no Qt).

An *entry* is an :class:`~uvlab.app.gui.jobs.ImagingOptions`: the window's
imaging options (size, cell, weighting) with its own algorithm and gridder
parameters, so one comparison can hold different algorithms or the same
algorithm with different parameters. This follows :func:`uvlab.app.compare.compare_algorithms`
(the engine of ``uvlab compare``) with two differences: every entry has its
own :class:`~uvlab.gpu.gridders.params.GridParams`, and the DFT reference is
summed over chunks of visibilities (it is linear in them) so that a long
reference can be cancelled between chunks. The result is the same
:class:`~uvlab.app.compare.Comparison`, so the PNG report and ``metrics.json``
are those of ``uvlab compare``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from uvlab.app.gui.jobs import ALGORITHMS, Done, ImagingOptions, JobRequest, Progress
from uvlab.app.gui.samples import check

#: Algorithms an entry may use (the DFT is the reference).
GRIDDERS = tuple(a for a in ALGORITHMS if a != "dft")
#: Pixel·visibility products per chunk of the DFT reference (≈ 1–3 s on one CPU core).
REFERENCE_CHUNK_WORK = 5.0e8


def entry_summary(o: ImagingOptions) -> str:
    """The parameters an entry's algorithm reads, e.g. ``"es ε=1e-05 σ=2"``."""
    parts = []
    if o.algorithm in ("conv", "hybrid"):
        parts.append(o.kernel)
        parts.append(f"ε={o.eps:g}" if o.accuracy == "eps" else f"S={o.support}")
        if o.algorithm == "hybrid" or o.accuracy == "support":
            parts.append(f"β={o.oversample}")
        parts.append(f"σ={o.padding:g}")
    elif o.algorithm in ("nn-oversampled", "pruned-nn"):
        parts.append(f"β={o.oversample}")
    return " ".join(parts)


def entry_labels(entries) -> list[str]:
    """One distinct label per entry: the algorithm, with its parameters when repeated."""
    count = Counter(e.algorithm for e in entries)
    labels: list[str] = []
    for e in entries:
        label = e.algorithm
        if count[e.algorithm] > 1 and entry_summary(e):
            label = f"{e.algorithm} ({entry_summary(e)})"
        base, k = label, 2
        while label in labels:
            label, k = f"{base} #{k}", k + 1
        labels.append(label)
    return labels


@dataclass(frozen=True, eq=False)
class CompareOutput:
    """The result of a ``compare`` job.

    Attributes
    ----------
    comparison : Comparison
        Results keyed by the entries' labels, in entry order.
    entries : tuple of ImagingOptions
    ra0_rad, dec0_rad : float
    freq_hz : (chan,) float
    description : str
        The data, as ``metrics.json``'s ``"data"``.
    """

    comparison: object
    entries: tuple
    ra0_rad: float
    dec0_rad: float
    freq_hz: np.ndarray
    description: str = ""

    @property
    def labels(self) -> list[str]:
        return list(self.comparison.results)

    def table(self) -> dict[str, dict[str, float]]:
        """``{label: {rms_central, rms_full, max_error, rate_vis_per_s}}`` for the table."""
        return {
            label: {**r.metrics, "rate_vis_per_s": r.rate_vis_per_s}
            for label, r in self.comparison.results.items()
        }

    def write_metrics(self, path) -> Path:
        """``metrics.json`` in the format of ``uvlab compare``."""
        from uvlab.app.compare import write_metrics_json

        return write_metrics_json(self.comparison, path, self.description)

    def write_report(self, path) -> Path:
        """The PNG report of ``uvlab compare``."""
        from uvlab.app.report import compare_report

        title = f"{self.description} — vs {self.comparison.reference_label}"
        return compare_report(self.comparison, path, title=title)


def chunked_reference(u, v, wvis, sumw, spec, step, device, cancelled=None) -> Iterator:
    """The DFT reference summed over visibility chunks; yields fractions, returns (image, s)."""
    from uvlab.app.compare import reference_image

    n_out = -(-spec.npix // step)
    nchunk = max(1, math.ceil(n_out**2 * u.size / REFERENCE_CHUNK_WORK))
    edges = np.linspace(0, u.size, nchunk + 1).round().astype(int)
    img, seconds = np.zeros((n_out, n_out)), 0.0
    for k in range(nchunk):
        sl = slice(edges[k], edges[k + 1])
        part, t = reference_image(u[sl], v[sl], wvis[sl], sumw, spec, step, device)
        img, seconds = img + part, seconds + t
        check(cancelled)
        yield (k + 1) / nchunk
    return img, seconds


def iter_compare(request: JobRequest, samples, cancelled) -> Iterator:
    """Events of the compare task on imaging-ready ``samples``; ends with Done(CompareOutput)."""
    from uvlab.app.compare import (
        CPU_DFT_BUDGET,
        GPU_DFT_BUDGET,
        AlgorithmResult,
        Comparison,
        dft_step,
    )
    from uvlab.gpu.aliasing import error_map
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.imaging.imager import ImagingError, flatten_samples, make_image
    from uvlab.gpu.imaging.spec import ImageSpec
    from uvlab.gpu.imaging.weighting import imaging_weights

    s, im, entries = samples, request.imaging, request.compare
    spec, weighting = s.spec, im.weighting_spec()
    labels = entry_labels(entries)
    dev = resolve_device(request.device)
    u, v, _, vis_f, wt = flatten_samples(s.uvw, s.freq_hz, s.vis, s.weight, s.flag)
    if u.size == 0:
        raise ImagingError("every sample is flagged or has zero weight: nothing to image")
    wt = imaging_weights(u, v, wt, spec, weighting)
    sumw, nvis = float(wt.sum()), int(np.count_nonzero(wt))
    step = dft_step(spec.npix, nvis, GPU_DFT_BUDGET if dev == "gpu" else CPU_DFT_BUDGET)
    yield Progress(0.72, "compare: DFT reference")
    ref_gen = chunked_reference(u, v, wt * vis_f, sumw, spec, step, dev, cancelled)
    while True:
        try:
            frac = next(ref_gen)
        except StopIteration as stop:
            ref, t_ref = stop.value
            break
        yield Progress(0.72 + 0.2 * frac, "compare: DFT reference")
    results = {}
    for k, (label, e) in enumerate(zip(labels, entries)):
        yield Progress(0.92 + 0.08 * k / len(entries), f"compare: {label}")
        res = make_image(
            s.uvw,
            s.freq_hz,
            s.vis,
            s.weight,
            ImageSpec(spec.npix, spec.cell_rad, pad=e.padding),
            flag=s.flag,
            weighting=weighting,
            algorithm=e.algorithm,
            params=e.grid_params(),
            device=request.device,
            psf=False,
        )
        err, metrics = error_map(res.dirty[::step, ::step], ref)
        results[label] = AlgorithmResult(label, res.dirty, err, metrics, dict(res.timing), res.nvis)
        check(cancelled)
    cmp = Comparison(spec, ref, step, results, {"dft": t_ref}, dev, nvis)
    yield Done(
        CompareOutput(
            cmp,
            tuple(entries),
            float(s.ra0_rad),
            float(s.dec0_rad),
            np.asarray(s.freq_hz),
            s.description,
        )
    )
