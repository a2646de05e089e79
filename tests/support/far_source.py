"""A 1 Jy source 2.1° out on VLA-D at 150 MHz: the wide-field scene of the w-term tests.

A 4.3° field of 120″ cells, where the w-term takes 3 % off the plain dirty peak
(tests/app/commands/test_image_wstack_clean.py, test_image_wproject.py).
"""

from __future__ import annotations

import numpy as np

from tests.support.cli import run_cli, write_sky
from tests.support.oracles import pixel_radec

NPIX, CELL_ARCSEC, (DI, DJ) = 128, 120.0, (52, 36)
#: The source's pixel [j, i] (pixel_radec's offsets: l = −di·cell, m = dj·cell).
PIXEL = (NPIX // 2 + DJ, NPIX // 2 + DI)


def far_source_ms(folder):
    """Simulate the scene into ``folder``/far.ms (6 h of 15-minute integrations)."""
    ra, dec = pixel_radec(150.0, 30.0, np.radians(CELL_ARCSEC / 3600), DI, DJ)
    sky = write_sky(folder / "far.txt", [("far", ra, dec, 1.0, 0, 0, 0)])
    out = folder / "far.ms"
    code, _, err = run_cli(
        "simulate", "--array", "vla.d", "--ra", 150, "--dec", 30, "--ha-start", -3,
        "--ha-stop", 3, "--int-s", 900, "--freq-hz", 1.5e8, "--sky", sky, "--no-smearing",
        "--device", "cpu", "--out", out,
    )  # fmt: skip
    assert code == 0, err
    return out


def peaks(prefix):
    """(dirty, restored) peak near the source, and the model's total flux."""
    from uvlab.app.outputs.fits_io import read_image_fits

    j, i = PIXEL
    found = []
    for kind in ("dirty", "image", "model"):
        img, _ = read_image_fits(prefix.parent / f"{prefix.name}-{kind}.fits")
        found.append(img.sum() if kind == "model" else img[j - 3 : j + 4, i - 3 : i + 4].max())
    return found
