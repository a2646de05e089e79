"""What ``uvlab image`` and ``uvlab compare`` share: selecting, reading and sizing an MS image.

The selection and imaging options, reading the selection through the lab's
MS source (after a memory check), and the image geometry chosen from the data.

Image geometry when not given:

- cell: ``default_cell_rad(uv_max)``, about a third of the finest fringe
  (``uv_max`` in wavelengths at the highest selected frequency);
- npix: when the ANTENNA table gives dish diameters D (median of those > 0),
  enough pixels to cover 1.5 × the primary-beam FWHM ≈ 1.02 λ/D at the lowest
  selected frequency (at most the whole sky, |l|, |m| ≤ 1), rounded up to an
  even 2·3·5-smooth size and clipped to [64, 4096]; otherwise 512. A derived
  cell is made finer when 64 pixels would reach past the horizon.
"""

from __future__ import annotations

import argparse
import math

from uvlab.app.commands import validate as V
from uvlab.app.commands.weighting_args import add_weighting_args
from uvlab.app.lab.imaging import DEFAULT_NPIX

NPIX_RANGE = (64, 4096)
FOV_BEAMS = 1.5


def add_selection_args(p: argparse.ArgumentParser) -> None:
    """--field, --spw, --column, --stokes, --channels."""
    g = p.add_argument_group("selection")
    g.add_argument("--field", default="0", help="field id or name (default 0)")
    g.add_argument(
        "--spw", type=spw_list, metavar="N[,N...]",
        help="spectral windows (default: every one of the field, imaged together as one "
        "multi-frequency-synthesis image, as WSClean and tclean specmode='mfs')",
    )  # fmt: skip
    g.add_argument("--column", default="DATA", help="DATA, CORRECTED_DATA or MODEL_DATA")
    g.add_argument(
        "--stokes",
        default="auto",
        help="I, Q, U, V or a correlation held (XX, RR, ...); default auto: I when the MS "
        "holds XX and YY, RR and LL, or I, else its first correlation (an XY-only MS "
        "images XY)",
    )
    g.add_argument(
        "--channels", type=channels_arg, metavar="A:B", help="channels A … B−1 (default all)"
    )
    g.add_argument(
        "--minuv-l", type=V.UV_LAMBDA, metavar="L",
        help="leave out samples with √(u²+v²) below L wavelengths (as WSClean's -minuv-l)",
    )  # fmt: skip
    g.add_argument(
        "--maxuv-l", type=V.UV_LAMBDA, metavar="L",
        help="leave out samples with √(u²+v²) above L wavelengths (as WSClean's -maxuv-l)",
    )  # fmt: skip
    add_row_selection_args(g)


def add_row_selection_args(g) -> None:
    """--timerange, --interval, --antenna and --phase-center (:mod:`uvlab.app.ms.rowselect`)."""
    when = g.add_mutually_exclusive_group()
    when.add_argument(
        "--timerange", metavar="T0~T1", type=timerange_arg,
        help="rows with T0 ≤ TIME ≤ T1, CASA syntax: YYYY/MM/DD/hh:mm:ss~hh:mm:ss, times of "
        "day on the MS's first day (09:14~09:54), >T0 or <T1 (UTC)",
    )  # fmt: skip
    when.add_argument(
        "--interval", type=nonnegative_int, nargs=2, metavar=("A", "B"), action=IntervalAction,
        help="timesteps A … B−1 of the field and window, from 0 (as WSClean's -interval)",
    )  # fmt: skip
    g.add_argument(
        "--antenna", metavar="LIST",
        help="CASA syntax: indices (from 0) or names, wildcards, A&B baselines, !A to leave "
        "out, e.g. '0,3,ea1*' or '!2'",
    )  # fmt: skip
    g.add_argument(
        "--phase-center", "--shift", dest="phase_center", nargs="+", metavar="COORD",
        type=str, action=PhaseCentreAction,
        help="re-phase to this J2000 centre (uvw rotated as CASA's phaseshift): degrees or "
        "12:34:56.7 -30:12:00 / 12h34m56.7s -30d12m00s; the image is centred on it",
    )  # fmt: skip


def spw_list(text: str) -> tuple[int, ...]:
    """``--spw`` type: ``"N[,N...]"`` → the windows, each an integer ≥ 0, without repeats."""
    out: list[int] = []
    for word in text.replace(" ", "").split(","):
        if not word.isdigit():
            raise argparse.ArgumentTypeError(
                f"{text!r}: expected window numbers from 0, e.g. 1 or 0,2"
            )
        if int(word) not in out:
            out.append(int(word))
    return tuple(out)


def timerange_arg(text: str) -> str:
    """``--timerange`` type: the text unchanged once its syntax is right (exit 2 if not).

    The times of day are placed on the MS's first day when it is read.
    """
    from uvlab.app.ms.rowselect import parse_timerange

    try:
        parse_timerange(text, 0.0)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def nonnegative_int(text: str) -> int:
    """An integer ≥ 0 (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is negative")
    return value


class IntervalAction(argparse.Action):
    """``--interval A B`` with A < B (a usage error otherwise)."""

    def __call__(self, parser, namespace, values, option_string=None):
        a, b = values
        if not a < b:
            parser.error(f"{option_string}: expected A < B (timesteps A … B−1), got {a} {b}")
        setattr(namespace, self.dest, (a, b))


def phase_centre_deg(text: str) -> tuple[float, float]:
    """(RA, Dec) degrees of ``"RA DEC"`` (an optional leading ``J2000``/``ICRS``)."""
    from uvlab.app.skymodel.angles import parse_angle

    parts = text.replace(",", " ").split()
    if parts and parts[0].upper() in ("J2000", "ICRS"):
        parts = parts[1:]
    if len(parts) != 2:
        example = "'150.05 30.03' or '10:00:12 +30:01:48'"
        raise ValueError(f"{text!r}: expected RA and Dec, e.g. {example}")
    ra, dec = parse_angle(parts[0], hours=True), parse_angle(parts[1], hours=False)
    if not -90.0 <= dec <= 90.0:
        raise ValueError(f"{text!r}: Dec {dec:g} deg is outside −90 … 90")
    return ra % 360.0, dec


class PhaseCentreAction(argparse.Action):
    """``--phase-center RA DEC`` (two words or one quoted string) → (RA, Dec) degrees."""

    def __call__(self, parser, namespace, values, option_string=None):
        try:
            setattr(namespace, self.dest, phase_centre_deg(" ".join(values)))
        except ValueError as exc:
            parser.error(f"{option_string}: {exc}")  # exit 2


def add_imaging_args(p: argparse.ArgumentParser) -> None:
    """Image size, weighting, gridder parameters, device and precision."""
    g = p.add_argument_group("imaging")
    g.add_argument("--npix", type=V.even_pixels, help="image side, pixels (default: from the data)")
    g.add_argument(
        "--cell-arcsec", type=V.CELL_ARCSEC, help="pixel size, arcsec (default: from the data)"
    )
    g.add_argument(
        "--scale",
        type=angle_arcsec,
        dest="cell_arcsec",
        metavar="ANGLE",
        help="pixel size with a unit, as WSClean's -scale: 2asec, 0.5amin, 0.001deg, 1e-5rad "
        "(the same as --cell-arcsec)",
    )
    add_weighting_args(g)
    g.add_argument("--kernel", choices=("es", "kb", "pswf", "gauss"), help="gridding kernel (GCF)")
    g.add_argument(
        "--eps",
        type=V.EPS,
        help="requested accuracy: ES kernel evaluated exactly, support from ε (default 1e-6 when "
        "no --support, --oversample or --lookup is given)",
    )
    g.add_argument("--support", type=V.SUPPORT, help="kernel support, cells")
    g.add_argument("--oversample", type=V.OVERSAMPLE, help="kernel table / uv grid oversampling β")
    g.add_argument(
        "--lookup",
        choices=("nearest", "linear"),
        help="how a kernel table (--support) is read: its nearest entry, or linear "
        "interpolation between two (error ~1/β² instead of ~1/β; default nearest)",
    )
    g.add_argument(
        "--wstack",
        action="store_true",
        help="correct the w-term (ducc: ducc0's w-gridder; every other gridder: w-stacking "
        "around its own gridding and degridding, in NumPy; on the GPU it runs on the host)",
    )
    g.add_argument("--device", choices=("auto", "cpu", "gpu"), default="auto")
    g.add_argument(
        "--precision",
        choices=("single", "double"),
        default="double",
        help="arithmetic precision: the GPU gridders grid in float32/complex64 with 'single' "
        "(the CPU gridders always use float64; default double)",
    )


#: Arcseconds per unit of an angle given with :func:`angle_arcsec` (WSClean's names, and CASA's).
ANGLE_UNITS = {
    "asec": 1.0, "arcsec": 1.0, '"': 1.0, "amin": 60.0, "arcmin": 60.0, "'": 60.0,
    "deg": 3600.0, "rad": math.degrees(1.0) * 3600.0, "mas": 1e-3,
}  # fmt: skip


def angle_arcsec(text: str) -> float:
    """An angle with a unit (``2asec``, ``0.5amin``, ``1e-3deg``) in arcsec; > 0 and finite.

    A bare number is arcsec, as ``--cell-arcsec``.
    """
    import re

    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([a-zA-Z\"']*)\s*", text)
    unit = m[2].lower() if m else None
    if m is None or (unit and unit not in ANGLE_UNITS):
        names = ", ".join(k for k in ANGLE_UNITS if k.isalpha())
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number and a unit ({names})")
    try:
        value = float(m[1]) * ANGLE_UNITS.get(unit, 1.0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: {m[1]!r} is not a number") from None
    if not (0 < value <= 180.0 * 3600.0):
        raise argparse.ArgumentTypeError(f"{text!r}: the angle must be > 0 and ≤ 180deg")
    return value


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
    """``uvlab CMD: warning: message`` as one line on stderr (over any progress bar).

    Through :mod:`logging` (and so into --log-file too); printed as before where the
    command runs without :func:`uvlab.app.runtime.logs.configure` (called directly).
    """
    import logging

    from uvlab.app.runtime.logs import configured

    if configured():
        logging.getLogger(__name__).warning("%s", message)
        return
    import sys

    command = getattr(args, "command", None) or "image"
    print(f"uvlab {command}: warning: {message}", file=sys.stderr)


#: The accuracy of the commands' gridding when no kernel flag is given (support 7 at σ = 2).
DEFAULT_EPS = 1e-6


def grid_params(args):
    """The :class:`~uvlab.gpu.gridders.params.GridParams` the options ask for.

    Without ``--eps``, ``--support``, ``--oversample`` or ``--lookup`` (and with the ES
    kernel) that is the exact ES kernel of ε = :data:`DEFAULT_EPS`, on every device.
    """
    from uvlab.gpu.gridders.params import GridParams

    given = {k: getattr(args, k, None) for k in ("kernel", "support", "oversample", "lookup")}
    given = {k: v for k, v in given.items() if v is not None}
    eps = args.eps
    if eps is None and not given.keys() - {"kernel"} and given.get("kernel", "es") == "es":
        eps = DEFAULT_EPS  # nothing said of the kernel: the exact ES kernel of ε = 1e-6
    given["precision"] = getattr(args, "precision", None) or "double"
    if getattr(args, "wstack", False):
        given["wstack"] = True
    if eps is not None:
        return GridParams.from_eps(eps, **given)
    return GridParams(**given)


#: The w-term's phase at the image corner (radians) above which ``uvlab image`` suggests --wstack.
WTERM_HINT_RAD = 0.5


def wterm_phase_rad(uvw_m, freq_hz, flag, spec) -> float:
    """The largest w-term phase 2π·|w|·(1 − n) at the image's corner, radians."""
    import numpy as np

    from uvlab.gpu.constants import C_LIGHT

    ok = ~np.asarray(flag).all(axis=1)
    if not ok.any():
        return 0.0
    w_max = float(np.abs(uvw_m[ok, 2]).max()) * float(np.max(freq_hz)) / C_LIGHT
    half = spec.npix / 2 * spec.cell_rad
    r2 = min(2.0 * half * half, 1.0)
    return 2.0 * np.pi * w_max * (1.0 - np.sqrt(1.0 - r2))


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
    lo, hi = getattr(args, "minuv_l", None), getattr(args, "maxuv_l", None)
    uvrange = None if lo is None and hi is None else (lo or 0.0, hi if hi is not None else None)
    return MSSelection(
        args.ms, V.field_arg(args.field), args.spw, args.column, args.stokes, channels, uvrange,
        timerange=getattr(args, "timerange", None),
        interval=getattr(args, "interval", None),
        antenna=getattr(args, "antenna", None),
        phase_centre=getattr(args, "phase_center", None),
    )  # fmt: skip


def check_read_memory(args, algorithms=None) -> float:
    """Refuse (exit 1) a read, and with ``--npix`` its image, that memory cannot hold.

    Every row of the MS at its largest window's channels is counted (the bound for one
    window, and for several read side by side). Returns the median dish diameter (m, 0
    when unknown).
    """
    from uvlab.app.runtime.memory import check_memory, imaging_estimate, read_estimate

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
    return dish


def read_selected(args, algorithms=None, progress=None, cache=None):
    """Check memory, then read the selection: returns (VisData, dish diameter, seconds).

    With ``--npix`` the imaging memory of each of ``algorithms`` (default
    ``args.algorithm``) is checked too, before anything is read. The read is
    the lab's MS source (:func:`uvlab.app.lab.ms_source.iter_measurement_set`),
    the window's; ``cache`` (a :class:`~uvlab.app.lab.samples.WorkCache`)
    keeps what was read for a job run on it next.
    """
    from uvlab.app.lab.imaging import ImagingOptions
    from uvlab.app.lab.jobs import JobRequest
    from uvlab.app.lab.sources import read_samples

    dish = check_read_memory(args, algorithms)
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
    from uvlab.gpu.image_spec import ImageSpec, cell_for_uvw

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


def row_selection_note(args, vd) -> str | None:
    """One line on the rows --timerange/--interval/--antenna kept, or None without them."""
    import numpy as np

    given = {k: getattr(args, k, None) for k in ("timerange", "interval", "antenna")}
    given = {k: v for k, v in given.items() if v}
    if not given:
        return None
    what = ", ".join(
        f"{k} {' '.join(map(str, v)) if isinstance(v, (list, tuple)) else v}"
        for k, v in given.items()
    )
    nant = np.unique(np.concatenate([vd.ant1, vd.ant2])).size
    return f"selected {vd.nrow} rows ({what}): {np.unique(vd.time).size} timesteps, {nant} antennas"


def fits_history(items: dict) -> dict:
    """History entries as printable ASCII (FITS cards allow nothing else)."""
    out = {}
    for key, value in items.items():
        text = " ".join(str(value).split())
        out[key] = text.encode("ascii", "replace").decode("ascii")
    return out
