"""The MS selection and imaging options of ``uvlab image`` and ``uvlab compare``.

Their parsers (argparse types and actions: spectral windows, time ranges, intervals, a
phase centre, angles with units, channel ranges) and the groups of options
(:func:`add_selection_args`, :func:`add_imaging_args`); what the options select and
read is :mod:`uvlab.app.commands.ms_imaging`.
"""

from __future__ import annotations

import argparse
import math

from uvlab.app.commands import validate as V
from uvlab.app.commands.weighting_args import add_weighting_args


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
    g.add_argument(
        "--wprojplanes",
        type=V.WPROJPLANES,
        metavar="N",
        help="correct the w-term by w-projection with N w-planes (conv only, on the host; "
        "tclean's gridder='wproject'): -1 chooses N as tclean does, 1 is the flat image; "
        "its kernels are cut at --eps (default 1e-3)",
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


def w_correction_complaint(args, algorithms) -> str | None:
    """A one-line complaint about ``--wprojplanes`` with these algorithms, or None.

    W-projection is offered by the catalogue's algorithms with ``w_projection``
    (``conv``; :meth:`~uvlab.gpu.gridders.registry.Algorithm.check` decides) and
    corrects the w-term on its own: not with ``--wstack``.
    """
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.gridders.registry import algorithm

    planes = getattr(args, "wprojplanes", None)
    if not planes:
        return None
    if getattr(args, "wstack", False):
        return "--wprojplanes does not combine with --wstack: choose one w-correction"
    for name in algorithms:
        try:
            algorithm(name).check(GridParams(wprojplanes=planes))
        except ValueError:
            return (f"--wprojplanes: w-projection is conv's, not {name}'s "
                    "(every gridder corrects the w-term with --wstack)")  # fmt: skip
    return None
