"""A small spectral MS for the ``--channels-out`` tests: VLA D, 8 channels of 100 MHz from 1 GHz.

Point sources sit on pixels of a 64² image of 12″ cells about (150°, 30°):
``(name, di, dj, I, α at 1.4 GHz)`` with ``l = −di·cell``, ``m = dj·cell``; ``I`` may
be an ``(I, Q, U, V)`` tuple, every parameter with the spectral index α.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.support.cli import run_cli
from tests.support.oracles import pixel_radec

RA0, DEC0, NPIX, CELL_ARCSEC = 150.0, 30.0, 64, 12.0
CELL = np.radians(CELL_ARCSEC / 3600)
F0, DF, NCHAN = 1.0e9, 1.0e8, 8
IMAGE = ("--npix", NPIX, "--cell-arcsec", CELL_ARCSEC, "--eps", "1e-7", "--device", "cpu")


def simulate_cube(folder: Path, sources, *extra) -> Path:
    """``uvlab simulate`` of ``sources`` into ``folder/cube.ms`` (``extra``: more flags)."""
    lines = ["# uvlab sky model v1"]
    for name, di, dj, flux, alpha in sources:
        ra, dec = pixel_radec(RA0, DEC0, CELL, di, dj)
        iquv = " ".join(str(f) for f in (flux if np.ndim(flux) else (flux, 0, 0, 0)))
        lines.append(f"{name} point {ra!r} {dec!r} {iquv} {alpha} 1.4e9 0 0 0")
    (folder / "sky.txt").write_text("\n".join(lines) + "\n")
    out = folder / "cube.ms"
    code, _, err = run_cli(
        "simulate", "--array", "vla.d", "--ra", RA0, "--dec", DEC0, "--ha-start", -1,
        "--ha-stop", 1, "--int-s", 600, "--nchan", NCHAN, "--freq-hz", F0,
        "--chan-width-hz", DF, "--sky", folder / "sky.txt", "--no-smearing",
        "--device", "cpu", *extra, "--out", out,
    )  # fmt: skip
    assert code == 0, err
    return out


def read_fits(path):
    """(image, header) of a FITS image uvlab wrote."""
    from uvlab.app.outputs.fits_io import read_image_fits

    return read_image_fits(str(path))
