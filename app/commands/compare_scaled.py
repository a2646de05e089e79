"""``uvlab compare`` over a Dask cluster, in row chunks of bounded memory (issue 27).

With ``--scheduler``/``--workers``/``--abs-mem``/``--chunk-rows``
(:mod:`uvlab.app.commands.scale_args`, as ``uvlab image``'s chunked path) no process holds
the selection: each algorithm's dirty image is
:func:`uvlab.app.scale.ms_image.image_ms`'s (the same weighting, cell and chunks as
``uvlab image`` there), and the DFT reference is summed over the same row chunks on the
workers (the direct sum is linear: each chunk's weighted DFT at the reference pixels,
:class:`~uvlab.app.lab.compare_reference.ReferencePart`, with Σw and Σ|w·V|, normalised
once here), each chunk weighted with the density totals of all the data (those of the
first algorithm's density pass, for uniform and Briggs). The error maps, metrics and
bounds are then the one-process comparison's own functions
(:func:`~uvlab.app.lab.compare.measured`, :func:`~uvlab.app.lab.compare.bounded`) on
the summed images, and the files the same set.

Each algorithm is imaged once (no warm-up, no ``--repeats``): its ``total_s`` and
``runs_s`` are the chunked run's wall time (read, density pass, gridding and the sums
over the workers), as ``metrics.json``'s ``timing_path`` says. Like ``uvlab image``'s
chunked path it needs ``--ms``, ``--npix`` and ``--cell-arcsec``; the rows per chunk are
planned from a worker's share of the memory before any chunk is read
(:mod:`uvlab.app.scale.budget`, the tightest of the algorithms' plans and the
reference's).
"""

from __future__ import annotations

import logging
import time

import numpy as np

from uvlab.app.commands.scale_args import FLAGS, add_cluster_args
from uvlab.app.commands.scale_args import wanted as wanted

log = logging.getLogger(__name__)

#: What ``metrics.json`` says of the chunked path's timings.
TIMING_PATH = (
    "chunked: each algorithm imaged once in row chunks over the Dask cluster; total_s and "
    "runs_s are that run's wall time (read, density pass, gridding, sums over the workers)"
)


def add_scale_args(p) -> None:
    """The cluster options of ``uvlab compare`` (:mod:`uvlab.app.commands.scale_args`)."""
    add_cluster_args(
        p,
        "compare in row chunks over a Dask cluster with bounded memory (needs --ms, --npix "
        "and --cell-arcsec; docs/scaling.md)",
    )


def check(args) -> None:
    """Usage errors (exit 2, one line) for what the chunked path needs."""
    if not args.ms:
        args.parser.error(f"{FLAGS} need --ms (a synthetic observation is compared in memory)")
    if args.npix is None or args.cell_arcsec is None:
        args.parser.error(f"{FLAGS} need --npix and --cell-arcsec")
    k, half = args.dft_step, args.npix // 2
    if k is not None and (k < 1 or half % k):  # known before any work, the npix given
        args.parser.error(f"--dft-step {k} must divide --npix/2 = {half}")


def _reference(chunk, *, spec, weighting, totals, step, device):
    """One row chunk's :class:`~uvlab.app.lab.compare_reference.ReferencePart` (a task)."""
    from uvlab.app.lab.compare_reference import reference_part
    from uvlab.app.scale.ms_read import chunk_data
    from uvlab.gpu.imaging.parts import weighted_samples

    vd = chunk_data(chunk)
    s, wt = weighted_samples(
        vd.uvw, vd.freq_hz, vd.vis, vd.weight, vd.flag, spec, weighting, totals
    )
    return reference_part(s.u, s.v, wt * s.take(vd.vis), wt, spec, step, device)


def plan_rows(args, algorithms, params, wt, spec, meta, memory, gpus) -> int:
    """Rows per chunk: ``--chunk-rows``, else the fewest of each algorithm's plan (its dirty
    image alone, as ``uvlab image``'s) and the reference's, in a worker's share of
    ``memory``. Raises :class:`~uvlab.app.scale.budget.BudgetError` when one does not fit."""
    from uvlab.app.lab.compare_reference import DFT_CHUNK_BYTES
    from uvlab.app.scale.budget import (
        WORKER_OVERHEAD_BYTES,
        chunk_rows,
        grid_costs,
        grid_share,
        image_bytes,
        nufft_costs,
    )
    from uvlab.app.scale.cluster import default_worker_count
    from uvlab.app.scale.ms_image import summing

    if args.chunk_rows:
        return args.chunk_rows
    npix, nchan, ncorr = spec.npix, meta.nchan, len(meta.corr_names)
    share = (
        float("inf") if memory is None else memory / (args.workers or default_worker_count(gpus))
    )
    density = wt.density_spec(spec).npix if wt.scheme != "natural" else 0
    what = f"a {npix}² image"
    plans = []
    for a in algorithms:
        summed = summing(a, params, args.device)
        if summed in ("grids", "nufft"):
            costs = (grid_costs(npix, a, params, density_npix=density) if summed == "grids"
                     else nufft_costs(npix, density_npix=density))  # fmt: skip
            plans.append(chunk_rows(grid_share(share), nchan, ncorr, costs.fixed, what=what,
                                    grid=costs))  # fmt: skip
        else:
            fixed = image_bytes(npix, a, params, density_npix=density)
            plans.append(chunk_rows(share, nchan, ncorr, fixed, what=what))
    # the reference: its factor matrices, its image part and their sum, the density
    ref = WORKER_OVERHEAD_BYTES + DFT_CHUNK_BYTES + 2 * 8.0 * npix**2 + 3 * 8.0 * (2 * density) ** 2
    plans.append(chunk_rows(share, nchan, ncorr, ref, what=f"the DFT reference of {what}"))
    plan = min(plans, key=lambda p: p.rows)
    log.info("%s", plan.describe())
    return plan.rows


def run(args, algorithms, params, wt, outputs) -> int:
    """``uvlab compare`` of ``args.ms`` in row chunks over the cluster (outputs checked)."""
    from uvlab.app.commands.compare_files import finish, one_spw
    from uvlab.app.commands.ms_args import parse_channels
    from uvlab.app.commands.scale_args import local_gpus, memory_bytes
    from uvlab.app.commands.scaled_selection import row_selection, with_interval
    from uvlab.app.commands.validate import field_arg
    from uvlab.app.lab.compare import Comparison, bounded, measured
    from uvlab.app.lab.compare_reference import reference_step
    from uvlab.app.runtime.progress import progress_bar
    from uvlab.app.scale.chains import fold_sum
    from uvlab.app.scale.cluster import cluster_client, describe
    from uvlab.app.scale.ms_image import image_ms, source_chunks
    from uvlab.app.scale.ms_read import MSRead
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.gridders.registry import REFERENCE, algorithm
    from uvlab.gpu.image_spec import ARCSEC, ImageSpec

    spw = one_spw(args)
    read = MSRead(args.ms, field_arg(args.field), spw, args.column, args.stokes,
                  parse_channels(args.channels), **row_selection(args))  # fmt: skip
    source = with_interval(args, read)
    meta = source.read((0, 1))  # the selection checked, its shape known: no data read yet
    spec = ImageSpec(args.npix, args.cell_arcsec * ARCSEC)
    dev = resolve_device(args.device)
    memory, gpus = memory_bytes(args), local_gpus(args)
    rows = plan_rows(args, algorithms, params, wt, spec, meta, memory, gpus)
    images, walls = {}, {}
    with cluster_client(args.scheduler, workers=args.workers, memory_bytes=memory,
                        gpus=gpus) as client:  # fmt: skip
        log.info("%s%s", describe(client), f", on GPUs {','.join(gpus)}" if gpus else "")
        for a in algorithms:
            t0 = time.perf_counter()
            images[a] = image_ms(client, source, spec, wt, chunk_rows=rows, algorithm=a,
                                 params=params, device=args.device, psf=False)  # fmt: skip
            walls[a] = time.perf_counter() - t0
        first = images[algorithms[0]]
        step = reference_step(spec.npix, first.nvis, args.dft_step, dev)
        chunks = source_chunks(source, rows)
        t0 = time.perf_counter()
        with progress_bar("DFT reference", total=len(chunks), unit="chunk") as bar:
            part = fold_sum(client, _reference, chunks, spec=spec, weighting=wt,
                            totals=first.totals, step=step, device=dev,
                            progress=bar).result()  # fmt: skip
        t_ref = time.perf_counter() - t0
    ref, abs_sum = part.normalised()
    peak = float(np.abs(ref).max())
    results = {}
    for a in algorithms:
        res, wall = images[a], walls[a]
        timing = dict(res.timing)
        timing["sums and transfers"] = max(0.0, wall - sum(timing.values()))
        r = measured(a, res.dirty, ref, step, timing, res.nvis, runs_s=(wall,),
                     backend=algorithm(a).backend(res.device))  # fmt: skip
        results[a] = bounded(r, a, params, spec, step, abs_sum, peak)
    cmp = Comparison(spec, ref, step, results, {REFERENCE: t_ref}, dev, part.nvis,
                     timing_path=TIMING_PATH)  # fmt: skip
    label = f"{meta.path}, field {meta.field_name}, spw {meta.spw}, {meta.column}, Stokes " \
        f"{meta.stokes}"  # fmt: skip
    ra, dec = float(np.degrees(meta.ra0_rad)), float(np.degrees(meta.dec0_rad))
    return finish(args, cmp, outputs, ra, dec, meta.freq_hz, params, label, "given")
