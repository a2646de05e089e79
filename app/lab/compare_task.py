"""The ``compare`` task: several imaging entries against one DFT reference (no Qt).

An *entry* is an :class:`~uvlab.app.lab.imaging.ImagingOptions`: the window's
imaging options (size, cell, weighting) with its own algorithm and gridder
parameters, so one comparison can hold different algorithms or the same
algorithm with different parameters. The comparison itself is
:func:`uvlab.app.lab.compare.iter_comparison`, the loop ``uvlab compare``
drains too, with the DFT reference summed over chunks of visibilities so that
a long one can be cancelled between them. The result is the same
:class:`~uvlab.app.lab.compare.Comparison`, so the PNG report and
``metrics.json`` are those of ``uvlab compare``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.lab.jobs import Done, JobRequest, within
from uvlab.gpu.gridders.registry import algorithm


def entry_summary(o: ImagingOptions) -> str:
    """The parameters an entry's algorithm reads, e.g. ``"es ε=1e-05 σ=2"``."""
    record = algorithm(o.algorithm)
    uses, parts = record.uses, []
    if "kernel" in uses:
        parts.append(o.kernel)
    if "support" in uses:
        parts.append(f"ε={o.eps:g}" if o.kernel_size == "eps" else f"S={o.support}")
    if "oversample" in uses and (record.fine_grid or o.kernel_size == "support"):
        parts.append(f"β={o.oversample}")
    if "lookup" in uses and o.kernel_size == "support" and o.lookup != "nearest":
        parts.append(o.lookup)
    if "sigma" in uses:
        parts.append(f"σ={o.sigma:g}")
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
    match : ConvMatch or None
        For a job with ``match``: the conv setting matching that entry's error
        (:mod:`uvlab.app.lab.conv_match`); when ``match.added`` it is the last entry.
    """

    comparison: object
    entries: tuple
    ra0_rad: float
    dec0_rad: float
    freq_hz: np.ndarray
    description: str = ""
    match: object | None = None

    @property
    def labels(self) -> list[str]:
        return list(self.comparison.results)

    def table(self) -> dict[str, dict[str, object]]:
        """``{label: {backend, rms_central, rms_full, max_error, time_ms, rate_vis_per_s}}``
        for the table (:data:`uvlab.widgets.metrics_table.COLUMNS`); ``time_ms`` is
        (median, fastest, slowest) of the timed runs' totals."""
        return {
            label: {
                "backend": r.backend,
                **r.metrics,
                "time_ms": tuple(1e3 * t for t in (r.total_s, *r.spread_s)),
                "rate_vis_per_s": r.rate_vis_per_s,
            }
            for label, r in self.comparison.results.items()
        }

    def timing_spread(self) -> dict[str, tuple[float, float]]:
        """``{label: (fastest, slowest)}`` total seconds of each entry's timed runs."""
        return {label: r.spread_s for label, r in self.comparison.results.items()}

    def write_metrics(self, path) -> Path:
        """``metrics.json`` in the format of ``uvlab compare``."""
        from uvlab.app.lab.compare import write_metrics_json

        return write_metrics_json(self.comparison, path, self.description)

    def write_report(self, path) -> Path:
        """The PNG report of ``uvlab compare``."""
        from uvlab.app.outputs.report import compare_report

        title = f"{self.description} — vs {self.comparison.reference_label}"
        return compare_report(self.comparison, path, title=title)


def iter_compare(request: JobRequest, samples, cancelled) -> Iterator:
    """Events of the compare task on imaging-ready ``samples``; ends with Done(CompareOutput).

    Each entry images with its own gridder parameters and padding σ,
    ``request.repeats`` times (the median run's timing, every run's total), the
    reference is summed over chunks (cancellable between them):
    :func:`uvlab.app.lab.compare.iter_comparison`, in the job's last 28 %.
    With ``request.match``, the conv candidates of
    :func:`uvlab.app.lab.conv_match.iter_conv_match` follow, measured against
    the same reference, and the matching one becomes the last entry.
    """
    from uvlab.app.lab.compare import Entry, iter_samples_comparison

    s, entries = samples, tuple(request.compare)
    labels = entry_labels(entries)
    runs = [Entry(label, e.algorithm, request.grid_params(e)) for label, e in zip(labels, entries)]
    events = iter_samples_comparison(request, s, runs, cancelled, repeats=request.repeats)
    split = 1.0 if request.match is None else 0.9
    cmp = yield from within(events, 0.72, split, "compare: ")
    match = None
    if request.match is not None:
        cmp, entries, match = yield from _with_match(request, s, cmp, entries, cancelled)
    yield Done(
        CompareOutput(
            cmp,
            entries,
            float(s.ra0_rad),
            float(s.dec0_rad),
            np.asarray(s.freq_hz),
            s.description,
            match,
        )
    )


def _with_match(request, samples, cmp, entries: tuple, cancelled):
    """The comparison and entries with the conv entry matching entry ``request.match``."""
    from uvlab.app.lab.conv_match import iter_conv_match, same_conv

    target = entries[request.match]
    label = entry_labels(entries)[request.match]
    events = iter_conv_match(request, samples, cmp, label, target, cancelled)
    match, result = yield from within(events, 0.9, 1.0, "match: ")
    if result is None or any(same_conv(e, match.options) for e in entries):
        return cmp, entries, match
    entries = (*entries, match.options)
    old = [*cmp.results.values(), result]
    labels = entry_labels(entries)  # the target's label may gain its parameters
    results = {lab: replace(r, name=lab) for lab, r in zip(labels, old)}
    match = replace(match, added=True, target=labels[request.match])
    return replace(cmp, results=results), entries, match
