"""``uvlab image``'s CLEAN flags → the engine's one CLEAN options record.

The record is :class:`~uvlab.gpu.deconvolution.options.CleanOptions`.

argparse stays in ``app/commands``: :func:`clean_record` reads the flags into the lab's
:class:`~uvlab.app.lab.state.CleanRecord`, the record the window's Deconvolution tab
edits too (:func:`clean_options`: its options); :func:`check_options` words its
complaint with the flags' names.
"""

from __future__ import annotations

import argparse

from uvlab.app.lab.state import CleanRecord
from uvlab.gpu.deconvolution.options import CleanOptions

#: The record's field → the flag that sets it.
FLAGS = {
    "niter": "--niter",
    "gain": "--gain",
    "mgain": "--mgain",
    "threshold": "--threshold-jy",
    "auto-threshold": "--auto-threshold",
    "auto-mask": "--auto-mask",
    "deconvolver": "--deconvolver",
    "multiscale-scales": "--multiscale-scales",
    "multiscale-scale-bias": "--multiscale-scale-bias",
    "multiscale-small-scale-bias": "--multiscale-small-scale-bias",
    "channels-out": "--channels-out",
    "fit-spectral-pol": "--fit-spectral-pol",
}


def scale_list(text: str) -> tuple[float, ...]:
    """``--multiscale-scales 0,4,8,16``: pixel sizes, comma-separated (argparse type)."""
    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected pixel sizes separated by commas, such as 0,4,8,16, got {text!r}"
        ) from None


def add_multiscale_args(g) -> None:
    """WSClean's multiscale flags (:mod:`uvlab.gpu.deconvolution.multiscale`)."""
    g.add_argument(
        "--multiscale", action="store_true",
        help="multiscale CLEAN (WSClean's -multiscale), with Högbom or Cotton–Schwab",
    )  # fmt: skip
    g.add_argument(
        "--multiscale-scales", type=scale_list, metavar="S0,S1,…",
        help="scales in pixels, 0 a point (default as WSClean: 0, 2×beam, doubling to N/2)",
    )  # fmt: skip
    g.add_argument(
        "--multiscale-scale-bias", type=float, default=0.6, metavar="B",
        help="in (0, 1]; smaller favours larger scales (default 0.6)",
    )  # fmt: skip
    g.add_argument(
        "--multiscale-small-scale-bias", type=float, metavar="B",
        help="tclean's smallscalebias in [-1, 1]: choose scales and stop as tclean does "
        "(peaks as a component's flux, biases 1 - B*s/s_max; tclean's default 0)",
    )  # fmt: skip


def clean_opts_text(args) -> str:
    """The multiscale flags as the header's text."""
    if not getattr(args, "multiscale", False):
        return "off"
    scales = args.multiscale_scales
    sizes = "auto" if scales is None else ",".join(f"{s:g}" for s in scales)
    small = getattr(args, "multiscale_small_scale_bias", None)
    if small is not None:
        return f"scales={sizes} tclean smallscalebias={small:g}"
    return f"scales={sizes} bias={args.multiscale_scale_bias:g}"


def clean_record(args) -> CleanRecord:
    """The CLEAN flags of ``args`` as a :class:`CleanRecord` (ValueError when unusable).

    ``--fits-mask`` is its mask file; ``--mask-box`` (pixels of the image written, which
    ``--size`` may crop) is read with it by :func:`uvlab.app.commands.clean_mask.output_mask`.
    ``--channels-out N`` and ``--fit-spectral-pol K`` are its joined CLEAN's with
    ``--join-channels`` (else one channel, no fit: each output channel is CLEANed alone).
    """
    joined = bool(getattr(args, "join_channels", False))
    n = int(getattr(args, "channels_out", 1) or 1) if joined else 1
    options = CleanOptions(
        deconvolver=args.deconvolver, niter=args.niter, gain=args.gain, mgain=args.mgain,
        threshold_jy=args.threshold_jy, auto_threshold=args.auto_threshold,
        auto_mask=getattr(args, "auto_mask", None),
        multiscale=bool(getattr(args, "multiscale", False)),
        multiscale_scales=getattr(args, "multiscale_scales", None),
        multiscale_scale_bias=getattr(args, "multiscale_scale_bias", 0.6),
        multiscale_small_scale_bias=getattr(args, "multiscale_small_scale_bias", None),
        channels_out=n,
        fit_spectral_pol=getattr(args, "fit_spectral_pol", None) if n > 1 else None,
    )  # fmt: skip
    return CleanRecord(options, getattr(args, "fits_mask", None))


def clean_options(args) -> CleanOptions:
    """The CLEAN flags of ``args`` as a :class:`CleanOptions` (ValueError when unusable)."""
    return clean_record(args).options


def check_options(args) -> str | None:
    """A one-line complaint about the CLEAN flags, naming the flag, or None when usable."""
    try:
        clean_options(args)
    except ValueError as e:
        msg = str(e)
        for name, flag in FLAGS.items():
            if msg.startswith((name + " ", name + ":")):
                return flag + msg[len(name) :]
        return msg
    return None
