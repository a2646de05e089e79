"""``uvlab image --niter``: simulate → image → CLEAN restores point sources at their fluxes."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.cli import run_cli, write_sky
from tests.support.oracles import pixel_radec

RA0, DEC0, NPIX, CELL_ARCSEC = 150.0, 30.0, 128, 12.0
CELL = np.radians(CELL_ARCSEC / 3600)
#: (name, di, dj, I): on pixels, l = −di·cell, m = dj·cell.
SOURCES = [("a", 9, -6, 1.0), ("b", -14, 11, 2.0), ("c", 20, 17, 0.8), ("d", -25, -20, 0.5)]
#: --no-png: the preview is test_image.py's (here each run would draw and encode one)
IMAGE = ("--npix", NPIX, "--cell-arcsec", CELL_ARCSEC, "--eps", "1e-7", "--device", "cpu",
         "--no-png")  # fmt: skip
CLEAN = ("--niter", 3000, "--gain", 0.1, "--threshold-jy", 1e-4)


@pytest.fixture(scope="module")
def vla_ms(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clean")
    comps = [(n, *pixel_radec(RA0, DEC0, CELL, di, dj), i, 0, 0, 0) for n, di, dj, i in SOURCES]
    sky = write_sky(folder / "sky.txt", comps)
    out = folder / "vla.ms"
    code, _, err = run_cli(
        "simulate", "--array", "vla.d", "--ra", RA0, "--dec", DEC0, "--ha-start", -1,
        "--ha-stop", 1, "--int-s", 300, "--nchan", 1, "--sky", sky, "--no-smearing",
        "--device", "cpu", "--out", out,
    )  # fmt: skip
    assert code == 0, err
    return out


@pytest.fixture(scope="module")
def cleaned(vla_ms, tmp_path_factory):
    prefix = tmp_path_factory.mktemp("out") / "vla"
    code, out, err = run_cli("image", "--ms", vla_ms, *IMAGE, *CLEAN, "--out", prefix)
    assert code == 0, err
    return prefix, out


def test_restored_peaks_and_model_flux_within_one_percent(cleaned):
    from astropy.wcs import WCS

    from uvlab.app.outputs.fits_io import read_image_fits

    prefix, out = cleaned
    assert "CLEAN:" in out
    image, header = read_image_fits(f"{prefix}-image.fits")
    model, mheader = read_image_fits(f"{prefix}-model.fits")
    assert mheader["BUNIT"] == "Jy/pixel"
    wcs = WCS(header).celestial
    for _, di, dj, flux in SOURCES:
        ra, dec = pixel_radec(RA0, DEC0, CELL, di, dj)
        i, j = (round(float(x)) for x in wcs.world_to_pixel_values(ra, dec))
        assert (j, i) == (NPIX // 2 + dj, NPIX // 2 + di)
        assert image[j, i] == pytest.approx(flux, rel=0.01)
    assert model.sum() == pytest.approx(sum(s[3] for s in SOURCES), rel=0.01)
    for key in ("BMAJ", "BMIN", "BPA"):
        assert key in header
    assert 0 < header["BMIN"] <= header["BMAJ"] < 0.1 and -90 < header["BPA"] <= 90


def test_restored_is_model_convolved_plus_residual(cleaned):
    from uvlab.app.outputs.fits_io import read_image_fits
    from uvlab.gpu.deconvolution import Beam, restore

    prefix, _ = cleaned
    image, h = read_image_fits(f"{prefix}-image.fits")
    model, _ = read_image_fits(f"{prefix}-model.fits")
    residual, _ = read_image_fits(f"{prefix}-residual.fits")
    beam = Beam(np.radians(h["BMAJ"]), np.radians(h["BMIN"]), h["BPA"])
    np.testing.assert_allclose(image, restore(model, residual, beam, CELL), atol=1e-5)


def test_sources_list_reads_back_through_uvlab_sky(cleaned):
    from uvlab.app.outputs.fits_io import read_image_fits
    from uvlab.app.skymodel import load_sky

    prefix, _ = cleaned
    model, _ = read_image_fits(f"{prefix}-model.fits")
    sky = load_sky(f"{prefix}-sources.txt")
    assert len(sky.components) == np.count_nonzero(model)
    assert sum(c.stokes[0] for c in sky.components) == pytest.approx(model.sum(), rel=1e-6)
    brightest = max(sky.components, key=lambda c: c.stokes[0])
    ra, dec = pixel_radec(RA0, DEC0, CELL, -14, 11)  # source b, 2 Jy
    assert brightest.ra_deg == pytest.approx(ra, abs=1e-7)
    assert brightest.dec_deg == pytest.approx(dec, abs=1e-7)
    code, _out, err = run_cli("sky", "show", f"{prefix}-sources.txt")
    assert code == 0, err


@pytest.mark.parametrize(
    ("flags", "match"),
    [
        (("--niter", "-5"), "--niter"),
        (("--niter", "10", "--gain", "0"), "--gain"),
        (("--niter", "10", "--mgain", "1.5"), "--mgain"),
        (("--niter", "10", "--threshold-jy", "-1"), "--threshold-jy"),
        (("--niter", "10", "--auto-threshold", "-3"), "--auto-threshold"),
    ],
)
def test_bad_clean_flags_one_line_and_nothing_written(vla_ms, tmp_path, flags, match):
    code, _, err = run_cli("image", "--ms", vla_ms, *IMAGE, *flags, "--out", tmp_path / "x")
    assert code == 2
    last = err.strip().splitlines()[-1]
    assert match in last
    assert list(tmp_path.iterdir()) == []


def test_divergence_writes_nothing(vla_ms, tmp_path, monkeypatch):
    import importlib

    hogbom_module = importlib.import_module("uvlab.gpu.deconvolution.hogbom")
    monkeypatch.setattr(hogbom_module, "DIVERGENCE_FACTOR", 0.5)  # any iteration "diverges"
    code, _, err = run_cli("image", "--ms", vla_ms, *IMAGE, *CLEAN, "--out", tmp_path / "x")
    assert code == 1
    assert "diverged" in err and len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_cotton_schwab_restores_the_fluxes_in_fewer_minor_iterations_than_hogbom(vla_ms, tmp_path):
    """Major cycles subtract the model from the visibilities: peaks and flux within 1 %."""
    from astropy.wcs import WCS

    from uvlab.app.outputs.fits_io import read_image_fits

    prefix = tmp_path / "cs"
    code, out, err = run_cli(
        "image", "--ms", vla_ms, *IMAGE, *CLEAN, "--mgain", 0.8, "--deconvolver",
        "cotton-schwab", "--out", prefix,
    )  # fmt: skip
    assert code == 0, err
    assert "CLEAN:" in out
    model, _ = read_image_fits(f"{prefix}-model.fits")
    restored, header = read_image_fits(f"{prefix}-image.fits")
    assert model.sum() == pytest.approx(sum(s[3] for s in SOURCES), rel=0.01)
    wcs = WCS(header).celestial
    for _, di, dj, flux in SOURCES:
        ra, dec = pixel_radec(RA0, DEC0, CELL, di, dj)
        i, j = (round(float(x)) for x in wcs.world_to_pixel_values(ra, dec))
        assert restored[j, i] == pytest.approx(flux, rel=0.01)


def test_auto_mask_with_cotton_schwab_restores_the_sources(vla_ms, tmp_path):
    """WSClean's -auto-mask: every component inside the mask of the first stage, fluxes kept."""
    from uvlab.app.outputs.fits_io import read_image_fits

    prefix = tmp_path / "am"
    code, _, err = run_cli(
        "image", "--ms", vla_ms, *IMAGE, "--niter", 3000, "--gain", 0.1, "--mgain", 0.8,
        "--deconvolver", "cotton-schwab", "--auto-mask", 3, "--auto-threshold", 0.05,
        "--out", prefix,
    )  # fmt: skip
    assert code == 0, err
    image, _ = read_image_fits(f"{prefix}-image.fits")
    model, _ = read_image_fits(f"{prefix}-model.fits")
    for _, di, dj, flux in SOURCES:
        assert image[NPIX // 2 + dj, NPIX // 2 + di] == pytest.approx(flux, rel=0.01)
    assert model.sum() == pytest.approx(sum(s[3] for s in SOURCES), rel=0.01)
    code, _, err = run_cli(
        "image", "--ms", vla_ms, *IMAGE, "--niter", 10, "--auto-mask", 1, "--auto-threshold", 3,
        "--out", tmp_path / "bad",
    )  # fmt: skip
    assert code == 2 and "auto-mask" in err and "\n" not in err.strip()
    assert not list(tmp_path.glob("bad*"))


def _components_inside(model, x0, y0, x1, y1):
    j, i = np.nonzero(model)
    return j.size > 0 and (x0 <= i.min() and i.max() <= x1 and y0 <= j.min() and j.max() <= y1)


def test_mask_box_keeps_components_in_the_box_of_the_written_image(vla_ms, tmp_path):
    """``--mask-box`` around source a (in the written image's pixels, also with --size)."""
    from uvlab.app.outputs.fits_io import read_image_fits

    a = SOURCES[0]
    for size, (w, h) in ((None, (NPIX, NPIX)), ((128, 96), (128, 96))):
        x, y = w // 2 + a[1], h // 2 + a[2]  # the source's pixel in the written image
        prefix = tmp_path / f"box{w}x{h}"
        extra = ("--size", *size) if size else ("--npix", NPIX)
        image = [arg for arg in IMAGE if arg not in ("--npix", NPIX)]
        code, _, err = run_cli(
            "image", "--ms", vla_ms, *image, *extra, *CLEAN, "--mask-box", x - 3, y - 3,
            x + 3, y + 3, "--out", prefix,
        )  # fmt: skip
        assert code == 0, err
        model, _ = read_image_fits(f"{prefix}-model.fits")
        assert model.shape == (h, w)
        assert _components_inside(model, x - 3, y - 3, x + 3, y + 3)
        # the brightest component on source a (its flux is shared with the other sources'
        # sidelobes there, which the mask keeps CLEAN from removing)
        assert np.unravel_index(np.argmax(model), model.shape) == (y, x)


def test_fits_mask_and_its_bad_input(vla_ms, tmp_path):
    from astropy.io import fits

    from uvlab.app.outputs.fits_io import read_image_fits

    b = SOURCES[1]
    x, y = NPIX // 2 + b[1], NPIX // 2 + b[2]
    mask = np.zeros((NPIX, NPIX), dtype=np.float32)
    mask[y - 2 : y + 3, x - 2 : x + 3] = 1
    fits.PrimaryHDU(mask).writeto(tmp_path / "mask.fits")
    code, _, err = run_cli(
        "image", "--ms", vla_ms, *IMAGE, *CLEAN, "--fits-mask", tmp_path / "mask.fits",
        "--out", tmp_path / "fm",
    )  # fmt: skip
    assert code == 0, err
    model, _ = read_image_fits(tmp_path / "fm-model.fits")
    assert _components_inside(model, x - 2, y - 2, x + 2, y + 2)
    fits.PrimaryHDU(np.ones((8, 8), np.float32)).writeto(tmp_path / "small.fits")
    for bad, words in (("small.fits", "8 × 8 pixels"), ("nosuch.fits", "not a readable")):
        code, _, err = run_cli(
            "image", "--ms", vla_ms, *IMAGE, *CLEAN, "--fits-mask", tmp_path / bad,
            "--out", tmp_path / "bad",
        )  # fmt: skip
        assert code == 1 and words in err and "\n" not in err.strip()
    code, _, err = run_cli(
        "image", "--ms", vla_ms, *IMAGE, *CLEAN, "--mask-box", 500, 500, 600, 600,
        "--out", tmp_path / "bad",
    )  # fmt: skip
    assert code == 1 and "outside" in err
    assert not list(tmp_path.glob("bad*"))


@pytest.mark.parametrize(
    "weighting",
    [("uniform",), ("briggs", "--robust", -0.5), ("uniform", "--density-cells", "wsclean")],
)
def test_clean_with_density_weighting_leaves_a_clean_residual(vla_ms, tmp_path, weighting):
    """Högbom's 2N PSF weights the visibilities as the N² dirty image did (its uv cells, or
    WSClean's of its padded image): CLEAN then reaches its 0.1 mJy threshold (the residual
    peaks at 0.1 mJy, as with natural weighting). With the 2N image's own cells, the PSF's
    sidelobes differ and 20 mJy (1 % of the brightest source) stayed in the residual,
    measured before the fix."""
    from uvlab.app.outputs.fits_io import read_image_fits

    prefix = tmp_path / "w"
    args = ("--weighting", *weighting)
    code, _, err = run_cli("image", "--ms", vla_ms, *IMAGE, *CLEAN, *args, "--out", prefix)
    assert code == 0, err
    residual, _ = read_image_fits(f"{prefix}-residual.fits")
    assert np.abs(residual).max() < 5e-4


def test_multiscale_cotton_schwab_from_the_command_line(vla_ms, tmp_path):
    """Issue 29: ``--multiscale`` with Cotton–Schwab holds the sky's flux (points: scale 0)."""
    from uvlab.app.outputs.fits_io import read_image_fits

    prefix = tmp_path / "ms"
    code, _, err = run_cli(
        "image", "--ms", vla_ms, *IMAGE, *CLEAN, "--deconvolver", "cotton-schwab",
        "--mgain", 0.8, "--multiscale", "--multiscale-scales", "0,4,8", "--out", prefix,
    )  # fmt: skip
    assert code == 0, err
    model, _ = read_image_fits(f"{prefix}-model.fits")
    assert model.sum() == pytest.approx(sum(s[3] for s in SOURCES), rel=0.01)
