"""``uvlab image``: image one field, window and Stokes product of a MeasurementSet.

Writes ``PREFIX-dirty.fits``, ``PREFIX-psf.fits`` (DESIGN §1 WCS; the FITS
history holds every parameter), ``PREFIX-timing.json`` and a ``PREFIX.png``
preview.

Image geometry when not given:

- cell: ``default_cell_rad(uv_max)``, about a third of the finest fringe
  (``uv_max`` in wavelengths at the highest selected frequency);
- npix: when the ANTENNA table gives dish diameters D (median of those > 0),
  enough pixels to cover 1.5 × the primary-beam FWHM ≈ 1.02 λ/D at the lowest
  selected frequency (at most the whole sky, |l|, |m| ≤ 1), rounded up to an
  even 2·3·5-smooth size and clipped to [64, 4096]; otherwise 512. A derived
  cell is made finer when 64 pixels would reach past the horizon.

The selection is read by the lab's MS source and imaged by the lab's image
task (:func:`uvlab.app.lab.live.run_job` on the same work cache, as the window
images an MS); the request carries the geometry chosen here and the gridder
parameters as the options give them (:func:`image_request`).

Memory is checked before anything large is allocated (:mod:`uvlab.app.memory`):
the read and, with ``--npix``, the image before reading; the image again
once the number of samples is known. Disk space for all four outputs is
checked before the first is written, and each is written atomically
(:mod:`uvlab.app.atomic`): an existing file is replaced only by a complete one.

The options shared with ``uvlab compare`` come from :func:`add_selection_args`,
:func:`add_imaging_args` and the helpers below.
"""

from __future__ import annotations

import argparse
import json
import time

from uvlab.app.lab.imaging import DEFAULT_NPIX
from uvlab.gpu.gridders.registry import NAMES as ALGORITHM_NAMES

NPIX_RANGE = (64, 4096)
FOV_BEAMS = 1.5
#: The preview PNG: figure size (inches) and resolution.
PREVIEW_FIGSIZE, PREVIEW_DPI = (12, 5.4), 90


def add_selection_args(p: argparse.ArgumentParser) -> None:
    """--field, --spw, --column, --stokes, --channels."""
    g = p.add_argument_group("selection")
    g.add_argument("--field", default="0", help="field id or name (default 0)")
    g.add_argument("--spw", type=int, default=0, help="spectral window (default 0)")
    g.add_argument("--column", default="DATA", help="DATA, CORRECTED_DATA or MODEL_DATA")
    g.add_argument(
        "--stokes", default="I", help="I, Q, U, V or a correlation held (XX, RR, ...); default I"
    )
    g.add_argument(
        "--channels", type=channels_arg, metavar="A:B", help="channels A … B−1 (default all)"
    )


def add_imaging_args(p: argparse.ArgumentParser) -> None:
    """Image size, weighting, gridder parameters, device and precision."""
    g = p.add_argument_group("imaging")
    g.add_argument("--npix", type=int, help="image side, pixels (default: from the data)")
    g.add_argument("--cell-arcsec", type=float, help="pixel size, arcsec (default: from the data)")
    g.add_argument("--weighting", choices=("natural", "uniform", "briggs"), default="natural")
    g.add_argument("--robust", type=float, default=0.0, help="Briggs robust R (default 0)")
    g.add_argument("--taper-arcsec", type=float, default=0.0, help="Gaussian taper FWHM, arcsec")
    g.add_argument("--kernel", choices=("es", "kb", "pswf", "gauss"), help="gridding kernel (GCF)")
    g.add_argument(
        "--eps", type=float, help="requested accuracy: ES kernel evaluated exactly, support from ε"
    )
    g.add_argument("--support", type=int, help="kernel support, cells")
    g.add_argument("--oversample", type=int, help="kernel table / uv grid oversampling β")
    g.add_argument("--device", choices=("auto", "cpu", "gpu"), default="auto")
    g.add_argument(
        "--precision",
        choices=("single", "double"),
        default="double",
        help="arithmetic precision: the GPU gridders grid in float32/complex64 with 'single' "
        "(the CPU gridders always use float64; default double)",
    )


def parse_channels(text: str | None):
    """``"A:B"`` → ``(A, B)``; None → None."""
    if text is None:
        return None
    try:
        a, b = text.split(":")
        return int(a) if a.strip() else 0, int(b) if b.strip() else None
    except ValueError:
        raise ValueError(f"--channels {text!r}: expected A:B, e.g. 0:16") from None


def channels_arg(text: str) -> str:
    """``--channels`` type: the text unchanged once :func:`parse_channels` accepts it.

    A malformed value is a usage error (exit 2) before anything is read.
    """
    try:
        parse_channels(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected A:B, e.g. 0:16") from None
    return text


def warn(args, message: str) -> None:
    """Print ``uvlab CMD: warning: message`` as one line on stderr (over any progress bar)."""
    import sys

    try:
        erase = "\r\x1b[K" if sys.stderr.isatty() else ""  # start of a progress bar's line
    except (AttributeError, ValueError):
        erase = ""
    command = getattr(args, "command", None) or "image"
    print(f"{erase}uvlab {command}: warning: {message}", file=sys.stderr)


def grid_params(args):
    """The :class:`~uvlab.gpu.gridders.params.GridParams` the options ask for."""
    from uvlab.gpu.gridders.params import GridParams

    given = {k: getattr(args, k) for k in ("kernel", "support", "oversample")}
    given = {k: v for k, v in given.items() if v is not None}
    given["precision"] = getattr(args, "precision", None) or "double"
    if args.eps is not None:
        return GridParams.from_eps(args.eps, **given)
    return GridParams(**given)


def weighting(args):
    """The :class:`~uvlab.gpu.imaging.weighting.Weighting` the options ask for."""
    from uvlab.gpu.imaging.weighting import Weighting

    return Weighting(args.weighting, args.robust, args.taper_arcsec)


def field_arg(text: str):
    return int(text) if text.strip().lstrip("-").isdigit() else text


def ms_size(path) -> tuple[int, int, float]:
    """(rows, channels of the largest window, median dish diameter in m or 0) of an MS."""
    import numpy as np

    from uvlab.app.ms.metadata import read_spws
    from uvlab.app.ms.tables import MSTables, translated

    with MSTables(path) as ms:
        spws = read_spws(ms)
        ant = ms.sub("ANTENNA")
        with translated(ms.path):
            nrow = ms.main.nrows()
            dish = ant.getcol("DISH_DIAMETER") if "DISH_DIAMETER" in ant.colnames() else []
    dish = np.asarray(dish, dtype=float)
    dish = dish[np.isfinite(dish) & (dish > 0)]
    return (
        nrow,
        max((s.nchan for s in spws), default=0),
        float(np.median(dish)) if dish.size else 0.0,
    )


def ms_selection(args):
    """The :class:`~uvlab.app.lab.jobs.MSSelection` of ``--ms`` and the selection options."""
    from uvlab.app.lab.jobs import MSSelection

    channels = parse_channels(args.channels)
    return MSSelection(args.ms, field_arg(args.field), args.spw, args.column, args.stokes, channels)


def read_selected(args, algorithms=None, progress=None, cache=None):
    """Check memory, then read the selection: returns (VisData, dish diameter, seconds).

    With ``--npix`` the imaging memory of each of ``algorithms`` (default
    ``args.algorithm``) is checked too, before anything is read. The read is
    the lab's MS source (:func:`uvlab.app.lab.sources.iter_measurement_set`),
    the window's; ``cache`` (a :class:`~uvlab.app.lab.samples.WorkCache`)
    keeps what was read for a job run on it next.
    """
    from uvlab.app.lab.imaging import ImagingOptions
    from uvlab.app.lab.jobs import JobRequest
    from uvlab.app.lab.sources import read_samples
    from uvlab.app.memory import check_memory, imaging_estimate, read_estimate

    nrow, nchan, dish = ms_size(args.ms)
    est = read_estimate(nrow, nchan)
    if args.npix:
        names = algorithms or [args.algorithm]
        params = grid_params(args)
        est = est + max(
            (imaging_estimate(args.npix, a, params, nvis=nrow * nchan) for a in names),
            key=lambda e: e.total,
        )
    what = f"a {args.npix}² image of" if args.npix else "reading"
    check_memory(est, f"{what} {args.ms} ({nrow} rows × {nchan} channels)")
    request = JobRequest(
        "ms",
        ImagingOptions(npix=args.npix or DEFAULT_NPIX, cell_arcsec=args.cell_arcsec),
        args.device,
        ms=ms_selection(args),
        preview=False,
        threads=0,
    )
    samples = read_samples(request, cache, progress=progress, warn=lambda line: warn(args, line))
    return samples.raw, dish, samples.timing.get("read MS", 0.0)


def image_request(args, spec):
    """The lab's ``image`` job for these options, on the geometry ``spec`` chosen from the data.

    The gridder parameters go as given (:func:`grid_params`; for the DFT, which
    reads none, only the precision): the imaging record
    :class:`~uvlab.app.lab.imaging.ImagingOptions` cannot say all of them (a
    support with ``--eps``, the gridding precision), so the request carries them
    as its ``params``, and ``spec`` as its exact geometry.
    """
    from uvlab.app.lab.imaging import ImagingOptions
    from uvlab.app.lab.jobs import JobRequest
    from uvlab.gpu.gridders.params import GridParams

    options = ImagingOptions(
        npix=spec.npix,
        cell_arcsec=spec.cell_arcsec,
        weighting=args.weighting,
        robust=args.robust,
        taper_arcsec=args.taper_arcsec,
        algorithm=args.algorithm,
    )
    if args.algorithm == "dft":
        params = GridParams(precision=getattr(args, "precision", None) or "double")
    else:
        params = grid_params(args)
    return JobRequest(
        "ms",
        options,
        args.device,
        ms=ms_selection(args),
        preview=False,
        threads=0,
        spec=spec,
        params=params,
    )


def choose_geometry(uvw, freq_hz, flag, dish_m: float, npix=None, cell_arcsec=None):
    """(ImageSpec, how it was chosen) for (row, 3) uvw in metres and (row, chan) flags.

    See the module docstring. The field never extends past the horizon: when
    1.5 × FWHM exceeds the whole sky (|l|, |m| ≤ 1) the field is the whole
    sky, and a cell derived from the data is made finer where the minimum
    image size would otherwise reach past it.
    """
    import numpy as np

    from uvlab.gpu.constants import C_LIGHT
    from uvlab.gpu.gridders.params import good_size
    from uvlab.gpu.imaging.spec import ImageSpec, cell_for_uvw

    cell = cell_for_uvw(uvw[~np.all(flag, axis=1)], freq_hz, cell_arcsec)
    if npix is not None:
        return ImageSpec(int(npix), cell), "given"
    if not dish_m > 0:
        return ImageSpec(DEFAULT_NPIX, cell), "default (no dish diameter in the MS)"
    fwhm = 1.02 * C_LIGHT / freq_hz.min() / dish_m
    fov = min(FOV_BEAMS * fwhm, 2.0)
    n = int(min(max(good_size(fov / cell), NPIX_RANGE[0]), NPIX_RANGE[1]))
    rule = f"{FOV_BEAMS} x primary-beam FWHM (1.02 lambda/D, D = {dish_m:g} m)"
    if fov == 2.0:
        rule = f"whole sky (1.5 x FWHM = {FOV_BEAMS * fwhm:.2f} > 2; D = {dish_m:g} m)"
    if cell_arcsec is None and n * cell > 2.0:
        cell = 2.0 / n
    return ImageSpec(n, cell), rule


def fits_history(items: dict) -> dict:
    """History entries as printable ASCII (FITS cards allow nothing else)."""
    out = {}
    for key, value in items.items():
        text = " ".join(str(value).split())
        out[key] = text.encode("ascii", "replace").decode("ascii")
    return out


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
        default="conv",
        choices=ALGORITHM_NAMES,
    )
    p.add_argument("--out", required=True, metavar="PREFIX", help="output file prefix")
    p.set_defaults(func=run, parser=p)


def run(args) -> int:
    from pathlib import Path

    import numpy as np

    from uvlab.app.fits_io import write_image_fits
    from uvlab.app.lab.live import run_job
    from uvlab.app.lab.samples import WorkCache
    from uvlab.app.memory import check_memory, imaging_estimate
    from uvlab.app.progress import progress_bar

    if args.npix is not None and (args.npix < 2 or args.npix % 2):
        args.parser.error(f"--npix must be an even number ≥ 2, got {args.npix}")  # exit 2
    params = grid_params(args) if args.algorithm != "dft" else None
    wt = weighting(args)
    cache = WorkCache()  # the read, kept for the image job
    with progress_bar("read") as bar:
        vd, dish, t_read = read_selected(args, progress=bar, cache=cache)
    spec, rule = choose_geometry(vd.uvw, vd.freq_hz, vd.flag, dish, args.npix, args.cell_arcsec)
    nvis = int(np.count_nonzero(~vd.flag))
    check_memory(
        imaging_estimate(spec.npix, args.algorithm, params, nvis=nvis),
        f"a {spec.npix}² image with {args.algorithm}",
    )
    res = run_job(image_request(args, spec), cache)  # the lab's image task, the window's
    prefix = Path(args.out)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    check_outputs_space(prefix, spec.npix)
    ra, dec = np.degrees(vd.ra0_rad) % 360.0, np.degrees(vd.dec0_rad)
    history = fits_history(
        {
            "command": "image",
            "ms": vd.path,
            "field": f"{vd.field} {vd.field_name}",
            "spw": vd.spw,
            "column": vd.column,
            "stokes": vd.stokes,
            "channels": f"{args.channels or 'all'} ({vd.nchan} used)",
            "npix": spec.npix,
            "npix_rule": rule,
            "cell_arcsec": f"{spec.cell_arcsec:.6g}",
            "sigma": params.sigma if params is not None else None,
            "weighting": f"{wt.scheme} robust={wt.robust} taper_arcsec={wt.taper_arcsec}",
            "algorithm": args.algorithm,
            "params": params,
            "device": res.device,
            "precision": args.precision,
            "nvis": res.nvis,
            "sum_weights": f"{res.sum_weights:.6g}",
            "weight_source": vd.weight_source,
        }
    )
    common = dict(
        freq_hz=float(vd.freq_hz.mean()),
        stokes=vd.stokes,
        history=history,
        bandwidth_hz=float(vd.chan_width_hz * vd.nchan),
    )
    t0 = time.perf_counter()
    files = [
        write_image_fits(f"{prefix}-dirty.fits", res.dirty, spec, ra, dec, **common),
        write_image_fits(f"{prefix}-psf.fits", res.psf, spec, ra, dec, **common),
        preview(res, spec, vd, f"{prefix}.png"),
    ]
    timing = {"read MS": t_read, **res.timing, "write": time.perf_counter() - t0}
    files.append(write_timing(f"{prefix}-timing.json", timing, res, spec, passes=2))
    print(
        f'{args.algorithm} {spec.npix}² × {spec.cell_arcsec:.3g}" ({rule}), '
        f"{res.nvis} visibilities, Stokes {vd.stokes}, device {res.device}; "
        f"peak {res.dirty.max():.4g} Jy/beam"
    )
    for f in files:
        print(f"wrote {f}")
    return 0


def check_outputs_space(prefix, npix: int) -> None:
    """Refuse (InsufficientSpaceError) before writing when the disk cannot hold all outputs."""
    from uvlab.app.atomic import png_size_bound
    from uvlab.app.diskspace import check_space
    from uvlab.app.fits_io import image_fits_bytes

    width, height = (round(s * PREVIEW_DPI) for s in PREVIEW_FIGSIZE)
    need = 2 * image_fits_bytes(npix) + png_size_bound(width, height) + 2**16
    check_space(f"{prefix}-dirty.fits", need, "the 2 FITS images, the PNG and the JSON")


def write_timing(path, timing: dict, res, spec, passes: int):
    """JSON: stage → seconds, total, and the gridding rate (records gridded / grid seconds).

    ``passes`` is how many times the samples were gridded (dirty and PSF: 2).
    """
    from uvlab.app.atomic import write_text

    grid = float(timing.get("grid", 0.0))
    records = int(res.nvis) * passes
    out = {
        "algorithm": res.algorithm,
        "device": res.device,
        "npix": spec.npix,
        "cell_arcsec": spec.cell_arcsec,
        "nvis": int(res.nvis),
        "grid_passes": passes,
        "timing_s": {k: float(v) for k, v in timing.items()},
        "total_s": float(sum(timing.values())),
        "rate_vis_per_s": records / grid if grid > 0 else None,
    }
    return write_text(path, json.dumps(out, indent=2))


def preview(res, spec, vd, path):
    """PNG: dirty image and PSF side by side."""
    from pathlib import Path

    from uvlab.app.report import pyplot, save_figure, show

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=PREVIEW_FIGSIZE)
    fig.subplots_adjust(left=0.06, right=0.95, bottom=0.1, top=0.88, wspace=0.3)
    for ax, img, title, cmap in (
        (axes[0], res.dirty, f"dirty, Stokes {vd.stokes} ({res.algorithm})", "inferno"),
        (axes[1], res.psf, "PSF", "viridis"),
    ):
        im = show(ax, img, spec, title, cmap=cmap)
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="Jy/beam")
    fig.suptitle(f"{Path(vd.path).name}: field {vd.field_name}, spw {vd.spw}, {vd.column}")
    try:
        return save_figure(fig, path, dpi=PREVIEW_DPI)
    finally:
        plt.close(fig)
