"""``--pb-correct`` with a beam cube that turns on the sky (alt-az dishes, issue 29).

Oracle: the simulated data themselves. ``uvlab simulate --primary-beam CUBE`` dims a point
source by the cube sampled at the source turned by each integration's parallactic angle
(:func:`~uvlab.gpu.predict.beams.sample_cube`, tested on its own against a direct rotation).
With natural weighting, equal rows and the w-term corrected, the dirty image at the source
is the flux times the mean of those gains, exactly; the power beam averaged over the track
must give the flux back, where the cube unturned does not.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from astropy.io import fits

from tests.support.cli import run_cli, write_sky
from uvlab.app.instrument.beam_cube import write_beam_cube

NPIX, CELL = 256, 10.0  # pixels, arcsec
RA0, DEC0 = 150.0, 20.0
SHIFT = 60  # pixels east of the centre: l = 10′
SIGMA_L = math.radians(10.0 / 60.0) / math.sqrt(math.log(2.0))  # power ½ at 10′ along l


def _cube(path):
    """A voltage pattern twice as wide in l as in m: E = exp(−l²/2σl² − m²/2σm²)."""
    step, count = math.radians(0.01), 201
    start = -step * (count // 2)
    axis = start + step * np.arange(count)
    ll, mm = np.meshgrid(axis, axis)  # [m, l]
    e = np.exp(-(ll**2) / (2 * SIGMA_L**2) - mm**2 / (2 * (SIGMA_L / 2) ** 2))
    write_beam_cube(path, e[None], (start, step, count), (start, step, count), (1.4e9, 1e6, 1))


def _source():
    """RA, Dec of the direction l = SHIFT cells, m = 0 (a pixel centre; SIN projection)."""
    l = SHIFT * math.radians(CELL / 3600.0)
    n = math.sqrt(1.0 - l * l)
    d0 = math.radians(DEC0)
    dec = math.asin(n * math.sin(d0))
    ra = math.radians(RA0) + math.atan2(l, n * math.cos(d0))
    return math.degrees(ra), math.degrees(dec)


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("turning")
    _cube(tmp / "beam.fits")
    ra, dec = _source()
    sky = write_sky(tmp / "s.txt", [("s", ra, dec, 1.0, 0, 0, 0)])
    code, _, err = run_cli(
        "simulate", "--array", "vla.c", "--ra", RA0, "--dec", DEC0, "--ha-start", "-3",
        "--ha-stop", "3", "--int-s", "600", "--sky", sky, "--primary-beam", tmp / "beam.fits",
        "--no-smearing", "--device", "cpu", "--out", tmp / "a.ms",
    )  # fmt: skip
    assert code == 0, err
    out = tmp / "img"
    code, _, err = run_cli(
        "image", "--ms", tmp / "a.ms", "--npix", NPIX, "--cell-arcsec", CELL, "--wstack",
        "--no-png", "--device", "cpu", "--pb-correct", "--pb-model", tmp / "beam.fits",
        "--out", out,
    )  # fmt: skip
    assert code == 0, err
    return tmp, out


def test_the_turned_beam_gives_the_flux_back(observed):
    _, out = observed
    j, i = NPIX // 2, NPIX // 2 - SHIFT  # l = SHIFT cells east: column N/2 − SHIFT
    dirty = fits.getdata(f"{out}-dirty.fits").squeeze()
    pb = fits.getdata(f"{out}-pb.fits").squeeze()
    corrected = fits.getdata(f"{out}-image-pb.fits").squeeze()
    assert np.unravel_index(np.argmax(dirty), dirty.shape) == (j, i)
    assert 0.2 < dirty[j, i] < 0.45  # dimmed more than the unturned ½: the beam turned
    assert corrected[j, i] == pytest.approx(1.0, abs=2e-4)  # 5.2e-5 measured, 1° steps
    # the cube unturned (χ = 0) reads ½ there, which would have given a wrong flux
    assert dirty[j, i] / 0.5 < 0.9
    assert pb[NPIX // 2, NPIX // 2] == pytest.approx(1.0)


def test_chi_bins_share_each_angle_between_its_neighbours():
    from uvlab.app.commands.pb_correct import CHI_STEP, chi_bins

    angles, weights = chi_bins(np.array([[0.0, 0.2 * CHI_STEP], [3.5 * CHI_STEP, 2 * math.pi]]))
    got = {round(a / CHI_STEP): w for a, w in zip(angles, weights) if w > 1e-9}
    assert got.keys() == {0, 1, 3, 4}
    np.testing.assert_allclose([got[0], got[1], got[3], got[4]], [2.8, 0.2, 0.5, 0.5])
    assert weights.sum() == pytest.approx(4.0)  # 2π wrapped to 0
    angles, weights = chi_bins(None)
    assert angles.tolist() == [0.0] and weights.tolist() == [1.0]


def test_a_large_image_samples_the_turning_beam_every_other_pixel(tmp_path, monkeypatch):
    """Beyond TURN_GRID pixels a side (here 160, with 320²) the turned beam is sampled on
    every k-th pixel and interpolated bilinearly: 5.8e-4 of the peak from sampling every
    pixel at most (measured), where the cube's own bilinear kinks (every 36″) fall
    between the 10″ samples; a smooth beam would be within (h/σ)²/8 ≈ 1e-4."""
    from uvlab.app.commands import pb_correct
    from uvlab.app.instrument.beam_cube import load_beam_cube
    from uvlab.gpu.image_spec import ARCSEC, ImageSpec

    _cube(tmp_path / "beam.fits")
    cube = load_beam_cube(tmp_path / "beam.fits")
    spec = ImageSpec(320, 5.0 * ARCSEC)
    chi = np.linspace(-0.8, 0.9, 40)
    monkeypatch.setattr(pb_correct, "TURN_GRID", 160)
    coarse = pb_correct.power_beam("", cube, spec, [1.4e9], 0.0, chi)
    monkeypatch.setattr(pb_correct, "TURN_GRID", 320)
    fine = pb_correct.power_beam("", cube, spec, [1.4e9], 0.0, chi)
    assert coarse.shape == fine.shape == (320, 320)
    assert not np.array_equal(coarse, fine)  # it did sample fewer pixels
    np.testing.assert_allclose(coarse, fine, atol=1e-3)
