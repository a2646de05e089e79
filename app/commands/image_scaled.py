"""``uvlab image`` over a Dask cluster, in row chunks of bounded memory (issue 27).

``--scheduler ADDRESS`` (or ``UVLAB_SCHEDULER``) joins a running cluster;
``--workers N`` starts a local one of N worker processes; ``--abs-mem GB``
(WSClean's name) caps the memory all local workers may use; ``--chunk-rows N``
sets the rows per chunk (default: what fits a worker's share beside the
image-sized part, :mod:`uvlab.app.scale.budget`). Any of them sends the dirty
image and PSF through :func:`uvlab.app.scale.ms_image.image_ms`; like WSClean's
``-size``/``-scale``, that path needs ``--npix`` and ``--cell-arcsec``.
"""

from __future__ import annotations

import os
import time

from uvlab.app.commands.validate import number
from uvlab.gpu.gridders.registry import grids

COUNT = number(1, integer=True)
GIGABYTES = number(0.0, open_lo=True, unit="GB")

#: Options the chunked path does not take yet (each a usage error with it).
UNSUPPORTED = (
    ("niter", "--niter", lambda v: v and v > 0),
    ("pb_correct", "--pb-correct", bool),
    ("timerange", "--timerange", bool),
    ("interval", "--interval", bool),
    ("antenna", "--antenna", bool),
    ("phase_center", "--phase-center", bool),
    ("minuv_l", "--minuv-l", lambda v: v is not None),
    ("maxuv_l", "--maxuv-l", lambda v: v is not None),
    ("size", "--size", bool),
    ("channels_out", "--channels-out", lambda v: v and v > 1),
    ("join_channels", "--join-channels", bool),
)


def add_scale_args(p) -> None:
    """The cluster options of ``uvlab image``."""
    g = p.add_argument_group(
        "scale",
        "image in row chunks over a Dask cluster with bounded memory (needs --npix and "
        "--cell-arcsec; docs/scaling.md)",
    )
    g.add_argument(
        "--scheduler", metavar="ADDRESS",
        help="join this Dask scheduler (tcp://HOST:PORT; default $UVLAB_SCHEDULER)",
    )  # fmt: skip
    g.add_argument(
        "--workers", type=COUNT, metavar="N",
        help="worker processes of the local cluster (default: the cores)",
    )  # fmt: skip
    g.add_argument(
        "--abs-mem", type=GIGABYTES, metavar="GB",
        help="memory all local workers may use, GB (WSClean's -abs-mem; default: what is free)",
    )  # fmt: skip
    g.add_argument(
        "--chunk-rows", type=COUNT, metavar="N",
        help="rows per chunk (default: what fits a worker's memory)",
    )  # fmt: skip


def wanted(args) -> bool:
    """Whether ``args`` ask for the chunked path."""
    from uvlab.app.scale.cluster import SCHEDULER_ENV

    return bool(
        args.scheduler or args.workers or args.abs_mem or args.chunk_rows
        or os.environ.get(SCHEDULER_ENV)
    )  # fmt: skip


def check(args) -> None:
    """Usage errors (exit 2, one line) for what the chunked path does not take."""
    for attr, flag, given in UNSUPPORTED:
        if given(getattr(args, attr, None)):
            args.parser.error(
                f"{flag} is not supported with --scheduler/--workers/--abs-mem/--chunk-rows yet"
            )
    if args.npix is None or args.cell_arcsec is None:
        args.parser.error("--scheduler/--workers/--abs-mem/--chunk-rows need --npix and "
                          "--cell-arcsec")  # fmt: skip


def _memory_bytes(args) -> int | None:
    from uvlab.app.runtime.memory import USABLE_FRACTION, available_bytes

    free = available_bytes()
    free = None if free is None else int(USABLE_FRACTION * free)
    if args.abs_mem is None:
        return free
    cap = int(args.abs_mem * 2**30)
    return cap if free is None else min(cap, free)


def run(args) -> int:
    from uvlab.app.commands.image_outputs import (
        observation_cards,
        output_names,
        preview,
        psf_beam,
        write_timing,
    )
    from uvlab.app.commands.ms_imaging import (
        field_arg,
        fits_history,
        grid_params,
        parse_channels,
        weighting,
    )
    from uvlab.app.lab.samples import WorkCache
    from uvlab.app.outputs.fits_io import write_image_fits
    from uvlab.app.scale.budget import chunk_rows, image_bytes
    from uvlab.app.scale.cluster import cluster_client, default_workers, describe
    from uvlab.app.scale.ms_image import MSRead, image_ms
    from uvlab.gpu.imaging.spec import ARCSEC, ImageSpec

    check(args)
    from uvlab.app.outputs.output_set import check_outputs, output_set

    written, others = output_names(args)
    check_outputs([*written, *others], force=args.force)  # exit 2, before anything is read
    channels = parse_channels(args.channels)
    source = MSRead(
        args.ms, field_arg(args.field), args.spw, args.column, args.stokes,
        None if channels is None else (channels.start, channels.stop),
    )  # fmt: skip
    meta = source.read((0, 1))  # the selection checked, its metadata, before any work
    spec = ImageSpec(args.npix, args.cell_arcsec * ARCSEC)
    params = grid_params(args) if grids(args.algorithm) else None
    wt = weighting(args)
    memory = _memory_bytes(args)
    rows = args.chunk_rows
    if rows is None:
        nworkers = args.workers or default_workers()
        density = args.npix if wt.scheme != "natural" else 0
        fixed = image_bytes(args.npix, args.algorithm, params, density_npix=density)
        share = float("inf") if memory is None else memory / nworkers
        plan = chunk_rows(share, meta.nchan, len(meta.corr_names), fixed,
                          what=f"a {args.npix}² image")  # fmt: skip
        rows = plan.rows
        print(f"uvlab image: {plan.describe()}")
    with cluster_client(args.scheduler, workers=args.workers, memory_bytes=memory) as client:
        print(f"uvlab image: {describe(client)}")
        res = image_ms(
            client, source, spec, wt, chunk_rows=rows, algorithm=args.algorithm, params=params,
            device=args.device,
        )  # fmt: skip
    from pathlib import Path

    import numpy as np

    prefix = Path(args.out)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    ra, dec = np.degrees(meta.ra0_rad) % 360.0, np.degrees(meta.dec0_rad)
    history = fits_history({
        "command": "image", "ms": meta.path, "field": f"{meta.field} {meta.field_name}",
        "spw": meta.spw, "column": meta.column, "stokes": meta.stokes,
        "channels": f"{args.channels or 'all'} ({meta.nchan} used)", "npix": spec.npix,
        "cell_arcsec": f"{spec.cell_arcsec:.6g}",
        "weighting": f"{wt.scheme} robust={wt.robust} taper_arcsec={wt.taper_arcsec}",
        "algorithm": args.algorithm, "params": params, "device": res.device,
        "nvis": res.nvis, "sum_weights": f"{res.sum_weights:.6g}",
        "chunks": f"{res.chunks} of {rows} rows",
    })  # fmt: skip
    common = dict(
        freq_hz=float(meta.freq_hz.mean()), stokes=meta.stokes, history=history,
        bandwidth_hz=float(meta.chan_width_hz * meta.nchan),
        observation=observation_cards(WorkCache().ms_info(args.ms), meta),
    )  # fmt: skip
    beam = psf_beam(res.psf, spec)
    t0 = time.perf_counter()
    with output_set(overwrite=args.force, stale=others):  # all renamed at once, at the end
        files = [
            write_image_fits(f"{prefix}-dirty.fits", res.dirty, spec, ra, dec, **common,
                             beam=beam),
            write_image_fits(f"{prefix}-psf.fits", res.psf, spec, ra, dec, **common, beam=beam),
        ]  # fmt: skip
        timing = {**res.timing, "write": time.perf_counter() - t0}
        if not args.no_png:
            files.append(preview(res, spec, meta, f"{prefix}.png"))
        files.append(write_timing(f"{prefix}-timing.json", timing, res, spec, passes=2))
    print(
        f'{args.algorithm} {spec.npix}² × {spec.cell_arcsec:.3g}", {res.nvis} visibilities in '
        f"{res.chunks} chunks, Stokes {meta.stokes}; peak {res.dirty.max():.4g} Jy/beam"
    )
    for f in files:
        print(f"wrote {f}")
    return 0
