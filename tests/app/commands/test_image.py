"""``uvlab image``: simulate → image puts every source where its sky model says, at its flux."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.support.cli import run_cli, write_sky
from tests.support.image_sims import CELL, CELL_ARCSEC, DEC0, NPIX, RA0, SOURCES
from tests.support.oracles import peak_fit, pixel_radec

IMAGE = ("--npix", NPIX, "--cell-arcsec", CELL_ARCSEC, "--eps", "1e-6", "--device", "cpu")


def _image(ms, prefix, *extra):
    from uvlab.app.outputs.fits_io import read_image_fits

    code, _out, err = run_cli("image", "--ms", ms, *IMAGE, *extra, "--out", prefix)
    assert code == 0, err
    dirty, header = read_image_fits(f"{prefix}-dirty.fits")
    psf, _ = read_image_fits(f"{prefix}-psf.fits")
    return dirty, psf, header


@pytest.mark.parametrize("feeds", ["linear", "circular"])
@pytest.mark.parametrize("stokes", ["I", "Q", "U", "V"])
def test_sources_at_their_sky_positions_and_fluxes(sims, tmp_path, feeds, stokes):
    from astropy.wcs import WCS

    dirty, psf, header = _image(sims[feeds], tmp_path / "img", "--stokes", stokes)
    wcs = WCS(header).celestial
    k = "IQUV".index(stokes)
    c = NPIX // 2
    pos = {}
    for name, di, dj, *iquv in SOURCES:
        ra, dec = pixel_radec(RA0, DEC0, CELL, di, dj)
        x, y = wcs.world_to_pixel_values(ra, dec)
        pos[name] = (float(y), float(x), iquv[k])
    for name, (y, x, flux) in pos.items():
        if flux == 0:
            continue
        j, i = round(y), round(x)
        # Take the other sources' sidelobes out (dirty = Σ S·PSF(x − x_s), exactly).
        local = dirty[j - 1 : j + 2, i - 1 : i + 2].copy()
        for other, (yo, xo, fo) in pos.items():
            if other != name and fo != 0:
                jo, io = round(yo), round(xo)
                local -= fo * psf[c + j - jo - 1 : c + j - jo + 2, c + i - io - 1 : c + i - io + 2]
        sign = np.sign(flux)
        assert np.unravel_index(np.argmax(sign * local), (3, 3)) == (1, 1), name
        fj, fi = peak_fit(sign * local, 1, 1)
        assert abs(fj - 1 - (y - j)) < 0.1 and abs(fi - 1 - (x - i)) < 0.1, (name, fj, fi, y, x)
        if float(y).is_integer() and float(x).is_integer():
            assert local[1, 1] == pytest.approx(flux, rel=0.01), name
    assert header["CTYPE1"] == "RA---SIN" and header["CDELT1"] < 0 < header["CDELT2"]


def test_agrees_with_ducc0_on_the_same_ms(sims, tmp_path):
    import ducc0
    from casacore import tables

    dirty, _, _ = _image(sims["linear"], tmp_path / "u")
    t = tables.table(str(sims["linear"]), ack=False)
    uvw, data, weight, flag = (t.getcol(c) for c in ("UVW", "DATA", "WEIGHT", "FLAG"))
    t.close()
    s = tables.table(str(sims["linear"] / "SPECTRAL_WINDOW"), ack=False)
    freq = s.getcell("CHAN_FREQ", 0)
    s.close()
    vis = 0.5 * (data[..., 0] + data[..., 3]).astype(np.complex128)
    w_i = 4.0 / (1.0 / weight[:, 0].astype(np.float64) + 1.0 / weight[:, 3])
    wgt = np.repeat(w_i[:, None], freq.size, axis=1) * ~(flag[..., 0] | flag[..., 3])
    d = (
        ducc0.wgridder.experimental.vis2dirty(
            uvw=uvw,
            freq=freq,
            vis=vis,
            wgt=wgt,
            npix_x=NPIX,
            npix_y=NPIX,
            pixsize_x=CELL,
            pixsize_y=CELL,
            epsilon=1e-6,
            flip_v=True,
        )
        / wgt.sum()
    )
    ref = d.T
    assert np.sqrt(np.mean((dirty - ref) ** 2)) <= 1e-5 * np.sqrt(np.mean(ref**2))


@pytest.fixture
def one_ducc0_thread():
    """ducc0 sums in one order (with more threads its last bits vary from run to run)."""
    import ducc0

    n = ducc0.misc.thread_pool_size()
    ducc0.misc.resize_thread_pool(1)
    yield
    ducc0.misc.resize_thread_pool(n)


@pytest.mark.parametrize(
    "extra, algorithm, params",
    [
        # no overrides: the record alone says as much (a window request); the CPU's
        # default algorithm is the catalogue's (ducc), as the window's is
        ((), "ducc", None),
        ((), "ducc", {}),
        (("--algorithm", "conv"), "conv", {}),
        (
            ("--algorithm", "hybrid", "--kernel", "kb", "--support", "5"),
            "hybrid",
            {"kernel": "kb", "support": 5},
        ),
        (("--algorithm", "nn", "--precision", "single"), "nn", {"precision": "single"}),
        (("--algorithm", "dft", "--weighting", "uniform"), "dft", {}),
    ],
)
@pytest.mark.usefixtures("one_ducc0_thread")
def test_the_image_is_the_labs_image_job(sims, tmp_path, extra, algorithm, params):
    """``uvlab image`` writes what ``run_job`` gives for the same MS request, to the bit."""
    from uvlab.app.lab.imaging import ImagingOptions
    from uvlab.app.lab.jobs import JobRequest, MSSelection
    from uvlab.app.lab.live import run_job
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.image_spec import ARCSEC, ImageSpec

    ms = sims["linear"]
    dirty, psf, _ = _image(ms, tmp_path / "x", *extra)
    weighting = "uniform" if "uniform" in extra else "natural"
    imaging = ImagingOptions(
        npix=NPIX, cell_arcsec=CELL_ARCSEC, algorithm=algorithm, weighting=weighting, eps=1e-6
    )
    request = JobRequest(
        "ms",
        imaging,
        "cpu",
        ms=MSSelection(str(ms)),
        preview=False,
        threads=0,
        spec=None if params is None else ImageSpec(NPIX, CELL_ARCSEC * ARCSEC),
        params=None if params is None else GridParams.from_eps(1e-6, **params),
    )
    out = run_job(request)
    assert np.array_equal(dirty, out.dirty.astype(np.float32))
    assert np.array_equal(psf, out.psf.astype(np.float32))


@pytest.mark.parametrize(
    ("argv", "lookup"),
    [((), "nearest"), (("--lookup", "linear"), "linear"), (("--lookup", "nearest"), "nearest")],
)
def test_lookup_option_reaches_the_gridder_parameters(argv, lookup):
    import argparse

    from uvlab.app.commands.ms_args import add_imaging_args
    from uvlab.app.commands.ms_imaging import grid_params

    parser = argparse.ArgumentParser()
    add_imaging_args(parser)
    args = parser.parse_args(["--support", "6", "--oversample", "32", *argv])
    params = grid_params(args)
    assert (params.lookup, params.support, params.oversample, params.exact) == (
        lookup,
        6,
        32,
        False,
    )
    with pytest.raises(SystemExit):
        parser.parse_args(["--lookup", "cubic"])


def test_outputs_timing_history_and_default_geometry(sims, tmp_path):
    from astropy.io import fits

    prefix = tmp_path / "sub" / "g"
    code, _out, err = run_cli(
        "image",
        "--ms",
        sims["circular"],
        "--device",
        "cpu",
        "--weighting",
        "briggs",
        "--robust",
        "0.5",
        "--out",
        prefix,
    )
    assert code == 0, err
    for suffix in ("-dirty.fits", "-psf.fits", "-timing.json", ".png"):
        assert (tmp_path / "sub" / f"g{suffix}").stat().st_size > 0
    timing = json.loads((tmp_path / "sub" / "g-timing.json").read_text())
    assert {"read MS", "grid", "weighting", "write"} <= set(timing["timing_s"])
    assert timing["total_s"] == pytest.approx(sum(timing["timing_s"].values()))
    assert timing["rate_vis_per_s"] == pytest.approx(
        2 * timing["nvis"] / timing["timing_s"]["grid"], rel=1e-9
    )
    header = fits.getheader(tmp_path / "sub" / "g-dirty.fits")
    history = "\n".join(str(h) for h in header["HISTORY"])
    assert "algorithm = ducc" in history and "weighting = briggs robust=0.5" in history
    assert "primary-beam FWHM" in history
    # 1.5 × FWHM (1.02 λ/D at the lowest frequency, D = 25 m) must fit in the image.
    fov = header["NAXIS1"] * abs(header["CDELT1"])
    fwhm_deg = np.degrees(1.02 * 299792458.0 / 1.4e9 / 25.0)
    assert 1.5 * fwhm_deg <= fov <= 1.5 * fwhm_deg * 1.1 and header["NAXIS1"] % 2 == 0
    # The cell samples the longest baseline's fringe about three times.
    assert header["CDELT2"] * 3600 == pytest.approx(1 / (3 * 1.03e3 / 0.2128) / 4.848e-6, rel=0.1)


def test_no_png_skips_the_preview_and_times_it_otherwise(sims, tmp_path):
    ms = sims["linear"]
    code, _, err = run_cli("image", "--ms", ms, "--npix", 64, "--no-png", "--out", tmp_path / "a")
    assert code == 0, err
    assert not (tmp_path / "a.png").exists() and (tmp_path / "a-dirty.fits").exists()
    assert "png" not in json.loads((tmp_path / "a-timing.json").read_text())["timing_s"]
    code, _, err = run_cli("image", "--ms", ms, "--npix", 64, "--out", tmp_path / "b")
    assert code == 0, err
    assert (tmp_path / "b.png").exists()
    assert json.loads((tmp_path / "b-timing.json").read_text())["timing_s"]["png"] > 0


def test_scale_with_a_unit_is_the_cell(sims, tmp_path):
    from astropy.io import fits

    ms = sims["linear"]
    for name, flag in (("a", ("--scale", "0.25amin")), ("b", ("--cell-arcsec", "15"))):
        code, _, err = run_cli("image", "--ms", ms, "--npix", 64, *flag, "--no-png",
                               "--out", tmp_path / name)  # fmt: skip
        assert code == 0, err
    for name in ("a", "b"):
        assert fits.getheader(tmp_path / f"{name}-dirty.fits")["CDELT2"] == pytest.approx(15 / 3600)
    code, _, err = run_cli("image", "--ms", ms, "--scale", "2parsec", "--out", tmp_path / "c")
    assert code == 2 and "unit" in err


def test_uv_range_leaves_out_the_samples_outside_it(sims, tmp_path):
    from uvlab.app.ms import read_visibilities
    from uvlab.gpu.constants import C_LIGHT

    ms = sims["linear"]
    data = read_visibilities(ms)
    uv_l = np.hypot(data.uvw[:, 0], data.uvw[:, 1])[:, None] * data.freq_hz[None, :] / C_LIGHT
    lo, hi = np.percentile(uv_l[~data.flag], [20, 70])
    want = int(np.count_nonzero(~data.flag & (uv_l >= lo) & (uv_l <= hi)))
    code, _, err = run_cli(
        "image", "--ms", ms, "--npix", 64, "--minuv-l", lo, "--maxuv-l", hi, "--no-png",
        "--out", tmp_path / "r",
    )  # fmt: skip
    assert code == 0, err
    timing = json.loads((tmp_path / "r-timing.json").read_text())
    assert timing["nvis"] == want and 0 < want < np.count_nonzero(~data.flag)


def test_wstack_restores_a_source_the_w_term_smears(tmp_path):
    """A source 1.3° out on VLA-C at 300 MHz: w-stacking restores the peak the w-term smears."""
    from uvlab.app.outputs.fits_io import read_image_fits

    cell, (di, dj), n = np.radians(20 / 3600), (200, 120), 512
    ra, dec = pixel_radec(150.0, 30.0, cell, di, dj)
    sky = write_sky(tmp_path / "far.txt", [("far", ra, dec, 1.0, 0, 0, 0)])
    ms = tmp_path / "far.ms"
    code, _, err = run_cli(
        "simulate", "--array", "vla.c", "--ra", 150, "--dec", 30, "--ha-start", -3,
        "--ha-stop", 3, "--int-s", 900, "--freq-hz", 3e8, "--sky", sky, "--no-smearing",
        "--out", ms,
    )  # fmt: skip
    assert code == 0, err
    peaks = {}
    for name, extra in (("plain", ()), ("wstack", ("--wstack",))):
        code, _, err = run_cli("image", "--ms", ms, "--npix", n, "--cell-arcsec", 20,
                               "--no-png", *extra, "--out", tmp_path / name)  # fmt: skip
        assert code == 0, err
        assert ("--wstack corrects it" in err) == (name == "plain")  # the hint, without it
        img, _ = read_image_fits(tmp_path / f"{name}-dirty.fits")
        j, i = n // 2 + dj, n // 2 + di  # pixel_radec's offsets: l = −di·cell, m = dj·cell
        peaks[name] = img[j - 4 : j + 5, i - 4 : i + 5].max()
    assert peaks["wstack"] == pytest.approx(1.0, abs=0.03)
    assert peaks["plain"] < peaks["wstack"] - 0.05
