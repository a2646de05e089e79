"""``uvlab simulate``: simulate an observation of a sky model into a new MeasurementSet.

The observation options (array, phase centre, time range, correlator) are
shared with ``uvlab compare``'s synthetic mode through
:func:`add_observation_args` and :func:`observation_spec`. Counts must be whole
numbers ≥ 1 (``1e6`` is read as 1000000), durations and frequencies finite and
> 0: anything else is a usage error (exit 2). A simulation the memory or the
disk cannot hold is refused before anything is computed or written (exit 1,
:func:`uvlab.app.ms.simulation_size.check_simulation`).
"""

from __future__ import annotations

import argparse
import contextlib
import shlex

from uvlab.app.commands.validate import DEC_DEG, RA_DEG, iso_date, number, positive
from uvlab.app.skymodel.limits import MAX_NOISE_JY

#: argparse types of the observation options (:mod:`uvlab.app.commands.validate`'s).
finite = number()
count = number(1, integer=True)


def add_observation_args(p: argparse.ArgumentParser, *, required: bool = True) -> None:
    """Options of a synthetic observation and its sky (``required``: mark the essentials)."""
    from uvlab.app.commands.sky_strict import add_strict_arg

    g = p.add_argument_group("observation")
    g.add_argument(
        "--array",
        required=required,
        metavar="NAME|FILE",
        help="built-in array layout (see 'uvlab arrays') or a layout file",
    )
    g.add_argument(
        "--ra",
        type=RA_DEG,
        required=required,
        metavar="DEG",
        help="phase-centre right ascension, degrees (J2000)",
    )
    g.add_argument(
        "--dec",
        type=DEC_DEG,
        required=required,
        metavar="DEG",
        help="phase-centre declination, degrees (J2000)",
    )
    g.add_argument(
        "--ha-start",
        type=finite,
        metavar="H",
        help="start hour angle, hours (default -4, with --ha-stop 4)",
    )
    g.add_argument("--ha-stop", type=finite, metavar="H", help="stop hour angle, hours")
    g.add_argument(
        "--date",
        type=iso_date("date_iso", date_only=True),
        metavar="YYYY-MM-DD",
        help="date of the transit used with hour angles (default 2025-03-20)",
    )
    g.add_argument(
        "--start",
        type=iso_date("start_iso", date_only=False),
        metavar="ISO",
        help="start time (UTC, ISO 8601) instead of hour angles",
    )
    g.add_argument("--duration-h", type=positive, metavar="D", help="duration with --start, hours")
    g.add_argument(
        "--int-s",
        type=positive,
        default=8.0,
        metavar="S",
        help="integration time, seconds (default 8)",
    )
    g.add_argument(
        "--freq-hz",
        type=positive,
        default=1.4e9,
        metavar="F",
        help="centre of the first channel, Hz (default 1.4e9)",
    )
    g.add_argument(
        "--chan-width-hz",
        type=positive,
        default=1.0e6,
        metavar="W",
        help="channel width, Hz (default 1e6)",
    )
    g.add_argument("--nchan", type=count, default=1, metavar="N", help="channels (default 1)")
    g.add_argument(
        "--elevation-limit-deg",
        type=finite,
        default=15.0,
        metavar="DEG",
        help="flag rows where an antenna sees the field lower (default 15)",
    )
    g.add_argument(
        "--sky",
        required=required,
        metavar="NAME|FILE",
        help="sky model: a file (uvlab v1, WSClean or a CASA .cl table), a demo or a bundled "
        "sky name; or an image sky (a .fits image, a picture file or picture:NAME)",
    )
    add_strict_arg(g)
    from uvlab.app.commands.image_sky_args import add_image_sky_args

    add_image_sky_args(g, finite)
    g.add_argument(
        "--no-smearing", action="store_true", help="predict without time and bandwidth smearing"
    )
    g.add_argument(
        "--noise-jy",
        type=number(0.0, MAX_NOISE_JY),
        default=0.0,
        metavar="J",
        help="thermal noise σ per real/imaginary part of each correlation, Jy",
    )
    g.add_argument("--seed", type=int, help="random seed for the noise")


def observation_spec(args):
    """The :class:`~uvlab.app.observing.observation.ObservationSpec` the options describe."""
    from uvlab.app.observing.observation import ObservationSpec

    return ObservationSpec(
        layout=args.array,
        ra_deg=args.ra,
        dec_deg=args.dec,
        start_iso=args.start,
        duration_h=args.duration_h,
        ha_start_h=args.ha_start,
        ha_stop_h=args.ha_stop,
        date_iso=args.date,
        int_s=args.int_s,
        freq_hz=args.freq_hz,
        chan_width_hz=args.chan_width_hz,
        nchan=args.nchan,
        elevation_limit_deg=args.elevation_limit_deg,
    )


def load_sky_for(args, spec):
    """The sky model of ``--sky``, demo skies centred on the phase centre (``--strict`` applied)."""
    from uvlab.app.commands.sky_strict import sky_read_options
    from uvlab.app.skymodel import load_sky

    return load_sky(
        args.sky, ra0_deg=spec.ra_deg, dec0_deg=spec.dec_deg, freq_hz=spec.freq_hz,
        **sky_read_options(args),
    )  # fmt: skip


def describe_command(name: str, args) -> str:
    """The options in effect, as a ``uvlab NAME --opt=value ...`` line (for history records)."""
    skip = {"func", "command", "debug"}
    opts = []
    for key, value in sorted(vars(args).items()):
        if key in skip or value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        opts.append(flag if value is True else f"{flag}={value}")
    return shlex.join(["uvlab", name, *opts])


def register(sub) -> None:
    p = sub.add_parser(
        "simulate",
        help="simulate an observation of a sky model into a new MeasurementSet",
        description="Compute the uvw of an array observing a phase centre, predict the "
        "visibilities of a sky model in the chosen feed basis (full polarisation), add "
        "thermal noise if asked, and write a complete MeasurementSet. The MS is built "
        "beside OUT and renamed into place when complete.",
    )
    add_observation_args(p)
    from uvlab.app.commands.jones_args import add_jones_args

    add_jones_args(p)
    p.add_argument(
        "--feeds",
        choices=("linear", "circular"),
        default="linear",
        help="feed basis: XX XY YX YY or RR RL LR LL (default linear)",
    )
    p.add_argument("--device", choices=("auto", "cpu", "gpu"), default="auto")
    p.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")
    p.add_argument("--out", required=True, metavar="OUT.ms", help="MeasurementSet to create")
    from uvlab.app.commands.scale_args import add_cluster_args

    add_cluster_args(
        p,
        "predict the row chunks on a Dask cluster; this process adds the noise and writes them, "
        "in order, into the build folder (docs/scaling.md)",
    )
    p.set_defaults(func=run)


def run(args) -> int:
    from pathlib import Path

    from uvlab.app.commands.jones_args import jones_options, noise_sigma
    from uvlab.app.ms.simulate import simulate_ms
    from uvlab.app.ms.simulation_size import check_simulation, predict_path
    from uvlab.app.runtime.progress import progress_bar

    out = Path(args.out)
    if out.exists() and not args.overwrite:
        raise FileExistsError(f"{out}: already exists; pass --overwrite to replace it")
    spec = observation_spec(args)
    jones = jones_options(args)
    noise_jy = noise_sigma(args, spec.chan_width_hz, spec.int_s)
    if jones.has_beam:  # a beam cube is read and checked before anything is simulated
        import numpy as np

        from uvlab.app.instrument.beam_cube import check_cube_frequencies

        freq = spec.freq_hz + spec.chan_width_hz * np.arange(spec.nchan)
        check_cube_frequencies(jones.load_cube(), freq)
    from uvlab.app.commands.image_sky_args import load_skies

    sky, image_sky = load_skies(args, lambda: load_sky_for(args, spec))
    # memory and disk, before the progress bar opens (simulate_ms checks again)
    check_simulation(spec, out, nsrc=len(sky), predict=predict_path(sky, not args.no_smearing))
    command = describe_command("simulate", args)
    with _runner(args) as runner, progress_bar("simulate") as bar:
        res = simulate_ms(
            spec,
            sky,
            out,
            feeds=args.feeds,
            smearing=not args.no_smearing,
            noise_jy=noise_jy,
            seed=args.seed,
            device=args.device,
            overwrite=args.overwrite,
            history=command,
            progress=bar,
            image_sky=image_sky,
            jones=jones,
            runner=runner,
            chunk_rows=args.chunk_rows,
        )
    print(
        f"wrote {res.path}: {res.ntime} integration{'s' if res.ntime != 1 else ''} × "
        f"{res.nbl} baselines × {res.nchan} "
        f"channel{'s' if res.nchan != 1 else ''} ({res.nrows} rows, "
        f"{100 * res.flagged_fraction:.1f}% flagged), {res.nsources} source"
        f"{'s' if res.nsources != 1 else ''}"
        + (f" and the image {image_sky.name!r}" if image_sky is not None else "")
        + f", {args.feeds} feeds, device {res.device}"
    )
    return 0


@contextlib.contextmanager
def _runner(args):
    """The ``runner`` of ``simulate_ms``: None in this process; with any cluster option, a
    Dask cluster's (:mod:`uvlab.app.scale.ms_simulate`), started or joined here."""
    from uvlab.app.commands.scale_args import local_gpus, memory_bytes, wanted

    if not wanted(args):
        yield None
        return
    import logging

    from uvlab.app.scale.cluster import cluster_client, describe
    from uvlab.app.scale.ms_simulate import cluster_runner

    with cluster_client(args.scheduler, workers=args.workers, memory_bytes=memory_bytes(args),
                        gpus=local_gpus(args)) as client:  # fmt: skip
        logging.getLogger(__name__).info("%s", describe(client))
        yield cluster_runner(client)
