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
import time

from uvlab.app.commands.image_channels import (
    add_channel_args,
    channels_estimate,
    check_channel_args,
    crop_channels,
    run_channels,
    summary_lines,
    write_image_set,
)
from uvlab.app.commands.image_outputs import (
    check_outputs_space,
    expected_noise_line,
    observation_cards,
    output_names,
    preview,
    psf_beam,
    write_timing,
)
from uvlab.app.commands.image_size import add_size_arg, crop_outputs, resolve_size
from uvlab.app.commands.ms_imaging import (
    WTERM_HINT_RAD,
    add_imaging_args,
    add_selection_args,
    check_read_memory,
    choose_geometry,
    fits_history,
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

    options = ImagingOptions(
        npix=spec.npix,
        cell_arcsec=spec.cell_arcsec,
        weighting=args.weighting,
        robust=args.robust,
        taper_arcsec=args.taper_arcsec,
        density_scale=weighting(args).density_scale,
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
    from uvlab.app.commands.deconvolve import DECONVOLVERS

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
    from pathlib import Path

    import numpy as np

    from uvlab.app.commands import image_scaled
    from uvlab.app.commands.clean_args import check_options, clean_options
    from uvlab.app.commands.image_spws import (
        clean_psf,
        frequency_cards,
        geometry_inputs,
        image_spw_set,
        unflagged,
    )
    from uvlab.app.commands.spw_args import read_spw_set, resolve_spws
    from uvlab.app.lab.imaging import lab_default_algorithm
    from uvlab.app.lab.samples import WorkCache
    from uvlab.app.runtime.memory import check_memory, clean_estimate, imaging_estimate
    from uvlab.app.runtime.progress import progress_bar

    args.algorithm = args.algorithm or lab_default_algorithm(args.device)
    complaint = check_options(args)
    if complaint:
        args.parser.error(complaint)  # exit 2, before anything is read
    from uvlab.app.commands import image_pols

    pols = image_pols.resolve(args)  # --pol: one is --stokes; several, each its own run
    if pols:
        return image_pols.run(args, pols, run)
    several = len(resolve_spws(args)) > 1  # exit 2 for an unknown --spw
    if image_scaled.wanted(args):  # row chunks over a Dask cluster
        return image_scaled.run(args)
    size = resolve_size(args)  # --size W H: imaged at max(W, H)², cropped before writing
    if size is None:  # exit 2: an image too small for the kernel
        check_image_side(args.parser, args.npix, args.support, "--npix")
    check_channel_args(args)  # --join-channels, --pb-correct with --channels-out
    if several and args.channels_out > 1:
        args.parser.error("--channels-out with several spectral windows is not supported yet: "
                          "give one with --spw N")  # fmt: skip
    from uvlab.app.outputs.output_set import check_outputs, output_set

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
    if phase > WTERM_HINT_RAD and not args.wstack:
        warn(args, f"the w-term's phase reaches {phase:.2g} rad at the image corner: "
             "sources away from the centre are smeared; --wstack corrects it")  # fmt: skip
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
    cube = args.channels_out > 1  # the output channels, and the MFS CLEAN their mean
    channels, clean, t_chan = (
        run_channels(args, vd, spec, wt, params, res, clean_mask) if cube else (None, None, {})
    )
    if args.niter > 0 and not cube:  # all of it before the first file is written
        from uvlab.app.commands.deconvolve import clean as run_clean

        with progress_bar("PSF for CLEAN"):
            psf2 = clean_psf(vd, spec, wt, args.algorithm, params, res.device)
        clean = run_clean(vd, spec, res.dirty, psf2, clean_options(args), params, wt, res.device,
                          algorithm=args.algorithm, mask=clean_mask)  # fmt: skip
    prefix = Path(args.out)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    check_outputs_space(prefix, spec.npix, clean, sets=args.channels_out + 1 if cube else 1)
    ra, dec = np.degrees(vd.ra0_rad) % 360.0, np.degrees(vd.dec0_rad)
    history = _history(args, vd, spec, rule, size, rows_note, params, wt, res, clean)
    common = dict(
        **frequency_cards(vd, res),
        stokes=vd.stokes,
        history=history,
        observation=observation_cards(cache.ms_info(args.ms), vd),
        cropped=size is not None,
    )
    beam = clean.beam if clean is not None else psf_beam(res.psf, spec)
    res, clean = crop_outputs(res, clean, size)
    channels = crop_channels(channels, size) if cube else None
    chi = pb_correct.observation_chi(args, pb_cube, args.ms, vd.time, vd.ra0_rad, vd.dec0_rad)
    t0 = time.perf_counter()
    with progress_bar("write"), output_set(overwrite=args.force, stale=others):
        files = write_image_set(prefix, res, clean, channels, spec, ra, dec, common, beam)
        if getattr(args, "pb_correct", False):
            image = clean.restored if clean is not None else res.dirty
            files += pb_correct.write_pb_files(
                args, pb_cube, prefix, image, spec, ra, dec, common, vd.freq_hz, dish, chi
            )
        timing = {"read MS": t_read, **res.timing, **t_chan, "write": time.perf_counter() - t0}
        if not args.no_png:
            t0 = time.perf_counter()
            files.append(preview(res, spec, vd, f"{prefix}.png"))
            timing["png"] = time.perf_counter() - t0
        files.append(write_timing(f"{prefix}-timing.json", timing, res, spec, passes=2))
    _print_summary(args, spec, size, rule, res, vd, wt, clean)
    for line in summary_lines(channels) if cube else ():
        print(line)
    for f in files:
        print(f"wrote {f}")
    return 0


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


def _print_summary(args, spec, size, rule, res, vd, wt, clean) -> None:
    """The run in one line on stdout, the expected and measured noise, CLEAN's outcome."""
    import numpy as np

    shape = f"{spec.npix}²" if size is None else f"{size[0]}×{size[1]}"
    print(
        f'{args.algorithm} {shape} × {spec.cell_arcsec:.3g}" ({rule}), '
        f"{res.nvis} visibilities, Stokes {vd.stokes}, device {res.device}; "
        f"peak {res.dirty.max():.4g} Jy/beam"
    )
    print(expected_noise_line(vd, spec, wt, res.dirty))
    if clean is not None:
        b = clean.beam
        what = "CLEAN" if args.channels_out == 1 else "CLEAN (MFS: the channels' weighted mean)"
        print(
            f"{what}: {clean.iterations} iterations ({clean.stop_reason}), model flux "
            f"{clean.model.sum():.4g} Jy, residual peak {np.abs(clean.residual).max():.4g} "
            f'Jy/beam; beam {b.bmaj_arcsec:.3g}" x {b.bmin_arcsec:.3g}" PA {b.bpa_deg:.3g} deg'
        )


def _history(args, vd, spec, rule, size, rows_note, params, wt, res, clean) -> dict:
    """The FITS history of ``uvlab image``: every parameter of the run, and CLEAN's outcome."""
    from uvlab.app.commands.clean_args import clean_opts_text
    from uvlab.app.commands.image_spws import spw_history

    return fits_history(
        {
            "command": "image",
            "ms": vd.path,
            "field": f"{vd.field} {vd.field_name}",
            "spw": spw_history(vd, res),
            "column": vd.column,
            "stokes": vd.stokes,
            "channels": f"{args.channels or 'all'} ({vd.nchan} used)",
            **({"channels_out": args.channels_out} if args.channels_out > 1 else {}),
            **({"rows": rows_note} if rows_note else {}),
            **(
                {"phase_center": f"{args.phase_center[0]:.9g} {args.phase_center[1]:.9g} deg"}
                if args.phase_center
                else {}
            ),
            "npix": spec.npix if size is None else f"{size[0]} x {size[1]} (of {spec.npix})",
            "npix_rule": rule,
            "cell_arcsec": f"{spec.cell_arcsec:.6g}",
            "sigma": params.sigma if params is not None else None,
            "weighting": f"{wt.scheme} robust={wt.robust} taper_arcsec={wt.taper_arcsec}"
            + (f" density_scale={wt.density_scale:.9f}" if wt.density_scale != 1.0 else ""),
            "algorithm": args.algorithm,
            "params": params,
            "device": res.device,
            "precision": args.precision,
            "nvis": res.nvis,
            "sum_weights": f"{res.sum_weights:.6g}",
            "weight_source": vd.weight_source,
            **(
                {}
                if clean is None
                else {
                    "deconvolver": f"{args.deconvolver} niter={args.niter} gain={args.gain} "
                    f"mgain={args.mgain} threshold_jy={args.threshold_jy} "
                    f"auto_threshold={args.auto_threshold} auto_mask={args.auto_mask} "
                    f"multiscale={clean_opts_text(args)}",
                    "clean": f"{clean.iterations} iterations in {clean.cycles} cycles, "
                    f"stopped by {clean.stop_reason}",
                    "beam": f"{clean.beam.bmaj_arcsec:.4g} x {clean.beam.bmin_arcsec:.4g} "
                    f"arcsec, PA {clean.beam.bpa_deg:.4g} deg",
                }
            ),
        }
    )
