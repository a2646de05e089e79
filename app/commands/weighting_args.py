"""The weighting options of the imaging commands, and the Weighting they ask for."""

from __future__ import annotations

from uvlab.app.commands import validate as V
from uvlab.gpu.imaging.weighting import (
    DENSITY_CELLS,
    WSCLEAN_PADDING,
    WSCLEAN_RANK_FILTER,
    WSCLEAN_RANK_FILTER_SIZE,
)


def add_weighting_args(g) -> None:
    """``--weighting``, ``--robust``, ``--taper-arcsec``, ``--density-frame``, ``--density-cells``,
    ``--density-padding``, ``--super-weight``, ``--weighting-rank-filter`` and
    ``--weighting-rank-filter-size`` on group ``g``."""
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
    g.add_argument(
        "--density-cells",
        choices=DENSITY_CELLS,
        default="casa",
        help="uv cells the uniform/Briggs density is counted on: the image's (casa; default, "
        "as CASA counts) or its padded image's, as WSClean counts (wsclean: finer cells, "
        "other weights; docs/conventions.md, Weighting)",
    )
    g.add_argument(
        "--density-padding",
        type=V.DENSITY_PADDING,
        metavar="P",
        help=f"WSClean's -padding, in [1, 4] (default {WSCLEAN_PADDING}): with --density-cells "
        "wsclean the density grid is the image's side × P, rounded up as WSClean rounds it; "
        "uvlab's own gridding is not padded by it",
    )
    g.add_argument(
        "--super-weight",
        type=V.SUPER_WEIGHT,
        default=1.0,
        metavar="F",
        help="WSClean's -super-weight, ≥ 1 (default 1): the uniform/Briggs density grid's "
        "side divided by F (rounded as WSClean rounds it), its cells F times coarser",
    )
    g.add_argument(
        "--weighting-rank-filter",
        type=V.RANK_FILTER,
        default=0.0,
        metavar="L",
        help="WSClean's -weighting-rank-filter: clip each uv cell's uniform/Briggs weight to "
        f"L times the mean of its window's non-zero ones; 0 (default) is off, as in CASA; "
        f"WSClean's default is {WSCLEAN_RANK_FILTER:g} (L ≥ 1)",
    )
    g.add_argument(
        "--weighting-rank-filter-size",
        type=V.RANK_FILTER_SIZE,
        metavar="S",
        help=f"WSClean's -weighting-rank-filter-size: the window's width in cells, ≥ 2 "
        f"(default {WSCLEAN_RANK_FILTER_SIZE}, WSClean's; an odd S acts as S − 1, as in "
        "WSClean)",
    )


def weighting(args):
    """The :class:`~uvlab.gpu.imaging.weighting.Weighting` the options ask for.

    ``--density-frame lsrk`` reads the MS's field, times and antenna positions for
    tclean's density scale (:func:`uvlab.app.ms.lsrk_scale.lsrk_density_scale`); a
    field or MS it cannot read stops the command (exit 2) naming the flag and the file.
    ``--density-padding`` without ``--density-cells wsclean`` (which alone reads it) is a
    usage error too, as is ``--weighting-rank-filter-size`` without a
    ``--weighting-rank-filter`` level.
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
    cells = getattr(args, "density_cells", "casa")
    padding = getattr(args, "density_padding", None)
    if padding is not None and cells != "wsclean":
        args.parser.error("--density-padding sizes WSClean's density cells: give it with "
                          "--density-cells wsclean")  # fmt: skip
    level = getattr(args, "weighting_rank_filter", 0.0)
    size = getattr(args, "weighting_rank_filter_size", None)
    if size is not None and not level:
        args.parser.error("--weighting-rank-filter-size sizes the rank filter's window: give "
                          "it with --weighting-rank-filter L (L ≥ 1)")  # fmt: skip
    return Weighting(
        args.weighting,
        args.robust,
        args.taper_arcsec,
        density_scale=scale,
        density_cells=cells,
        density_padding=WSCLEAN_PADDING if padding is None else padding,
        super_weight=getattr(args, "super_weight", 1.0),
        rank_filter=level,
        rank_filter_size=WSCLEAN_RANK_FILTER_SIZE if size is None else size,
    )


def weighting_text(wt) -> str:
    """The FITS history's ``weighting`` line: scheme, robust, taper, and the density's
    scale, cells, super weight and rank filter where they are not the default."""
    text = f"{wt.scheme} robust={wt.robust} taper_arcsec={wt.taper_arcsec}"
    if wt.density_scale != 1.0:
        text += f" density_scale={wt.density_scale:.9f}"
    if wt.density_cells != "casa":
        text += f" density_cells={wt.density_cells} density_padding={wt.density_padding:g}"
    if wt.super_weight != 1.0:
        text += f" super_weight={wt.super_weight:g}"
    if wt.rank_filter:
        text += f" rank_filter={wt.rank_filter:g} rank_filter_size={wt.rank_filter_size}"
    return text
