"""``uvlab image``'s CLEAN flags → the engine's one CLEAN options record.

The record is :class:`~uvlab.gpu.deconvolution.options.CleanOptions`.

argparse stays in ``app/commands``: :func:`clean_record` reads the flags into the lab's
:class:`~uvlab.app.lab.state.CleanRecord`, the record the window's Deconvolution tab
edits too (:func:`clean_options`: its options); :func:`check_options` words its
complaint with the flags' names.
"""

from __future__ import annotations

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
}


def clean_record(args) -> CleanRecord:
    """The CLEAN flags of ``args`` as a :class:`CleanRecord` (ValueError when unusable).

    ``--fits-mask`` is its mask file; ``--mask-box`` (pixels of the image written, which
    ``--size`` may crop) is read with it by :func:`uvlab.app.commands.clean_mask.output_mask`.
    """
    options = CleanOptions(
        deconvolver=args.deconvolver, niter=args.niter, gain=args.gain, mgain=args.mgain,
        threshold_jy=args.threshold_jy, auto_threshold=args.auto_threshold,
        auto_mask=getattr(args, "auto_mask", None),
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
            if msg.startswith(name + " ") or msg.startswith(name + " ("):
                return flag + msg[len(name) :]
        return msg
    return None
