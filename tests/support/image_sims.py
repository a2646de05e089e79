"""The MeasurementSets ``uvlab image``'s tests image (tests/app/commands/test_image*.py):
three sources of known Stokes at pixel offsets from the phase centre."""

from __future__ import annotations

import numpy as np

from tests.support.cli import run_cli, write_sky
from tests.support.oracles import pixel_radec

RA0, DEC0, NPIX, CELL_ARCSEC = 150.0, 30.0, 128, 12.0
CELL = np.radians(CELL_ARCSEC / 3600)
#: (name, di, dj, I, Q, U, V): pixel offsets from the centre (l = −di·cell, m = dj·cell).
SOURCES = [
    ("a", 9, -6, 1.0, 0.0, 0.0, 0.0),
    ("b", -14, 11, 2.0, 0.4, -0.3, 0.2),
    ("c", 20.4, 17.7, 0.8, 0.0, 0.0, 0.0),  # between pixels: position only
]


def simulate_sources(folder, feeds):
    """:data:`SOURCES` observed by VLA-D with ``feeds`` (linear or circular), 2 channels."""
    comps = [(n, *pixel_radec(RA0, DEC0, CELL, di, dj), *iquv) for n, di, dj, *iquv in SOURCES]
    sky = write_sky(folder / "sky.txt", comps)
    out = folder / f"{feeds}.ms"
    code, _, err = run_cli(
        "simulate",
        "--array",
        "vla.d",
        "--ra",
        RA0,
        "--dec",
        DEC0,
        "--ha-start",
        -2,
        "--ha-stop",
        2,
        "--int-s",
        300,
        "--nchan",
        2,
        "--sky",
        sky,
        "--no-smearing",
        "--feeds",
        feeds,
        "--device",
        "cpu",
        "--out",
        out,
    )
    assert code == 0, err
    return out
