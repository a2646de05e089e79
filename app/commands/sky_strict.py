"""``--strict`` for every command that reads a sky model, in one place.

Without it, what a sky reader approximates or ignores (a CASA disk as a
Gaussian, a WSClean column uvlab does not know, the first plane of a FITS
image sky, ...) is a one-line warning on stderr; with it, the same thing is a
data error (exit 1) before anything is written.
"""

from __future__ import annotations

import argparse

STRICT_HELP = (
    "refuse sky models with features uvlab would approximate or ignore (exit 1) instead of warning"
)


def add_strict_arg(p: argparse.ArgumentParser) -> None:
    """``--strict``."""
    p.add_argument("--strict", action="store_true", help=STRICT_HELP)


def sky_read_options(args) -> dict:
    """``load_sky``'s ``strict`` and ``report`` for these options (warnings on stderr)."""
    from uvlab.app.commands.ms_imaging import warn

    return {"strict": bool(getattr(args, "strict", False)), "report": lambda line: warn(args, line)}


def check_image_sky(args, sky) -> None:
    """Warn about an image sky's notes, or refuse them (SkyModelError) with ``--strict``."""
    from uvlab.app.commands.ms_imaging import warn
    from uvlab.app.skymodel import SkyModelError

    for note in getattr(sky, "notes", ()):
        if getattr(args, "strict", False):
            raise SkyModelError(f"{sky.name}: {note} (an approximation; refused with --strict)")
        warn(args, f"{sky.name}: {note}")
