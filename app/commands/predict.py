"""``uvlab predict``: predict a sky model into a column of an existing MeasurementSet."""

from __future__ import annotations

import contextlib


def register(sub) -> None:
    p = sub.add_parser(
        "predict",
        help="predict a sky model into a column (MODEL_DATA) of a MeasurementSet",
        description="Read UVW, fields, spectral windows and correlations from a "
        "MeasurementSet, predict the visibilities of a sky model for every row and write "
        "them into a column (created if absent). The write is all or nothing, even when "
        "killed: the column is written under a temporary name and renamed when complete "
        "(docs/data-safety.md); on an error, Ctrl-C or SIGTERM the MeasurementSet is left "
        "exactly as it was, and after a kill the next uvlab run (or `uvlab repair`) "
        "finishes or rolls back the write. Only visibility columns can be written (DATA, "
        "CORRECTED_DATA, MODEL_DATA or a new name); DATA only with --column DATA "
        "--overwrite. The free disk space is checked first.",
    )
    p.add_argument("--ms", required=True, metavar="MS", help="the MeasurementSet folder")
    p.add_argument(
        "--sky",
        required=True,
        metavar="NAME|FILE",
        help="sky model: a file (uvlab v1, WSClean or a CASA .cl table), a demo or a bundled "
        "sky name; or an image sky (a .fits image, a picture file or picture:NAME), predicted "
        "by degridding",
    )
    from uvlab.app.commands.sky_strict import add_strict_arg

    add_strict_arg(p)
    p.add_argument("--column", default="MODEL_DATA", help="column to write (default MODEL_DATA)")
    p.add_argument(
        "--overwrite", action="store_true", help="replace the column if it exists (needed for DATA)"
    )
    p.add_argument(
        "--feeds",
        choices=("auto", "linear", "circular"),
        default="auto",
        help="feed basis; auto follows the MS's correlation types (default)",
    )
    p.add_argument(
        "--no-smearing", action="store_true", help="predict without time and bandwidth smearing"
    )
    p.add_argument(
        "--precision",
        choices=("single", "double"),
        default="double",
        help="predict precision (default double)",
    )
    p.add_argument("--device", choices=("auto", "cpu", "gpu"), default="auto")
    from uvlab.app.commands.image_sky_args import add_image_sky_args
    from uvlab.app.commands.jones_args import add_jones_args
    from uvlab.app.commands.simulate import finite

    add_image_sky_args(p, finite)

    add_jones_args(p, noise=True)
    p.add_argument("--seed", type=int, default=1, help="random seed of the noise (default 1)")
    from uvlab.app.commands.scale_args import add_cluster_args

    add_cluster_args(
        p,
        "predict the row chunks on a Dask cluster; this process writes them, in order, through "
        "the same all-or-nothing write (docs/scaling.md)",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    from uvlab.app.ms.predict_ms import write_locked

    with write_locked(args.ms):  # before the MS is read: no other writer, no dead journal
        return _run(args)


def _run(args) -> int:
    import numpy as np

    from uvlab.app.commands.jones_args import jones_options
    from uvlab.app.commands.sky_strict import sky_read_options
    from uvlab.app.ms.metadata import read_fields
    from uvlab.app.ms.predict_ms import predict_to_ms
    from uvlab.app.ms.tables import MSTables
    from uvlab.app.runtime.progress import progress_bar
    from uvlab.app.skymodel import load_sky

    with MSTables(args.ms) as ms:
        fields = read_fields(ms)
    field = fields[0] if fields else None
    ra = None if field is None else float(np.degrees(field.ra_rad)) % 360.0
    dec = None if field is None else float(np.degrees(field.dec_rad))
    from uvlab.app.commands.image_sky_args import load_skies

    sky, image_sky = load_skies(
        args, lambda: load_sky(args.sky, ra0_deg=ra, dec0_deg=dec, **sky_read_options(args))
    )
    jones = jones_options(args)
    if args.sefd_jy is not None and args.column.strip().upper() == "MODEL_DATA":
        from uvlab.app.runtime.errors import UsageError

        raise UsageError(
            "--sefd-jy: noise does not belong in MODEL_DATA; write it to a new column "
            "(--column NAME) or to DATA (--column DATA --overwrite)"
        )
    dtype = np.float32 if args.precision == "single" else np.float64
    with _runner(args) as (runner, chunk_bytes), progress_bar("predict") as bar:
        res = predict_to_ms(
            args.ms,
            sky,
            column=args.column,
            overwrite=args.overwrite,
            feeds=args.feeds,
            smearing=not args.no_smearing,
            device=args.device,
            dtype=dtype,
            progress=bar,
            jones=jones,
            image_sky=image_sky,
            sefd_jy=args.sefd_jy,
            seed=args.seed,
            chunk_rows=getattr(args, "chunk_rows", None),
            chunk_bytes=chunk_bytes,
            runner=runner,
        )
    if res.nonfinite_rows:
        from uvlab.app.commands.ms_imaging import warn

        warn(args, f"{res.path}: {res.nonfinite_rows} row(s) have non-finite UVW; "
             f"their {res.column} is 0")  # fmt: skip
    if args.sefd_jy is not None:
        print(
            f"added thermal noise for SEFD {args.sefd_jy:g} Jy: σ = {res.noise_sigma_jy:.4g} Jy "
            "per real and imaginary part (median over rows and channels); SIGMA and WEIGHT "
            "are left as they were"
        )
    corrs = "; ".join(sorted(set(res.correlations.values())))
    verb = "replaced" if res.replaced else "wrote"
    print(
        f"{verb} {res.column} in {res.path}: {res.nrows} rows, {len(sky)} source"
        f"{'s' if len(sky) != 1 else ''}"
        + (f" and the image {image_sky.name!r}" if image_sky is not None else "")
        + f", correlations {corrs}, device {res.device}, "
        f"{res.seconds:.2f} s"
    )
    return 0


@contextlib.contextmanager
def _runner(args):
    """(runner, chunk bytes) of ``predict_to_ms``: (None, None) in this process; with any
    cluster option, a Dask cluster's (:mod:`uvlab.app.scale.ms_predict`). The cluster is
    started or joined when the write begins, after every check of the MS, the sky and the
    disk (a refusal starts none), and closed after the write. The chunks are the
    one-process predict's unless a worker's share of the memory (``--abs-mem``, or what is
    free for a local cluster) cannot hold them."""
    from uvlab.app.commands.scale_args import local_gpus, memory_bytes, wanted

    if not wanted(args):
        yield None, None
        return
    import logging
    import os

    from uvlab.app.scale.cluster import (
        SCHEDULER_ENV,
        cluster_client,
        default_worker_count,
        describe,
    )
    from uvlab.app.scale.ms_predict import chunk_budget, cluster_runner

    memory, gpus = memory_bytes(args), local_gpus(args)
    joined = bool(args.scheduler or os.environ.get(SCHEDULER_ENV))
    budget = None
    if not joined:  # refused before any work
        budget = chunk_budget(memory, args.workers or default_worker_count(gpus))

    with contextlib.ExitStack() as stack:

        def run(chunks, tab, name, progress, cancelled) -> None:
            client = stack.enter_context(
                cluster_client(args.scheduler, workers=args.workers, memory_bytes=memory,
                               gpus=gpus)
            )  # fmt: skip
            logging.getLogger(__name__).info("%s", describe(client))
            if joined:  # its workers keep their own limits: only --abs-mem sizes the chunks
                cap = None if args.abs_mem is None else int(args.abs_mem * 2**30)
                nworkers = len(client.scheduler_info().get("workers", {}))
                chunks.chunk_bytes = chunk_budget(cap, nworkers)
            cluster_runner(client)(chunks, tab, name, progress, cancelled)

        yield run, budget
