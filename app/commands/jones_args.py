"""Command-line options of the Jones terms: primary beams, antenna gains, radiometer noise.

Shared by ``uvlab simulate`` and ``uvlab predict`` (:func:`add_jones_args`); turned into
a :class:`uvlab.app.instrument.jones.JonesOptions` by :func:`jones_options`. Bad values are usage
errors (exit 2, one line); a beam cube or gains table that cannot be used is a data
error naming the file (exit 1), raised before anything is written.
"""

from __future__ import annotations

import argparse

from uvlab.app.commands.validate import non_negative, number, positive
from uvlab.app.skymodel.limits import MAX_GAIN_AMP_RMS, MAX_NOISE_JY


def _beam(text: str) -> str:
    """argparse type: none, airy, gaussian, cos3, a FITS file name or a pattern of them.

    A pattern (``beam_$(corr)_$(reim).fits``, :mod:`uvlab.app.instrument.beam_pattern`) names one
    FITS file per Jones element and real/imaginary part: a polarised beam.
    """
    low = text.lower()
    if low in ("none", "airy", "gaussian", "cos3"):
        return low
    if not low.endswith((".fits", ".fit", ".fts")):
        raise argparse.ArgumentTypeError(
            f"expected none, airy, gaussian, cos3, a FITS beam cube or a pattern such as "
            f"'beam_$(corr)_$(reim).fits', got {text!r}"
        )
    from uvlab.app.instrument.beam_pattern import is_pattern, pattern_filenames

    if is_pattern(text):
        from uvlab.app.instrument.beam_cube import BeamCubeError

        try:
            pattern_filenames(text, "linear")
        except BeamCubeError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_jones_args(p: argparse.ArgumentParser, *, noise: bool = True) -> None:
    """The primary-beam, gain (and, with ``noise``, SEFD) options of ``p``."""
    g = p.add_argument_group("primary beam and antenna gains (docs/conventions.md)")
    g.add_argument(
        "--primary-beam",
        type=_beam,
        default="none",
        metavar="{none,airy,gaussian,cos3,FILE.fits,PATTERN}",
        help="primary beam of every antenna: an analytic model from the dish diameter, "
        "a FITS beam cube (l, m, freq), or a polarised beam: a pattern such as "
        "'beam_$(corr)_$(reim).fits' naming one cube per Jones element (xx, xy, yx, yy or "
        "rr, rl, lr, ll) and part (re, im); cubes are rotated by the parallactic angle "
        "(default none)",
    )
    g.add_argument(
        "--dish-diameter-m", type=positive, metavar="D",
        help="dish diameter of every antenna, metres (default: the layout's)",
    )  # fmt: skip
    g.add_argument(
        "--gaussian-beam-k", type=positive, default=1.029, metavar="K",
        help="--primary-beam gaussian: power FWHM = K·λ/D (default 1.029, the Airy disk's)",
    )  # fmt: skip
    g.add_argument(
        "--gain-amp-rms", type=number(0.0, MAX_GAIN_AMP_RMS), default=0.0, metavar="A",
        help="random antenna gains: RMS of the fractional amplitude error (e.g. 0.05)",
    )  # fmt: skip
    g.add_argument(
        "--gain-phase-rms-deg", type=non_negative, default=0.0, metavar="P",
        help="random antenna gains: RMS of the phase error, degrees",
    )  # fmt: skip
    g.add_argument(
        "--gain-corr-time-s", type=non_negative, default=3600.0, metavar="T",
        help="correlation time of the random gains, seconds (default 3600; 0: independent)",
    )  # fmt: skip
    g.add_argument("--gain-seed", type=int, metavar="N", help="random seed of the gains")
    g.add_argument(
        "--gains", metavar="FILE",
        help="antenna gains from a table: antenna, time, freq_hz, amp, phase_deg[, feed]",
    )  # fmt: skip
    g.add_argument(
        "--feed-rotation", action="store_true",
        help="P-Jones: turn the feeds of the alt-az dishes by the parallactic angle plus "
        "the receptor angle, as real data have it (predict: each antenna's MOUNT, alt-az or "
        "equatorial, and FEED::RECEPTOR_ANGLE from the MS; polarised predicts; default "
        "off: the data look as after a parallactic-angle correction)",
    )  # fmt: skip
    if noise:
        g.add_argument(
            "--sefd-jy", type=number(0.0, MAX_NOISE_JY, open_lo=True, unit="Jy"), metavar="S",
            help="thermal noise from the radiometer equation: σ = S/√(2·Δν·Δt) per real and "
            "imaginary part (instead of --noise-jy)",
        )  # fmt: skip


def jones_options(args):
    """The :class:`~uvlab.app.instrument.jones.JonesOptions` of the parsed options."""
    from uvlab.app.instrument.jones import JonesOptions
    from uvlab.app.runtime.errors import UsageError

    random = args.gain_amp_rms > 0 or args.gain_phase_rms_deg > 0
    if args.gains and random:
        raise UsageError("--gains and --gain-amp-rms/--gain-phase-rms-deg exclude each other")
    return JonesOptions(
        primary_beam=args.primary_beam,
        dish_diameter_m=args.dish_diameter_m,
        gaussian_k=args.gaussian_beam_k,
        gain_amp_rms=args.gain_amp_rms,
        gain_phase_rms_deg=args.gain_phase_rms_deg,
        gain_corr_time_s=args.gain_corr_time_s,
        gain_seed=args.gain_seed,
        gains_file=args.gains,
        feed_rotation=bool(getattr(args, "feed_rotation", False)),
    )


def noise_sigma(args, chan_width_hz: float, int_s: float) -> float:
    """σ per real/imaginary part: ``--noise-jy``, or the radiometer equation of ``--sefd-jy``."""
    from uvlab.app.runtime.errors import UsageError
    from uvlab.gpu.predict.noise import radiometer_sigma

    sefd = getattr(args, "sefd_jy", None)
    if sefd is None:
        return float(getattr(args, "noise_jy", 0.0) or 0.0)
    if getattr(args, "noise_jy", 0.0):
        raise UsageError("--sefd-jy and --noise-jy exclude each other")
    return radiometer_sigma(sefd, chan_width_hz, int_s)
