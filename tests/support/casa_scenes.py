"""MeasurementSets shared by the tclean comparisons and the tests that pin what they showed.

- :func:`polarised_ms`: two polarised points on pixels, VLA C, linear or circular feeds;
- :func:`extended_ms`: issue 29's extended field (a 2 Jy Gaussian of 150″ × 90″, points
  of 1 Jy, 0.5 Jy and 10 mJy) with thermal noise, VLA C.

Both are simulated with ``uvlab simulate`` (no smearing, no feed rotation) at RA 150°,
Dec 30°, 1.4 GHz, and imaged at 4″ cells (the beam is about 17″ × 16″).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.support.cli import run_cli, write_sky
from tests.support.oracles import pixel_radec

RA_DEG, DEC_DEG, CELL_ARCSEC = 150.0, 30.0, 4.0
CELL = np.radians(CELL_ARCSEC / 3600)
#: (di, dj, I, Q, U, V): a linearly polarised point and a circularly polarised one.
POL_SOURCES = [(5, -3, 1.0, 0.3, -0.2, 0.0), (-20, 14, 0.5, 0.0, 0.0, 0.1)]
POL_NPIX = 128
#: Issue 29's field: the Gaussian (Jy, FWHMs ″, PA °) at the centre and points (di, dj, Jy).
GAUSSIAN = (2.0, 150.0, 90.0, 30.0)
EXTENDED_POINTS = [(-40, 30, 1.0), (45, -35, 0.5), (30, 40, 0.010)]
EXTENDED_NPIX = 256
#: ``--noise-jy`` of the extended field: σ per real and imaginary part of each correlation.
NOISE_JY = 0.02


def _simulate(path: Path, sky: Path, *extra) -> Path:
    code, _, err = run_cli(
        "simulate", "--array", "vla.c", "--ra", RA_DEG, "--dec", DEC_DEG, "--nchan", 2,
        "--chan-width-hz", 4e6, "--sky", sky, "--no-smearing", "--device", "cpu", *extra,
        "--out", path,
    )  # fmt: skip
    assert code == 0, err
    return path


def polarised_ms(folder: Path, feeds: str) -> Path:
    """VLA C, HA −1 h to +1 h every 10 min, 2 channels: :data:`POL_SOURCES` on pixels."""
    comps = [(f"p{k}", *pixel_radec(RA_DEG, DEC_DEG, CELL, di, dj), *iquv)
             for k, (di, dj, *iquv) in enumerate(POL_SOURCES)]  # fmt: skip
    sky = write_sky(folder / "pol-sky.txt", comps)
    return _simulate(folder / f"{feeds}.ms", sky, "--ha-start", -1, "--ha-stop", 1,
                     "--int-s", 600, "--feeds", feeds)  # fmt: skip


def extended_ms(folder: Path) -> Path:
    """VLA C, HA −2 h to +2 h every 2 min, 2 channels, noise :data:`NOISE_JY`, seed 29."""
    flux, major, minor, pa = GAUSSIAN
    lines = [
        "# uvlab sky model v1",
        f"g gaussian {RA_DEG!r} {DEC_DEG!r} {flux} 0 0 0 0 1.4e9 {major} {minor} {pa}",
    ]
    for k, (di, dj, jy) in enumerate(EXTENDED_POINTS):
        ra, dec = pixel_radec(RA_DEG, DEC_DEG, CELL, di, dj)
        lines.append(f"p{k} point {ra!r} {dec!r} {jy} 0 0 0 0 1.4e9 0 0 0")
    sky = folder / "extended-sky.txt"
    sky.write_text("\n".join(lines) + "\n")
    return _simulate(folder / "extended.ms", sky, "--ha-start", -2, "--ha-stop", 2,
                     "--int-s", 120, "--noise-jy", NOISE_JY, "--seed", 29)  # fmt: skip


def thermal_sigma(ms: Path) -> float:
    """The Stokes I image noise of natural weights: σ/√(2·N), N the unflagged visibilities.

    I = (XX+YY)/2 has σ/√2 on each part; the real image of N equal weights has σ_part/√N.
    """
    from casacore import tables

    with tables.table(str(ms), ack=False) as t:
        flag, a1, a2 = t.getcol("FLAG"), t.getcol("ANTENNA1"), t.getcol("ANTENNA2")
    n = int((~flag[..., 0] & (a1 != a2)[:, None]).sum())
    return NOISE_JY / np.sqrt(2.0 * n)


def source_pixel(npix: int, di: int, dj: int) -> tuple[int, int]:
    """(row j, column i) of pixel offset (di, dj) in uvlab's (and CASA's transposed) image."""
    return npix // 2 + dj, npix // 2 + di
