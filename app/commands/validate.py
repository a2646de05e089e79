"""argparse ``type=`` validators: a bad option value is a usage error naming the flag.

argparse reports a validator's :class:`argparse.ArgumentTypeError` as
``argument --flag: MESSAGE``; :class:`uvlab.app.cli.OneLineParser` makes it one
line with exit status 2, before anything is read or computed. The ranges are
those the engine accepts (:class:`uvlab.gpu.gridders.params.GridParams`,
:class:`uvlab.gpu.imaging.weighting.Weighting`,
:class:`uvlab.app.observing.observation.ObservationSpec`) and the physical caps of
:mod:`uvlab.app.skymodel.limits`; docs/cli.md lists them.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

#: ``--niter``: at most this many CLEAN iterations (WSClean runs use ≤ 1e7).
MAX_NITER = 100_000_000
#: Image side (``--npix``, the larger of ``--size W H``): at least this many pixels.
MIN_NPIX = 16


def _float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def _int(text: str) -> int:
    """An integer, ``1e6`` read as 1000000 (a whole number)."""
    try:
        return int(text)
    except ValueError:
        pass
    value = _float(text)
    if not value.is_integer():
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    return int(value)


def number(
    lo: float | None = None,
    hi: float | None = None,
    *,
    open_lo: bool = False,
    open_hi: bool = False,
    integer: bool = False,
    unit: str = "",
) -> Callable[[str], float]:
    """An argparse type: a finite number in ``[lo, hi]`` (``open_*``: the end excluded).

    The message names the bound broken: ``expected a number ≥ 0, got '-1'``.
    """
    unit = f" {unit}" if unit else ""

    def parse(text: str):
        kind = "a whole number" if integer else "a number"
        try:
            value = _int(text) if integer else _float(text)
        except argparse.ArgumentTypeError as exc:
            if not integer or lo is None or "whole" not in str(exc):
                raise
            bound = f"{'>' if open_lo else '≥'} {lo:g}"  # '2.5' for a count: say which
            msg = f"expected {kind} {bound}{unit}, got {text!r}"
            raise argparse.ArgumentTypeError(msg) from None
        if lo is not None and not (value > lo if open_lo else value >= lo):
            bound = f"{'>' if open_lo else '≥'} {lo:g}"
        elif hi is not None and not (value < hi if open_hi else value <= hi):
            bound = f"{'<' if open_hi else '≤'} {hi:g}"
        else:
            return value
        raise argparse.ArgumentTypeError(f"expected {kind} {bound}{unit}, got {text!r}")

    parse.__name__ = "integer" if integer else "number"
    return parse


#: argparse types shared by several commands: a number > 0, a number ≥ 0.
positive = number(0.0, open_lo=True)
non_negative = number(0.0)


def iso_date(what: str, date_only: bool) -> Callable[[str], str]:
    """An argparse type: a valid UTC date (``--date``) or date/time (``--start``)."""

    def parse(text: str) -> str:
        from uvlab.app.observing.observation import _parse_time

        try:
            _parse_time(text, what, date_only=date_only)
        except ValueError as exc:
            message = str(exc).replace(f"{what} ", "", 1)
            raise argparse.ArgumentTypeError(message) from None
        if date_only and "T" in text:
            raise argparse.ArgumentTypeError(f"{text!r}: expected a date such as '2025-03-20'")
        return text

    parse.__name__ = "date"
    return parse


#: Validators by meaning, shared by the commands.
CELL_ARCSEC = number(0.0, 180.0 * 3600.0, open_lo=True, unit="arcsec")
ROBUST = number(-2.0, 2.0)
TAPER_ARCSEC = number(0.0, 180.0 * 3600.0, unit="arcsec")
DENSITY_PADDING = number(1.0, 4.0)
#: ``--super-weight``: WSClean's, ≥ 1 (the density cells that many times coarser).
SUPER_WEIGHT = number(1.0)
#: ``--weighting-rank-filter-size``: WSClean's window, in cells (Weighting's bounds).
RANK_FILTER_SIZE = number(2, 1 << 16, integer=True, unit="cells")


def _rank_filter_level(text: str) -> float:
    """``--weighting-rank-filter``: 0 (off) or a level ≥ 1 (WSClean ignores lower ones)."""
    value = non_negative(text)
    if 0 < value < 1:
        msg = f"expected 0 (off) or a number ≥ 1 (WSClean ignores levels below 1), got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


_rank_filter_level.__name__ = "number"
#: ``--weighting-rank-filter``.
RANK_FILTER = _rank_filter_level
EPS = number(0.0, 1.0, open_lo=True, open_hi=True)
SUPPORT = number(1, 32, integer=True, unit="cells")
OVERSAMPLE = number(1, 4096, integer=True)
#: ``--wprojplanes``: −1 (tclean's automatic count) or a count of w-planes; 0 is off.
WPROJPLANES = number(-1, 100_000, integer=True)
NITER = number(0, MAX_NITER, integer=True)
RA_DEG = number(-360.0, 360.0, unit="deg")
DEC_DEG = number(-90.0, 90.0, unit="deg")
UV_LAMBDA = number(0.0, None, unit="wavelengths")


def even_pixels(text: str) -> int:
    """An argparse type: an even whole number of pixels ≥ 2."""
    try:
        value = _int(text)
    except argparse.ArgumentTypeError:
        value = 0
    if value < 2 or value % 2:
        raise argparse.ArgumentTypeError(f"{text!r}: expected an even number of pixels ≥ 2")
    return value


def check_image_side(parser, npix: int | None, support: int | None, flag: str) -> None:
    """A usage error (exit 2) when an ``npix``² image is too small for the kernel.

    The gridders need the grid's half side to exceed half the kernel support, on a
    grid as small as the image (σ = 1): ``npix ≥ support + 2``, and uvlab images at
    least :data:`MIN_NPIX` pixels a side.
    """
    if npix is None:
        return
    need = max(MIN_NPIX, (support or 7) + 2)
    need += need % 2
    if npix < need:
        parser.error(f"{flag}: an image of {npix} pixels is too small: need at least {need}")


def field_arg(text: str):
    """``--field``'s value: a FIELD row number (digits) or a field name."""
    return int(text) if text.strip().lstrip("-").isdigit() else text
