"""``uvlab image``: image one field, window and Stokes product of a MeasurementSet.

With ``--pol`` several products, each in its own run of this one
(:mod:`uvlab.app.commands.image_pols`, WSClean's names ``PREFIX-I-dirty.fits`` …).

Writes ``PREFIX-dirty.fits``, ``PREFIX-psf.fits`` (DESIGN §1 WCS; the FITS
history holds every parameter), ``PREFIX-timing.json`` and a ``PREFIX.png``
preview.

The selection is read by the lab's MS source and imaged by the lab's image
task (:func:`uvlab.app.lab.live.run_job` on the same work cache, as the window
images an MS); the request carries the geometry chosen here and the gridder
parameters as the options give them (:func:`image_request`).

Memory is checked before anything large is allocated (:mod:`uvlab.app.runtime.memory`):
the read and, with ``--npix``, the image before reading; the image again
once the number of samples is known. Disk space for all four outputs is
checked before the first is written. The outputs are one set
(:mod:`uvlab.app.outputs.output_set`): an existing file of the set, or a symbolic link
at any of its names, is refused before anything is read (``--force`` replaces
existing files), and the new files are renamed into place together, so a
cancelled or failed run leaves the old set or the new one, never a mix.

The options and reading shared with ``uvlab compare`` are
:mod:`uvlab.app.commands.ms_imaging`'s.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from uvlab.app.commands.image_channels import (
    add_channel_args,
    channels_estimate,
    check_channel_args,
    run_channels,
)
from uvlab.app.commands.image_outputs import output_names
from uvlab.app.commands.image_size import add_size_arg, resolve_size
from uvlab.app.commands.ms_args import add_imaging_args, add_selection_args
from uvlab.app.commands.ms_imaging import (
    WTERM_HINT_RAD,
    check_read_memory,
    choose_geometry,
    grid_params,
    ms_selection,
    read_selected,
    row_selection_note,
    warn,
    wterm_phase_rad,
)
from uvlab.app.commands.validate import MAX_NITER, NITER, check_image_side, number
from uvlab.app.commands.weighting_args import weighting
from uvlab.gpu.gridders.registry import NAMES as ALGORITHM_NAMES
from uvlab.gpu.gridders.registry import grids

log = logging.getLogger(__name__)


def imaging_record(args, spec):
    """The :class:`~uvlab.app.lab.state.ImagingRecord` of these options on the geometry ``spec``.

    The gridder parameters go whole, as given (:func:`grid_params`; for the DFT, which
    reads none, only the precision): :class:`~uvlab.app.lab.imaging.ImagingOptions`
    cannot say all of them (a support with ``--eps``, the gridding precision).
    """
    from uvlab.app.lab.imaging import ImagingOptions
    from uvlab.app.lab.state import ImagingRecord
    from uvlab.gpu.gridders.params import GridParams

    wt = weighting(args)
    options = ImagingOptions(
        npix=spec.npix,
        cell_arcsec=spec.cell_arcsec,
        weighting=args.weighting,
        robust=args.robust,
        taper_arcsec=args.taper_arcsec,
        density_scale=wt.density_scale,
        density_cells=wt.density_cells,
        density_padding=wt.density_padding,
        super_weight=wt.super_weight,
        rank_filter=wt.rank_filter,
        rank_filter_size=wt.rank_filter_size,
        algorithm=args.algorithm,
    )
    if not grids(args.algorithm):
        params = GridParams(precision=getattr(args, "precision", None) or "double")
    else:
        params = grid_params(args)
    return ImagingRecord(options, params, args.device)


def image_request(args, spec):
    """The lab's ``image`` job for these options, on the geometry ``spec`` chosen from the data.

    Its imaging is :func:`imaging_record`'s (the request carries its ``params``), and
    ``spec`` its exact geometry.
    """
    from uvlab.app.lab.jobs import JobRequest

    im = imaging_record(args, spec)
    return JobRequest(
        "ms",
        im.options,
        im.device,
        ms=ms_selection(args),
        preview=False,
        threads=0,
        spec=spec,
        params=im.params,
    )


def register(sub) -> None:
    p = sub.add_parser(
        "image",
        help="image a MeasurementSet: dirty image, PSF, timing and a preview",
        description="Read one field, spectral window and Stokes product (or correlation) "
        "of a MeasurementSet, grid and FFT it with the chosen algorithm, and write "
        "PREFIX-dirty.fits, PREFIX-psf.fits, PREFIX-timing.json and PREFIX.png. "
        "Without --npix/--cell-arcsec the geometry comes from the data: the cell from the "
        "longest baseline, the size from the dish diameter (1.5 primary-beam FWHM).",
    )
    p.add_argument("--ms", required=True, metavar="MS", help="the MeasurementSet folder")
    add_selection_args(p)
    add_imaging_args(p)
    p.add_argument(
        "--algorithm",
        default=None,
        choices=ALGORITHM_NAMES,
        help="gridding algorithm (default: the catalogue's for the device: conv on a GPU, "
        "ducc on the CPU)",
    )
    add_size_arg(p)
    add_channel_args(p)
    from uvlab.app.commands.image_pols import add_pol_arg

    add_pol_arg(p)
    add_clean_args(p)
    from uvlab.app.commands.pb_correct import add_pb_args

    add_pb_args(p)
    from uvlab.app.commands.image_scaled import add_scale_args

    add_scale_args(p)
    p.add_argument("--out", required=True, metavar="PREFIX", help="output file prefix")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace existing PREFIX-* outputs (without it an existing one is refused up front)",
    )
    p.add_argument(
        "--no-png",
        action="store_true",
        help="skip PREFIX.png (the matplotlib preview takes about half of a small image's time)",
    )
    p.set_defaults(func=run, parser=p)


def add_clean_args(p) -> None:
    """The CLEAN options, with WSClean's names (--niter, --gain, --mgain, --threshold-jy, ...)."""
    from uvlab.app.lab.deconvolve import DECONVOLVERS

    g = p.add_argument_group(
        "deconvolution",
        "with --niter > 0 also write PREFIX-model.fits, PREFIX-residual.fits, PREFIX-image.fits "
        "(restored, with BMAJ/BMIN/BPA) and PREFIX-sources.txt (a WSClean component list)",
    )
    g.add_argument(
        "--niter", type=NITER, default=0,
        help=f"CLEAN iterations (default 0: no CLEAN; at most {MAX_NITER:.0e})",
    )  # fmt: skip
    g.add_argument("--gain", type=number(0, 1, open_lo=True), default=0.1,
                   help="loop gain (default 0.1)")  # fmt: skip
    g.add_argument(
        "--mgain", type=number(0, 1, open_lo=True), default=1.0,
        help="end a minor cycle at (1 − mgain)·peak (default 1)",
    )  # fmt: skip
    g.add_argument(
        "--threshold-jy", type=number(0), default=0.0, help="stop at this residual peak, Jy/beam"
    )
    g.add_argument(
        "--auto-threshold",
        type=float,
        metavar="S",
        help="stop at S·σ, σ the residual's noise on its long spacings (docs/multiscale.md)",
    )
    g.add_argument(
        "--auto-mask",
        type=float,
        metavar="S",
        help="WSClean's -auto-mask: CLEAN to S·σ everywhere, then only where components are, "
        "down to --auto-threshold or --threshold-jy",
    )
    g.add_argument("--deconvolver", choices=DECONVOLVERS, default="hogbom")
    from uvlab.app.commands.clean_args import add_multiscale_args
    from uvlab.app.commands.clean_mask import add_mask_args

    add_multiscale_args(g)

    add_mask_args(g)


def run(args) -> int:
    """``uvlab image``: the checks, then :func:`image_product`, its CLEAN and the write.

    With several ``--pol`` products, each runs in turn (or, with
    ``--join-polarizations``, all are imaged, CLEANed jointly, then written:
    :mod:`uvlab.app.commands.image_pols`).
    """
    from uvlab.app.commands import image_scaled
    from uvlab.app.commands.clean_args import check_options
    from uvlab.app.commands.image_write import write_product
    from uvlab.app.commands.ms_args import w_correction_complaint
    from uvlab.app.commands.spw_args import resolve_spws
    from uvlab.app.lab.imaging import lab_default_algorithm

    args.algorithm = args.algorithm or lab_default_algorithm(args.device)
    complaint = check_options(args) or w_correction_complaint(args, [args.algorithm])
    if complaint:
        args.parser.error(complaint)  # exit 2, before anything is read
    from uvlab.app.commands import image_pols

    pols = image_pols.resolve(args)  # --pol: one is --stokes; several, each its own run
    if pols:
        return image_pols.run(args, pols, run, image_product)
    several = len(resolve_spws(args)) > 1  # exit 2 for an unknown --spw
    if image_scaled.wanted(args):  # row chunks over a Dask cluster
        return image_scaled.run(args)
    im = image_product(args, several)
    clean = im.clean
    if args.niter > 0 and not im.cube:  # all of it before the first file is written
        clean = clean_product(im)
    return write_product(im, clean)


@dataclass
class Imaged:
    """One product imaged, before its CLEAN and its files (:func:`image_product`).

    ``vd`` the read (VisData or SpwSet), ``res`` the image job's result; ``channels``,
    ``clean`` and ``t_chan`` the output channels (``cube``), their MFS CLEAN and timing;
    ``others`` the set's stale names, ``pb_cube`` ``--pb-correct``'s beam; ``parts`` the
    output channels' visibilities where their CLEAN joins other polarisations'
    (:mod:`uvlab.app.commands.joined_cube`).
    """

    args: object
    vd: object
    dish: object
    t_read: float
    cache: object
    spec: object
    rule: str
    size: object
    rows_note: object
    clean_mask: object
    params: object
    wt: object
    res: object
    others: list
    pb_cube: object
    cube: bool
    channels: object = None
    clean: object = None
    t_chan: dict = field(default_factory=dict)
    parts: object = None


def image_product(args, several: bool) -> Imaged:
    """Read the selection and image it (and its output channels): all checked first.

    Usage errors exit 2 before anything is read; memory is checked once the number of
    samples is known.
    """
    from uvlab.app.commands.image_spws import geometry_inputs, image_spw_set, unflagged
    from uvlab.app.commands.spw_args import read_spw_set
    from uvlab.app.lab.samples import WorkCache
    from uvlab.app.runtime.memory import check_memory, clean_estimate, imaging_estimate
    from uvlab.app.runtime.progress import progress_bar

    size = resolve_size(args)  # --size W H: imaged at max(W, H)², cropped before writing
    if size is None:  # exit 2: an image too small for the kernel
        check_image_side(args.parser, args.npix, args.support, "--npix")
    check_channel_args(args)  # --join-channels, --pb-correct with --channels-out
    if several and args.channels_out > 1:
        args.parser.error("--channels-out with several spectral windows is not supported yet: "
                          "give one with --spw N")  # fmt: skip
    from uvlab.app.outputs.output_set import check_outputs

    written, others = output_names(args)
    check_outputs([*written, *others], force=args.force)  # exit 2, before anything is read
    from uvlab.app.commands import pb_correct

    pb_cube = pb_correct.prepare(args)  # a beam cube is read and checked before imaging
    params = grid_params(args) if grids(args.algorithm) else None
    wt = weighting(args)
    cache = WorkCache()  # the read, kept for the image job
    with progress_bar("read") as bar:
        if several:  # one multi-frequency-synthesis image of every window
            dish = check_read_memory(args)
            vd, t_read = read_spw_set(args, args.spw, cache, progress=bar)
        else:
            vd, dish, t_read = read_selected(args, progress=bar, cache=cache)
            check_channel_args(args, vd.nchan)  # exit 2: more output channels than selected
    rows_note = row_selection_note(args, vd)
    if rows_note:
        log.info("%s", rows_note)
    spec, rule = choose_geometry(*geometry_inputs(vd), dish, args.npix, args.cell_arcsec)
    from uvlab.app.commands.clean_mask import output_mask, square_mask

    w_out, h_out = size or (spec.npix, spec.npix)
    clean_mask = square_mask(output_mask(args, w_out, h_out), spec.npix)  # before any write
    phase = wterm_phase_rad(*geometry_inputs(vd), spec)
    if phase > WTERM_HINT_RAD and not (args.wstack or args.wprojplanes):
        warn(args, f"the w-term's phase reaches {phase:.2g} rad at the image corner: "
             "sources away from the centre are smeared; --wstack corrects it (with conv, "
             "so does --wprojplanes -1)")  # fmt: skip
    nvis = unflagged(vd)
    need = imaging_estimate(spec.npix, args.algorithm, params, nvis=nvis)
    what = f"a {spec.npix}² image with {args.algorithm}"
    if args.niter > 0:  # CLEAN's PSF of side 2N, its images, Cotton–Schwab's copies
        need = need + clean_estimate(
            spec.npix, args.algorithm, params, nvis=nvis, deconvolver=args.deconvolver
        )
        what += f" and {args.deconvolver} CLEAN"
    if args.channels_out > 1:  # every output channel's images, held until written
        need = need + channels_estimate(args, spec.npix)
        what += f" in {args.channels_out} output channels"
    check_memory(need, what)
    if several:
        res = image_spw_set(args, vd, spec, params, wt)
    else:
        res = image_job(image_request(args, spec), cache)  # the lab's image task, the window's
    im = Imaged(args, vd, dish, t_read, cache, spec, rule, size, rows_note, clean_mask, params,
                wt, res, others, pb_cube, cube=args.channels_out > 1)  # fmt: skip
    from uvlab.app.commands import joined_cube

    if im.cube and joined_cube.later(args):  # CLEANed with the other polarisations' cubes
        im.parts, im.t_chan = joined_cube.image_cube(args, vd, spec, wt, params, res)
        im.channels = im.parts.channels
    elif im.cube:  # the output channels, and the MFS CLEAN their mean
        im.channels, im.clean, im.t_chan = run_channels(args, vd, spec, wt, params, res, clean_mask)
    return im


def clean_product(im: Imaged):
    """``--niter``'s CLEAN of one product's image: its 2N PSF, the driver, the restore."""
    from uvlab.app.commands.clean_args import clean_options
    from uvlab.app.commands.image_spws import clean_psf
    from uvlab.app.lab.deconvolve import clean as run_clean
    from uvlab.app.runtime.progress import progress_bar

    args = im.args
    with progress_bar("PSF for CLEAN"):
        psf2 = clean_psf(im.vd, im.spec, im.wt, args.algorithm, im.params, im.res.device)
    return run_clean(im.vd, im.spec, im.res.dirty, psf2, clean_options(args), im.params, im.wt,
                     im.res.device, algorithm=args.algorithm, mask=im.clean_mask)  # fmt: skip


def image_job(request, cache):
    """The lab's image task run to its end, its progress shown; its ImageResult.

    The task's own stages (weighting, sort / bin, grid, FFT, correct) are logged by
    the engine's timer as they end (``--verbose``, ``--log-file``), their times here.
    """
    from uvlab.app.lab.jobs import Done, Progress
    from uvlab.app.lab.live import iter_job
    from uvlab.app.runtime.progress import progress_bar

    out = None
    with progress_bar(f"image ({request.imaging.algorithm})") as bar:
        for event in iter_job(request, cache):
            if isinstance(event, Progress):
                bar(event.fraction, event.stage)
            elif isinstance(event, Done):
                out = event.output
    times = ", ".join(f"{k} {v:.3f} s" for k, v in getattr(out, "timing", {}).items())
    log.debug("image stages: %s", times)
    return out
