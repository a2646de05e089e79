"""The automatic cell keeps the image inside the horizon (npix·cell ≤ 2), or says why not."""

from __future__ import annotations

import math

import numpy as np
import pytest

from uvlab.gpu.image_spec import (
    ARCSEC,
    ImageSpec,
    cell_for_uvw,
    horizon_cell_rad,
    horizon_note,
)

C = 299792458.0


def _figures_down(arcsec: float, figures: int = 2) -> float:
    """``arcsec`` rounded down to ``figures`` significant figures (written out for the test)."""
    scale = 10.0 ** (math.floor(math.log10(arcsec)) - figures + 1)
    return math.floor(arcsec / scale) * scale


@pytest.mark.parametrize("npix", [2, 32, 64, 128, 500, 512, 4096])
def test_horizon_cell_fills_at_most_the_sky(npix):
    cell = horizon_cell_rad(npix)
    assert npix * cell <= 2.0
    assert npix * cell > 2.0 * 0.99  # the coarsest 3-figure cell: at most 1 % finer
    assert cell / ARCSEC == pytest.approx(_figures_down(2.0 / npix / ARCSEC, 3), rel=1e-12)
    spec = ImageSpec(npix, cell)
    assert np.abs(spec.l_axis()).max() <= 1.0 and np.abs(spec.m_axis()).max() <= 1.0


def _lwasv(path):
    tables = pytest.importorskip("casacore.tables")
    t = tables.table(str(path), readonly=True, ack=False)
    f = tables.table(f"{path}/SPECTRAL_WINDOW", readonly=True, ack=False)
    try:
        uvw, a1, a2 = t.getcol("UVW"), t.getcol("ANTENNA1"), t.getcol("ANTENNA2")
        freq = f.getcol("CHAN_FREQ")[0]
    finally:
        t.close()
        f.close()
    return uvw[a1 != a2], freq


def test_lwasv_automatic_cell_stays_inside_the_horizon(ms_copy):
    uvw, freq = _lwasv(ms_copy("lwasv_4ant.ms"))  # a copy: casacore leaves lock files
    u_max = np.hypot(uvw[:, 0], uvw[:, 1]).max() * freq.max() / C
    data_cell = _figures_down(1.0 / (3.0 * u_max) / ARCSEC) * ARCSEC
    assert 512 * data_cell > 40.0  # ±1400°-wide "image" without the limit
    assert cell_for_uvw(uvw, freq) == pytest.approx(data_cell, rel=1e-12)  # no npix: unchanged
    cell = cell_for_uvw(uvw, freq, npix=512)
    assert 512 * cell <= 2.0 and cell == horizon_cell_rad(512)
    note = horizon_note(ImageSpec(512, cell), None)
    assert note is not None
    assert note.startswith("automatic cell set to 13.4', the coarsest that keeps the 512² image")
    assert "whole sky" in note


def test_a_normal_array_keeps_one_third_of_the_finest_fringe(rng):
    """8 km baselines at 1.4 GHz: 1/(3·u_max) rounded down, as before; no note."""
    uvw = rng.uniform(-8000.0, 8000.0, (5000, 3))
    freq = np.array([1.4e9, 1.41e9])
    u_max = np.hypot(uvw[:, 0], uvw[:, 1]).max() * freq.max() / C
    expected = _figures_down(1.0 / (3.0 * u_max) / ARCSEC) * ARCSEC
    for npix in (64, 512, 4096):
        cell = cell_for_uvw(uvw, freq, npix=npix)
        assert cell == pytest.approx(expected, rel=1e-12)
        assert horizon_note(ImageSpec(npix, cell), None) is None


def test_a_requested_cell_is_kept_and_a_past_horizon_one_is_explained():
    uvw = np.array([[30.0, 40.0, 0.0]])
    freq = np.array([40e6])
    cell = cell_for_uvw(uvw, freq, cell_arcsec=2000.0, npix=512)
    assert cell == pytest.approx(2000.0 * ARCSEC)  # as asked, even past the horizon
    note = horizon_note(ImageSpec(512, cell), cell)
    span = 512 * cell
    assert span > 2.0
    assert note == (
        f"the 512² image of 33.3' pixels reaches past the horizon ({span:.3g} in direction "
        "cosines; the whole sky spans 2): pixels beyond |l|, |m| = 1 are no sky; a cell of "
        "at most 13.4' keeps it inside"
    )
    inside = 700.0 * ARCSEC
    assert horizon_note(ImageSpec(512, inside), inside) is None
