"""The weighting options of the imaging commands, and the Weighting they ask for."""

from __future__ import annotations

from uvlab.app.commands import validate as V


def add_weighting_args(g) -> None:
    """``--weighting``, ``--robust``, ``--taper-arcsec`` and ``--density-frame`` on group ``g``."""
    g.add_argument("--weighting", choices=("natural", "uniform", "briggs"), default="natural")
    g.add_argument("--robust", type=V.ROBUST, default=0.0, help="Briggs robust R (default 0)")
    g.add_argument(
        "--taper-arcsec", type=V.TAPER_ARCSEC, default=0.0, help="Gaussian taper FWHM, arcsec"
    )
    g.add_argument(
        "--density-frame",
        choices=("topo", "lsrk"),
        default="topo",
        help="frequencies the uniform/Briggs density cells are counted with: the data's own "
        "(topo; default) or LSRK, as tclean counts them (its PSF then to ~4e-4 of the peak)",
    )


def weighting(args):
    """The :class:`~uvlab.gpu.imaging.weighting.Weighting` the options ask for.

    ``--density-frame lsrk`` reads the MS's field, times and antenna positions for
    tclean's density scale (:func:`uvlab.app.ms.lsrk_scale.lsrk_density_scale`); a
    field or MS it cannot read stops the command (exit 2) naming the flag and the file.
    """
    from uvlab.gpu.imaging.weighting import Weighting

    scale = 1.0
    if getattr(args, "density_frame", "topo") == "lsrk" and args.weighting != "natural":
        from uvlab.app.ms.errors import MSError
        from uvlab.app.ms.lsrk_scale import lsrk_density_scale

        try:
            scale = lsrk_density_scale(args.ms, V.field_arg(args.field))
        except (MSError, OSError, RuntimeError, ValueError) as exc:
            args.parser.error(f"--density-frame lsrk: {exc}")
    return Weighting(args.weighting, args.robust, args.taper_arcsec, density_scale=scale)
