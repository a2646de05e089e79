"""``uvlab compare``: gridding algorithms against the exact DFT, on an MS or a simulation.

Writes into DIR, per algorithm: ``<algorithm>-dirty.fits``,
``<algorithm>-error.fits`` (``|I − I_dft| / peak(I_dft)``),
``<algorithm>-analytic.fits`` (the data-independent aliasing map E(l, m) of
DESIGN §3, supremum over record offsets, :func:`uvlab.gpu.aliasing.analytic_map`)
and ``<algorithm>-bound.fits`` (``(Σ|wV|/Σw)·E / peak(I_dft)``, the units of
the error map, which it bounds pixel by pixel); and ``dft-dirty.fits`` (the
reference), ``metrics.json`` (with ``bound_max`` and ``error_over_bound_max``
per algorithm) and ``report.png``. When the reference DFT is subsampled
(every k-th pixel, see :mod:`uvlab.app.lab.compare`) the error maps and the
reference are written on that coarser grid (cell × k, same centre) and
``metrics.json`` says ``"reference": "dft subsampled every k pixels"``. The
analytic and bound maps share the error map's pixels unless their cost
(:data:`uvlab.app.lab.compare.BOUND_BUDGET`) asks for fewer: then they are on
every ``bound_step``-th pixel, and ``error_over_bound_max`` is taken there.
``ducc`` has an analytic map (of uvlab's exact ES chain) but no bound: ducc0
grids with its own kernel.

These files are one output set (:mod:`uvlab.app.outputs.output_set`): an existing
one, or a symbolic link at any of their names, is refused before anything is
read or computed (``--force`` replaces them), and the new files are renamed
into place together (maps of the set this run does not write are removed).

The data come through the lab (:mod:`uvlab.app.lab.sources`: a synthetic
observation is sized from its options before it is simulated and refused,
exit 1 and one line naming the sizes, when the memory cannot hold its
visibilities and their images), and the comparison is the lab's one loop
(:func:`uvlab.app.lab.compare.iter_comparison`, which the window's compare
mode drains too). With ``--workers``/``--scheduler``/``--abs-mem``/``--chunk-rows`` an MS
is compared in row chunks over a Dask cluster instead
(:mod:`uvlab.app.commands.compare_scaled`), to the same files.
"""

from __future__ import annotations

from uvlab.app.commands.compare_files import finish, one_spw
from uvlab.app.commands.ms_args import add_imaging_args, add_selection_args
from uvlab.app.commands.simulate import add_observation_args
from uvlab.app.commands.validate import number
from uvlab.app.lab.imaging import COMPARE_REPEATS, MAX_REPEATS
from uvlab.gpu.gridders.registry import ALGORITHMS as GRIDDERS
from uvlab.gpu.gridders.registry import COMPARED as DEFAULT_ALGORITHMS


def register(sub) -> None:
    p = sub.add_parser(
        "compare",
        help="compare gridding algorithms against the exact DFT (FITS, metrics, report)",
        description="Image one data set (a MeasurementSet, or a synthetic observation "
        "described like 'uvlab simulate') with several gridding algorithms and measure "
        "each against the exact DFT of the same weighted data: error maps, RMS over the "
        "central half and the full image, maximum error, stage timings and gridding rate.",
    )
    p.add_argument("--ms", metavar="MS", help="the MeasurementSet (else give --array ...)")
    add_selection_args(p)
    add_observation_args(p, required=False)
    add_imaging_args(p)
    p.add_argument(
        "--algorithms",
        default=",".join(DEFAULT_ALGORITHMS),
        help=f"comma-separated, from {', '.join(GRIDDERS)} "
        f"(default {','.join(DEFAULT_ALGORITHMS)})",
    )
    p.add_argument(
        "--dft-step",
        type=int,
        metavar="K",
        help="evaluate the DFT on every K-th pixel (K divides npix/2; default: "
        "1 unless too slow for the device)",
    )
    p.add_argument(
        "--repeats",
        type=number(1, MAX_REPEATS, integer=True),
        default=COMPARE_REPEATS,
        metavar="R",
        help=f"time each algorithm R times: metrics.json keeps every run's total and the "
        f"median run's stages (default {COMPARE_REPEATS})",
    )
    from uvlab.app.commands.compare_scaled import add_scale_args

    add_scale_args(p)
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace the files of an earlier comparison in DIR (else they are refused)",
    )
    p.set_defaults(func=run, parser=p)


def output_names(out, algorithms) -> list:
    """Every file a comparison of ``algorithms`` may write into ``out``."""
    from pathlib import Path

    out = Path(out)
    names = ["dft-dirty.fits", "metrics.json", "report.png"]
    for a in algorithms:
        names += [f"{a}-{kind}.fits" for kind in ("dirty", "error", "analytic", "bound")]
    return [out / n for n in names]


def _usage(args, message: str):
    args.parser.error(message)  # exits with status 2


def _algorithms(args) -> list[str]:
    names = [a.strip() for a in args.algorithms.split(",") if a.strip()]
    bad = [a for a in names if a not in GRIDDERS]
    if bad or not names:
        _usage(
            args,
            f"--algorithms: unknown {', '.join(bad) or 'empty list'}; "
            f"choose from {', '.join(GRIDDERS)} (dft is always the reference)",
        )
    return list(dict.fromkeys(names))


def _synthetic(args, algorithms=()):
    """(uvw, freq, vis, weight, flag, ra, dec, dish, label) of a simulated Stokes-I data set.

    Simulated and predicted by the lab's synthetic source
    (:func:`uvlab.app.lab.synthetic_source.iter_synthetic`), which sizes the observation
    and its images first and refuses (one line) what the memory cannot hold.
    """
    import numpy as np

    from uvlab.app.commands.simulate import load_sky_for, observation_spec
    from uvlab.app.lab.imaging import DEFAULT_NPIX, ImagingOptions
    from uvlab.app.lab.jobs import JobRequest
    from uvlab.app.lab.sources import read_samples

    spec = observation_spec(args)
    sky = load_sky_for(args, spec)
    npix = args.npix or DEFAULT_NPIX  # the images are sized again once the geometry is known
    request = JobRequest(
        "synthetic",
        ImagingOptions(npix=npix, cell_arcsec=args.cell_arcsec),
        args.device,
        spec,
        sky,
        smearing=not args.no_smearing,
        task="compare",
        preview=False,
        compare=tuple(ImagingOptions(npix=npix, algorithm=a) for a in algorithms),
        threads=0,
    )
    samples = read_samples(request)
    obs = samples.raw
    nchan = obs.freq_hz.size
    vis = samples.vis
    weight = 1.0
    if args.noise_jy > 0:
        rng = np.random.default_rng(args.seed)
        # Stokes I = (XX + YY)/2: σ_I = σ/√2 per part, weight 2/σ².
        sigma_i = args.noise_jy / np.sqrt(2.0)
        vis = vis + sigma_i * (rng.standard_normal(vis.shape) + 1j * rng.standard_normal(vis.shape))
        weight = 1.0 / sigma_i**2
    flag = np.repeat(obs.flag.reshape(-1, 1), nchan, axis=1)
    dish = float(np.median(obs.layout.dish_diameter))
    label = (
        f"{obs.layout.name}, sky {args.sky}, {obs.ntime} times x {obs.nbl} baselines x {nchan} ch"
    )
    return (
        samples.uvw,
        obs.freq_hz,
        vis,
        weight,
        flag,
        spec.ra_deg,
        spec.dec_deg,
        dish,
        label,
    )


def _from_ms(args, algorithms):
    import numpy as np

    from uvlab.app.commands.ms_imaging import read_selected

    one_spw(args)
    vd, dish, _ = read_selected(args, algorithms=algorithms)
    vis = vd.vis.astype(np.complex64 if args.precision == "single" else np.complex128)
    label = f"{vd.path}, field {vd.field_name}, spw {vd.spw}, {vd.column}, Stokes {vd.stokes}"
    return (
        vd.uvw,
        vd.freq_hz,
        vis,
        vd.weight,
        vd.flag,
        float(np.degrees(vd.ra0_rad)),
        float(np.degrees(vd.dec0_rad)),
        dish,
        label,
    )


def run(args) -> int:
    import numpy as np

    from uvlab.app.commands.ms_args import w_correction_complaint
    from uvlab.app.commands.ms_imaging import choose_geometry, grid_params
    from uvlab.app.commands.weighting_args import weighting
    from uvlab.app.lab.compare import DFT_CHUNK_BYTES, compare_algorithms
    from uvlab.app.outputs.output_set import check_outputs
    from uvlab.app.runtime.memory import MemoryEstimate, check_memory, imaging_estimate
    from uvlab.app.runtime.progress import progress_bar

    algorithms = _algorithms(args)
    complaint = w_correction_complaint(args, algorithms)
    if complaint:
        _usage(args, complaint)
    synthetic = [o for o in ("array", "sky", "ra", "dec") if getattr(args, o) is not None]
    if args.ms and synthetic:
        _usage(args, f"give --ms or a synthetic observation, not both (--{synthetic[0]})")
    if not args.ms and len(synthetic) < 4:
        _usage(args, "give --ms MS, or --array, --ra, --dec and --sky for a synthetic observation")
    if args.npix is not None and (args.npix < 2 or args.npix % 2):
        _usage(args, f"--npix must be an even number ≥ 2, got {args.npix}")
    from uvlab.app.commands.validate import check_image_side

    check_image_side(args.parser, args.npix, args.support, "--npix")  # exit 2
    params, wt = grid_params(args), weighting(args)
    outputs = output_names(args.out, algorithms)
    check_outputs(outputs, force=args.force)  # exit 2, before anything is read
    from uvlab.app.commands import compare_scaled

    if compare_scaled.wanted(args):  # in row chunks over a Dask cluster
        compare_scaled.check(args)
        kept = 8.0 * args.npix**2 * (4 * len(algorithms) + 1)  # images, maps, reference
        check_memory(MemoryEstimate({"images and maps kept": kept}),
                     f"{len(algorithms)} algorithms' {args.npix}² images")  # fmt: skip
        return compare_scaled.run(args, algorithms, params, wt, outputs)
    if args.npix:
        check_memory(
            max(
                (imaging_estimate(args.npix, a, params) for a in algorithms), key=lambda e: e.total
            ),
            f"a {args.npix}² image",
        )
    data = _from_ms(args, algorithms) if args.ms else _synthetic(args, algorithms)
    uvw, freq, vis, weight, flag, ra, dec, dish, label = data
    spec, rule = choose_geometry(uvw, freq, flag, dish, args.npix, args.cell_arcsec)
    nvis = int(np.count_nonzero(~flag))
    need = max(
        (imaging_estimate(spec.npix, a, params, nvis=nvis) for a in algorithms),
        key=lambda e: e.total,
    ) + MemoryEstimate({"dft reference": DFT_CHUNK_BYTES})
    check_memory(need, f"comparing on a {spec.npix}² image")
    with progress_bar("compare") as bar:
        cmp = compare_algorithms(
            uvw,
            freq,
            vis,
            weight,
            spec,
            algorithms=algorithms,
            flag=flag,
            weighting=wt,
            params=params,
            device=args.device,
            step=args.dft_step,
            progress=bar,
            bound=True,
            repeats=args.repeats,
        )
    return finish(args, cmp, outputs, ra, dec, freq, params, label, rule)
