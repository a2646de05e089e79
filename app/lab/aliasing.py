"""The ``aliasing`` task: error map against the DFT, analytic map and R(X) (no Qt).

Uses :mod:`uvlab.gpu.aliasing` (DESIGN §3, Muscat 2021 §2.3, §8) on the
job's own data and imaging settings, in cancellable steps:

1. the exact DFT image and the algorithm's image of the same weighted
   samples, and their error map: a comparison of one entry at every pixel
   (:func:`uvlab.app.lab.compare.iter_comparison`, its reference cancellable
   between chunks), skipped with a note when the DFT would cost more than
   :data:`uvlab.app.lab.compare.DFT_BUDGET` multiply-adds;
2. the analytic (data-independent) map ``E = max_δ |L_u·L_v − 1|`` from the
   algorithm's transfer functions, evaluated on every k-th pixel so that at
   most :data:`ANALYTIC_NPIX`² pixels are computed (the result carries its own
   ImageSpec of N/k pixels of k cells, whose pixel centres are exactly those
   of the full image);
3. Muscat's R(X) for a unit point source on the diagonal, at
   :data:`SCAN_POINTS` offsets X, with the data's uv coverage and weights.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from uvlab.app.lab.jobs import AliasingOutput, Done, JobRequest, Progress, within
from uvlab.gpu.gridders.registry import grids

#: The analytic map is evaluated on at most this many pixels per side.
ANALYTIC_NPIX = 128
#: Offsets X of the R(X) scan.
SCAN_POINTS = 8


def _check(cancelled) -> None:
    from uvlab.app.lab.samples import check

    check(cancelled)


def analytic_map_coarse(algorithm, spec, params, cancelled=None, max_npix=ANALYTIC_NPIX):
    """``(E, coarse_spec)``: the analytic aliasing bound on every k-th pixel.

    Same quantity as :func:`uvlab.gpu.aliasing.analytic_map` (kind "max"),
    evaluated at pixels ``i, j ∈ {0, k, 2k, …}`` with ``k = ⌈N / max_npix⌉``
    (rounded so that N/k is even), checking ``cancelled()`` per block of rows.
    """
    from uvlab.gpu.aliasing import axis_bound_samples, bound_map

    n = spec.npix
    k = 1
    while n // k > max_npix or n % k or (n // k) % 2:
        k += 1
    su, sv = axis_bound_samples(algorithm, spec, params, pixels=k)
    out = bound_map(su, sv, on_block=lambda: _check(cancelled))
    return out, spec.every(k)


def iter_aliasing(request: JobRequest, samples, cancelled) -> Iterator:
    """Events of the aliasing task for imaged-ready ``samples`` (see module doc)."""
    from uvlab.app.lab.compare import DFT_BUDGET, Entry, iter_samples_comparison
    from uvlab.gpu.aliasing import point_source_scan
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.imaging.imager import flatten_samples
    from uvlab.gpu.imaging.weighting import imaging_weights

    im = request.imaging
    if not grids(im.algorithm):
        raise ValueError("the aliasing maps compare a gridder with the DFT: choose a gridder")
    spec, params = samples.spec, request.grid_params()
    s = samples
    dev = resolve_device(request.device)
    notes = []
    u, v, _, _, wt = flatten_samples(s.uvw, s.freq_hz, s.vis, s.weight, s.flag)
    wt = imaging_weights(u, v, wt, spec, im.weighting_spec())
    err, metrics = None, {}
    cost = float(u.size) * spec.npix**2
    if cost <= DFT_BUDGET[dev]:
        entry = Entry(im.algorithm, im.algorithm, params)
        events = iter_samples_comparison(request, s, [entry], cancelled, step=1)
        cmp = yield from within(events, 0.75, 0.85, "aliasing: ")
        err, metrics = cmp.results[im.algorithm].error, cmp.results[im.algorithm].metrics
    else:
        notes.append(
            f"Error map not computed: the DFT reference needs {cost:.1e} multiply-adds "
            f"(limit {DFT_BUDGET[dev]:.0e} on the {dev.upper()}); use fewer pixels or less data."
        )
    _check(cancelled)
    yield Progress(0.85, "aliasing: analytic map")
    analytic, coarse = analytic_map_coarse(im.algorithm, spec, params, cancelled)
    if coarse.npix != spec.npix:
        k = spec.npix // coarse.npix
        notes.append(f"Analytic map on a {coarse.npix}² subset of the pixels (1 in {k} per axis).")
    xs = np.unique(np.linspace(0, spec.npix // 2 - 1, SCAN_POINTS).astype(int))
    rs = np.empty(xs.size)
    for k, x in enumerate(xs):
        yield Progress(0.9 + 0.1 * k / xs.size, "aliasing: R(X) scan")
        rs[k] = point_source_scan(im.algorithm, spec, params, u, v, wt, xs=[x])[1][0]
        _check(cancelled)
    yield Done(
        AliasingOutput(
            spec, im.algorithm, err, metrics, analytic, xs, rs, tuple(notes), analytic_spec=coarse
        )
    )
