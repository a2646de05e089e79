"""``uvlab image``'s CLEAN flags → the engine's one CLEAN options record.

The record is :class:`~uvlab.gpu.deconvolution.options.CleanOptions`.

argparse stays in ``app/commands``: :func:`clean_options` reads the flags into the one
options record the window's Deconvolution tab makes too; :func:`check_options` words its
complaint with the flags' names.
"""

from __future__ import annotations

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
}


def clean_options(args) -> CleanOptions:
    """The CLEAN flags of ``args`` as a :class:`CleanOptions` (ValueError when unusable)."""
    return CleanOptions(
        deconvolver=args.deconvolver, niter=args.niter, gain=args.gain, mgain=args.mgain,
        threshold_jy=args.threshold_jy, auto_threshold=args.auto_threshold,
        auto_mask=getattr(args, "auto_mask", None),
    )  # fmt: skip


def check_options(args) -> str | None:
    """A one-line complaint about the CLEAN flags, naming the flag, or None when usable."""
    try:
        clean_options(args)
    except ValueError as e:
        msg = str(e)
        for name, flag in FLAGS.items():
            if msg.startswith(name + " ") or msg.startswith(name + " ("):
                return flag + msg[len(name) :]
        return msg
    return None
