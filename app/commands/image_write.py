"""``uvlab image``'s files: one product's FITS set, preview, timing and summary.

:func:`write_product` writes what :func:`~uvlab.app.commands.image.image_product` imaged
and its CLEAN (or none) as one output set (:mod:`uvlab.app.outputs.output_set`): the new
files are renamed into place together, so a cancelled or failed run leaves the old set
or the new one, never a mix. The FITS history holds every parameter of the run.
"""

from __future__ import annotations

import time

from uvlab.app.commands.image_channels_write import crop_channels, summary_lines, write_image_set
from uvlab.app.commands.image_outputs import (
    check_outputs_space,
    cube_prefix,
    expected_noise_line,
    observation_cards,
    preview,
    psf_beam,
    write_timing,
)
from uvlab.app.commands.image_size import crop_outputs
from uvlab.app.commands.ms_imaging import fits_history


def write_product(im, clean) -> int:
    """Write ``im``'s set with ``clean`` (a Deconvolved or None); print the summary. Returns 0."""
    from pathlib import Path

    import numpy as np

    from uvlab.app.commands import pb_correct
    from uvlab.app.commands.image_spws import frequency_cards
    from uvlab.app.outputs.output_set import output_set
    from uvlab.app.runtime.progress import progress_bar

    args, vd, spec, res, size, cube = im.args, im.vd, im.spec, im.res, im.size, im.cube
    prefix = Path(args.out)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    check_outputs_space(prefix, spec.npix, clean, sets=args.channels_out + 1 if cube else 1)
    ra, dec = np.degrees(vd.ra0_rad) % 360.0, np.degrees(vd.dec0_rad)
    history = _history(im, clean)
    common = dict(
        **frequency_cards(vd, res),
        stokes=vd.stokes,
        history=history,
        observation=observation_cards(im.cache.ms_info(args.ms), vd),
        cropped=size is not None,
    )
    beam = clean.beam if clean is not None else psf_beam(res.psf, spec)
    res, clean = crop_outputs(res, clean, size)
    channels = crop_channels(im.channels, size) if cube else None
    chi = pb_correct.observation_chi(args, im.pb_cube, args.ms, vd.time, vd.ra0_rad,
                                     vd.dec0_rad)  # fmt: skip
    t0 = time.perf_counter()
    with progress_bar("write"), output_set(overwrite=args.force, stale=im.others):
        base, pol = cube_prefix(args)  # several --pol products' cubes: PREFIX-0000-I-…
        files = write_image_set(Path(base), res, clean, channels, spec, ra, dec, common, beam,
                                pol, f"{prefix}-sources.txt")  # fmt: skip
        if getattr(args, "pb_correct", False):
            image = clean.restored if clean is not None else res.dirty
            files += pb_correct.write_pb_files(
                args, im.pb_cube, prefix, image, spec, ra, dec, common, vd.freq_hz, im.dish, chi
            )
        timing = {"read MS": im.t_read, **res.timing, **im.t_chan,
                  "write": time.perf_counter() - t0}  # fmt: skip
        if not args.no_png:
            t0 = time.perf_counter()
            files.append(preview(res, spec, vd, f"{prefix}.png"))
            timing["png"] = time.perf_counter() - t0
        files.append(write_timing(f"{prefix}-timing.json", timing, res, spec, passes=2))
    _print_summary(args, spec, size, im.rule, res, vd, im.wt, clean)
    for line in summary_lines(channels) if cube else ():
        print(line)
    for f in files:
        print(f"wrote {f}")
    return 0


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


def _history(im, clean) -> dict:
    """The FITS history of ``uvlab image``: every parameter of the run, and CLEAN's outcome."""
    from uvlab.app.commands.clean_args import clean_opts_text
    from uvlab.app.commands.image_spws import spw_history
    from uvlab.app.commands.weighting_args import weighting_text

    args, vd, spec, size, params, wt, res = (
        im.args, im.vd, im.spec, im.size, im.params, im.wt, im.res
    )  # fmt: skip
    rule, rows_note = im.rule, im.rows_note
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
            "weighting": weighting_text(wt),
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
                    **(
                        {"join_polarizations": ",".join(args.joined_pols)}
                        if getattr(args, "joined_pols", None)
                        else {}
                    ),
                    "beam": f"{clean.beam.bmaj_arcsec:.4g} x {clean.beam.bmin_arcsec:.4g} "
                    f"arcsec, PA {clean.beam.bpa_deg:.4g} deg",
                }
            ),
        }
    )
