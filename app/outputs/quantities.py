"""Quantities as uvlab's one-line reports write them (the window's and the CLI's alike)."""

from __future__ import annotations

import math


def format_jy(x: float) -> str:
    """A flux density in Jy as text in the unit that reads best, to 3 significant digits.

    ``2.5`` → ``"2.5 Jy"``, ``0.0123`` → ``"12.3 mJy"``, ``2.7e-05`` → ``"27 µJy"``;
    ``"n/a Jy"`` when ``x`` is not finite. Callers append ``/beam`` where it applies.
    """
    if not math.isfinite(x):
        return "n/a Jy"
    if abs(x) >= 1:
        return f"{x:.3g} Jy"
    if abs(x) >= 1e-3:
        return f"{1e3 * x:.3g} mJy"
    return f"{1e6 * x:.3g} µJy"
