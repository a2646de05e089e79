"""``uvlab sky``: list demo skies, show a sky as a table, convert to uvlab format.

- ``uvlab sky list``: the demo skies and the bundled example skies;
- ``uvlab sky show NAME_OR_FILE [--ra DEG --dec DEG]``: one row per component;
- ``uvlab sky convert IN OUT [--format uvlab|wsclean|casa-cl]``: WSClean, uvlab, a
  CASA component list (or a demo) → uvlab v1 text, a WSClean component list or a
  CASA component list table (:mod:`uvlab.app.ms.casa_cl_write`);
  ``--strict`` refuses what would be approximated (``show`` and ``render`` too);
- ``uvlab sky render IN OUT.fits --npix N --cell-arcsec C --ra DEG --dec DEG``: an
  image sky (a picture, a FITS image or a drawn demo picture) on a model grid, as
  a FITS image in Jy/pixel (:mod:`uvlab.app.skymodel.image_sky`).

Data errors are raised as ``SkyModelError``; ``uvlab.app.cli`` prints them as
``uvlab sky: error: <message>`` and exits 1.
"""

from __future__ import annotations

import argparse
import math
import sys


def register(subparsers) -> None:
    """Add the ``sky`` subcommand (with ``list``, ``show``, ``convert``)."""
    from uvlab.app.commands.simulate import count
    from uvlab.app.commands.sky_strict import add_strict_arg

    parser = subparsers.add_parser(
        "sky", help="list, show and convert sky models", description=__doc__.splitlines()[0]
    )
    actions = parser.add_subparsers(dest="sky_command", metavar="ACTION", required=True)

    p = actions.add_parser("list", help="list the demo skies and bundled example skies")
    p.set_defaults(func=run_list)

    def demo_options(p: argparse.ArgumentParser) -> None:
        g = p.add_argument_group("demo skies")
        g.add_argument("--ra", type=float, metavar="DEG", help="phase centre RA (default 0)")
        g.add_argument("--dec", type=float, metavar="DEG", help="phase centre Dec (default -30)")
        g.add_argument(
            "--freq", type=float, default=1.4e9, metavar="HZ", help="reference frequency"
        )
        g.add_argument("--fov", type=float, default=1.0, metavar="DEG", help="field of view")
        g.add_argument("--n", type=count, default=20, help="number of sources for 'random'")
        g.add_argument("--seed", type=int, default=0, help="seed for 'random'")

    p = actions.add_parser("show", help="print the components of a sky as a table")
    p.add_argument("sky", metavar="NAME_OR_FILE", help="a sky file, a demo name or a bundled name")
    add_strict_arg(p)
    demo_options(p)
    p.set_defaults(func=run_show)

    p = actions.add_parser(
        "convert", help="write a sky in uvlab, WSClean or CASA component-list format"
    )
    p.add_argument("input", metavar="IN", help="a sky file, a demo name or a bundled name")
    p.add_argument("output", metavar="OUT", help="sky file to write")
    p.add_argument(
        "--format",
        choices=("uvlab", "wsclean", "casa-cl"),
        default="uvlab",
        help="uvlab v1 text (default), a WSClean component list or a CASA component list "
        "table (OUT.cl, a folder)",
    )
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    add_strict_arg(p)
    demo_options(p)
    p.set_defaults(func=run_convert)

    p = actions.add_parser(
        "render",
        help="an image sky (picture, FITS or demo picture) on a model grid, as FITS (Jy/pixel)",
    )
    p.add_argument(
        "input", metavar="IN", help="a .fits image, a picture (.png, .jpg, …) or a demo picture "
        "(radio-galaxy, spiral, ring)",
    )  # fmt: skip
    p.add_argument("output", metavar="OUT", help="FITS file to write")
    p.add_argument("--npix", type=count, default=256, help="model grid side (default 256)")
    p.add_argument("--cell-arcsec", type=float, default=1.0, help="model pixel (default 1″)")
    p.add_argument("--ra", type=float, default=0.0, metavar="DEG", help="phase centre RA")
    p.add_argument("--dec", type=float, default=-30.0, metavar="DEG", help="phase centre Dec")
    p.add_argument(
        "--width-arcmin", type=float, help="angular width of a picture (demo pictures: 4′)"
    )
    p.add_argument("--flux-jy", type=float, default=1.0, help="total flux of a picture (1 Jy)")
    p.add_argument("--force", action="store_true", help="overwrite OUT if it exists")
    add_strict_arg(p)
    p.set_defaults(func=run_render)


def _load(source: str, args):
    from uvlab.app.commands.sky_strict import sky_read_options
    from uvlab.app.skymodel import load_sky

    return load_sky(
        source,
        **sky_read_options(args),
        ra0_deg=args.ra,
        dec0_deg=args.dec,
        freq_hz=args.freq,
        fov_deg=args.fov,
        n=args.n,
        seed=args.seed,
    )


def run_list(args, out=None) -> int:
    """Print demo names with descriptions, then bundled example files."""
    from uvlab.app.skymodel import DEMO_SKIES, bundled_skies

    out = out or sys.stdout
    print("demo skies (uvlab sky show NAME --ra DEG --dec DEG):", file=out)
    width = max(map(len, DEMO_SKIES))
    for name, text in DEMO_SKIES.items():
        print(f"  {name:<{width}}  {text}", file=out)
    bundled = bundled_skies()
    if bundled:
        print("bundled example skies:", file=out)
        for name, path in bundled.items():
            print(f"  {name}  ({path.name})", file=out)
    return 0


def sky_table(model, ra0_deg: float | None = None, dec0_deg: float | None = None) -> list[str]:
    """Rows of text describing ``model``; l, m columns when a centre is given."""
    from uvlab.app.skymodel.angles import format_dec, format_ra

    head = ["#", "name", "type", "RA", "Dec", "I", "Q", "U", "V", "alpha", "ref MHz"]
    head += ['maj"', 'min"', "PA"]
    lm = None
    if ra0_deg is not None and dec0_deg is not None and len(model):
        lm = model.to_source_arrays(math.radians(ra0_deg), math.radians(dec0_deg)).lmn
        head += ["l'", "m'"]
    rows = [head]
    for k, c in enumerate(model):
        row = [str(k), c.name, c.kind, format_ra(c.ra_deg), format_dec(c.dec_deg)]
        row += [f"{s:.4g}" for s in c.stokes]
        row += [f"{c.spectral_index:.3g}", f"{c.ref_freq_hz / 1e6:.6g}"]
        row += [f"{c.major_arcsec:.4g}", f"{c.minor_arcsec:.4g}", f"{c.pa_deg:.4g}"]
        if lm is not None:
            row += [f"{math.degrees(lm[k, 0]) * 60:.4f}", f"{math.degrees(lm[k, 1]) * 60:.4f}"]
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    left = {1, 2}  # name and type read better left-aligned
    return [
        "  ".join(
            c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))
        ).rstrip()
        for r in rows
    ]


def run_show(args, out=None) -> int:
    """Print a sky as a table (l, m in arcmin when a phase centre is known)."""
    from uvlab.app.skymodel import DEFAULT_CENTRE_DEG, DEMO_SKIES

    out = out or sys.stdout
    model = _load(args.sky, args)
    ra0, dec0 = args.ra, args.dec
    if args.sky.strip().lower() in DEMO_SKIES and model.name.startswith("demo:"):
        ra0 = DEFAULT_CENTRE_DEG[0] if ra0 is None else ra0
        dec0 = DEFAULT_CENTRE_DEG[1] if dec0 is None else dec0
    label = model.name or args.sky
    count = f"{len(model)} component{'' if len(model) == 1 else 's'}"
    print(f"sky {label!r}: {count}, total I {model.total_flux():.6g} Jy at ref", file=out)
    if ra0 is not None and dec0 is not None:
        print(f"phase centre: RA {ra0} deg, Dec {dec0} deg (l, m in arcmin)", file=out)
    for line in sky_table(model, ra0, dec0):
        print(line, file=out)
    return 0


def run_convert(args, out=None) -> int:
    """Read IN (any supported form) and write OUT in the ``--format`` asked for."""
    from pathlib import Path

    from uvlab.app.skymodel import SkyModelError, write_sky

    out = out or sys.stdout
    target = Path(args.output)
    if target.exists() and not args.force:
        raise SkyModelError("already exists (use --force to overwrite)", target)
    model = _load(args.input, args)
    if getattr(args, "format", "uvlab") == "wsclean":
        from uvlab.app.skymodel.wsclean import write_wsclean

        write_wsclean(model, target, overwrite=args.force)  # atomic as well
    elif getattr(args, "format", "uvlab") == "casa-cl":
        from uvlab.app.ms.casa_cl_write import write_casa_cl

        write_casa_cl(model, target, overwrite=args.force)  # built beside OUT, then renamed
    else:
        write_sky(model, target, overwrite=args.force)  # atomic: OUT stays intact on failure
    print(f"wrote {len(model)} component(s) to {target} ({args.format} format)", file=out)
    return 0


def run_render(args, out=None) -> int:
    """Sample an image sky on a model grid about (--ra, --dec) and write it as FITS."""
    from pathlib import Path

    from uvlab.app.outputs.fits_io import write_image_fits
    from uvlab.app.skymodel import SkyModelError
    from uvlab.app.skymodel.image_sky_files import load_image_sky
    from uvlab.gpu.image_spec import ARCSEC, ImageSpec

    out = out or sys.stdout
    target = Path(args.output)
    if target.exists() and not args.force:
        raise SkyModelError("already exists (use --force to overwrite)", target)
    if not (args.cell_arcsec > 0 and math.isfinite(args.cell_arcsec)):
        raise SkyModelError(f"--cell-arcsec must be > 0, got {args.cell_arcsec}")
    sky = load_image_sky(args.input, width_arcmin=args.width_arcmin, flux_jy=args.flux_jy)
    if args.strict and sky.notes:
        from uvlab.app.commands.sky_strict import check_image_sky

        check_image_sky(args, sky)  # refuses
    spec = ImageSpec(args.npix + args.npix % 2, args.cell_arcsec * ARCSEC)
    model, total = sky.on_grid(spec, args.ra, args.dec)
    history = {"sky": args.input, "sky_total_jy": f"{sky.total_jy:.6g}"}
    write_image_fits(
        target, model, spec, args.ra, args.dec, freq_hz=sky.ref_freq_hz, bunit="Jy/pixel",
        history=history, overwrite=args.force,
    )  # fmt: skip
    for note in sky.notes:
        print(f"note: {note}", file=out)
    print(
        f'wrote {target}: {spec.npix}² × {args.cell_arcsec:g}" of {sky.name!r}, '
        f"{total:.6g} Jy on the grid of {sky.total_jy:.6g} Jy",
        file=out,
    )
    return 0
