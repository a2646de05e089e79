"""What ``uvlab compare`` writes and prints, and the one spectral window it compares: shared
by its in-memory run (:mod:`uvlab.app.commands.compare`) and its run in row chunks
(:mod:`uvlab.app.commands.compare_scaled`)."""

from __future__ import annotations

from uvlab.app.commands.ms_imaging import fits_history


def one_spw(args) -> int:
    """The one spectral window of ``--spw`` (exit 2 for an unknown one, or for several)."""
    from uvlab.app.commands.spw_args import resolve_spws

    spws = resolve_spws(args)  # exit 2 for an unknown --spw
    if len(spws) > 1:
        args.parser.error(f"--spw: {args.ms} holds spectral windows {','.join(map(str, spws))} of "
               "the field; compare images one (give --spw N; uvlab image makes one image of "
               "all)")  # fmt: skip
    return spws[0]


def finish(args, cmp, outputs, ra, dec, freq, params, label, rule) -> int:
    """Write the comparison's files (renamed into place together) and print its summary."""
    from pathlib import Path

    from uvlab.app.outputs.output_set import output_set

    spec = cmp.spec
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with output_set(overwrite=args.force, stale=outputs):  # renamed together, at the end
        files = write_outputs(cmp, out, ra, dec, freq, params, label)
    for name, r in cmp.results.items():
        m = r.metrics
        print(
            f"{name:>15}: rms central {m['rms_central']:.3e}, full {m['rms_full']:.3e}, "
            f"max {m['max_error']:.3e}; "
            + (f"grid {r.timing['grid'] * 1e3:.1f} ms, " if "grid" in r.timing else "")
            + f"total {r.total_s * 1e3:.1f} ms (runs {r.spread_s[0] * 1e3:.1f}–"
            f"{r.spread_s[1] * 1e3:.1f} ms)"
            + (
                f"; error/bound max {m['error_over_bound_max']:.3f}"
                if m.get("error_over_bound_max") is not None
                else ""
            )
        )
    print(f'reference: {cmp.reference_label}; {spec.npix}² × {spec.cell_arcsec:.3g}" ({rule})')
    for f in files:
        print(f"wrote {f}")
    return 0


def write_outputs(cmp, out, ra, dec, freq, params, label):
    """FITS per algorithm, the reference FITS, metrics.json and report.png."""
    import numpy as np

    from uvlab.app.lab.compare import write_metrics_json
    from uvlab.app.outputs.fits_io import write_image_fits
    from uvlab.app.outputs.report import compare_report

    spec, k, coarse = cmp.spec, cmp.step, cmp.reference_spec
    base = fits_history(
        {
            "data": label,
            "reference": cmp.reference_label,
            "params": params,
            "npix": spec.npix,
            "cell_arcsec": f"{spec.cell_arcsec:.6g}",
        }
    )
    common = dict(freq_hz=float(np.mean(freq)))
    files = [
        write_image_fits(
            out / "dft-dirty.fits",
            cmp.reference,
            coarse,
            ra,
            dec,
            history={**base, "algorithm": "dft"},
            **common,
        )
    ]
    for name, r in cmp.results.items():
        hist = {**base, "algorithm": name}
        files.append(
            write_image_fits(
                out / f"{name}-dirty.fits", r.image, spec, ra, dec, history=hist, **common
            )
        )
        files.append(
            write_image_fits(
                out / f"{name}-error.fits",
                r.error,
                coarse,
                ra,
                dec,
                bunit="",
                history=hist,
                **common,
            )
        )
        kb = r.bound_step or k
        grid = spec.every(kb)
        on = "" if kb == k else f"; every {kb} pixels"
        maps = [("analytic", r.analytic, "analytic E(l,m): sup over record offsets")]
        if r.bound is not None:
            maps.append(("bound", r.bound, "bound (sum|wV|/sumw) E(l,m) / peak(I_dft)"))
        for kind, data, what in maps:
            if data is None:
                continue
            files.append(
                write_image_fits(
                    out / f"{name}-{kind}.fits",
                    data,
                    grid,
                    ra,
                    dec,
                    bunit="",
                    history={**hist, "map": what + on},
                    **common,
                )
            )
    files.append(write_metrics_json(cmp, out / "metrics.json", label))
    files.append(
        compare_report(cmp, out / "report.png", title=f"{label} — vs {cmp.reference_label}")
    )
    return files
