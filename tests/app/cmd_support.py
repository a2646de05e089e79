"""Helpers for the command tests: run the CLI in-process, place sources on pixels.

``run_cli`` adds the commands under test to ``uvlab.app.cli.COMMANDS`` for
the duration of the call, so the tests do not depend on the list in cli.py.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from unittest import mock

import numpy as np

NEW_COMMANDS = ("simulate", "predict", "image", "compare")


def run_cli(*argv) -> tuple[int, str, str]:
    """``uvlab ARGV`` in this process: (exit code, stdout, stderr)."""
    import uvlab.app.cli as cli

    commands = tuple(dict.fromkeys((*cli.COMMANDS, *NEW_COMMANDS)))
    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.object(cli, "COMMANDS", commands),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def pixel_radec(ra0_deg: float, dec0_deg: float, cell_rad: float, di: int, dj: int):
    """(RA, Dec) in degrees of the direction on pixel offset (di, dj) from the centre.

    DESIGN §1 image axes: l = −di·cell, m = +dj·cell; the SIN projection
    inverted in float64 (written out here, independently of uvlab.gpu.geometry).
    """
    ra0, dec0 = np.radians(ra0_deg), np.radians(dec0_deg)
    l, m = -di * cell_rad, dj * cell_rad
    n = np.sqrt(1.0 - l * l - m * m)
    dec = np.arcsin(m * np.cos(dec0) + n * np.sin(dec0))
    ra = ra0 + np.arctan2(l, n * np.cos(dec0) - m * np.sin(dec0))
    return float(np.degrees(ra) % 360.0), float(np.degrees(dec))


def write_sky(path: Path, components) -> Path:
    """A uvlab v1 sky file of points: components are (name, ra, dec, I, Q, U, V)."""
    lines = ["# uvlab sky model v1"]
    for name, ra, dec, i, q, u, v in components:
        lines.append(f"{name} point {float(ra)!r} {float(dec)!r} {i} {q} {u} {v} 0.0 1.4e9 0 0 0")
    path.write_text("\n".join(lines) + "\n")
    return path


def peak_fit(img: np.ndarray, j: int, i: int) -> tuple[float, float]:
    """Sub-pixel (j, i) of an extremum at pixel (j, i): a parabola through 3 pixels per axis."""

    def vertex(a, b, c):
        den = a - 2 * b + c
        return 0.0 if den == 0 else 0.5 * (a - c) / den

    return (
        j + vertex(img[j - 1, i], img[j, i], img[j + 1, i]),
        i + vertex(img[j, i - 1], img[j, i], img[j, i + 1]),
    )
