"""``uvlab image`` over several spectral windows: one multi-frequency-synthesis image.

Oracles: the raw columns read with casacore (DATA_DESC_ID → SPECTRAL_WINDOW_ID through
DATA_DESCRIPTION, each window's CHAN_FREQ), the imaging weights built here in NumPy
(uniform and Briggs densities counted per uv cell over every window, CASA's cells), and
the float64 direct DFT of all the samples (tests.support.oracles.dft_image).
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from casacore import tables

from tests.support.cli import run_cli
from tests.support.ms_factory import make_ms
from tests.support.oracles import C_LIGHT, dft_image
from uvlab.gpu.image_spec import ARCSEC, ImageSpec

NPIX, CELL_ARCSEC = 64, 10.0
SPEC = ImageSpec(NPIX, CELL_ARCSEC * ARCSEC)
NCHAN = (3, 5, 2)  # three windows, each its own number of channels
IMAGE = ("--npix", NPIX, "--cell-arcsec", CELL_ARCSEC, "--stokes", "XX", "--no-png")


@pytest.fixture(scope="module")
def spw_ms(tmp_path_factory):
    """Three windows whose SPECTRAL_WINDOW rows run in reverse of their DATA_DESCRIPTION rows.

    The data of DATA_DESC_ID k (``NCHAN[k]`` channels) belong to window 2 − k, so a
    reader that took DATA_DESC_ID for the window would read the wrong frequencies.
    """
    path = tmp_path_factory.mktemp("spw") / "three.ms"
    rng = np.random.default_rng(29)
    make_ms(path, rng, spw_nchan=NCHAN, ntime=4, nant=6, autocorr=True)
    spw = tables.table(f"{path}/SPECTRAL_WINDOW", readonly=False, ack=False)
    names = ("CHAN_FREQ", "CHAN_WIDTH", "EFFECTIVE_BW", "RESOLUTION", "NUM_CHAN",
             "REF_FREQUENCY", "TOTAL_BANDWIDTH")  # fmt: skip
    rows = [{c: spw.getcell(c, k) for c in names} for k in range(3)]
    for k, row in enumerate(reversed(rows)):
        for col, value in row.items():
            spw.putcell(col, k, value)
    spw.close()
    dd = tables.table(f"{path}/DATA_DESCRIPTION", readonly=False, ack=False)
    dd.putcol("SPECTRAL_WINDOW_ID", np.array([2, 1, 0], dtype=np.int32))
    dd.close()
    return path


def _samples(path, spws=None):
    """(u, v, λ-free f, vis, weight) of the XX samples used, over ``spws`` (default all)."""
    t = tables.table(str(path), readonly=True, ack=False)
    cols = {c: t.getcol(c) for c in ("UVW", "ANTENNA1", "ANTENNA2", "DATA_DESC_ID",
                                     "FLAG_ROW", "WEIGHT")}  # fmt: skip
    data = [t.getcell("DATA", r)[:, 0] for r in range(t.nrows())]
    flag = [t.getcell("FLAG", r)[:, 0] for r in range(t.nrows())]
    t.close()
    dd_spw = tables.table(f"{path}/DATA_DESCRIPTION", ack=False).getcol("SPECTRAL_WINDOW_ID")
    sw = tables.table(f"{path}/SPECTRAL_WINDOW", ack=False)
    freqs = [sw.getcell("CHAN_FREQ", k) for k in range(sw.nrows())]
    out = {k: [] for k in ("u", "v", "f", "vis", "w")}
    for r in range(len(data)):
        spw = int(dd_spw[cols["DATA_DESC_ID"][r]])
        if cols["ANTENNA1"][r] == cols["ANTENNA2"][r] or (spws is not None and spw not in spws):
            continue
        f = freqs[spw]
        assert f.size == data[r].size
        keep = ~flag[r] & ~cols["FLAG_ROW"][r]
        out["u"].append(cols["UVW"][r, 0] * f[keep] / C_LIGHT)
        out["v"].append(cols["UVW"][r, 1] * f[keep] / C_LIGHT)
        out["f"].append(f[keep])
        out["vis"].append(data[r][keep].astype(np.complex128))
        out["w"].append(np.full(keep.sum(), float(cols["WEIGHT"][r, 0])))
    return {k: np.concatenate(v) for k, v in out.items()}


def _density(u, v, w):
    """Σw per uv cell (CASA's cells, k·du ≤ u < (k+1)·du, both Hermitian halves) per sample."""
    du = 1.0 / (NPIX * SPEC.cell_rad)
    cells: dict[tuple[int, int], float] = {}
    keys = [(int(np.floor(a / du)), int(np.floor(b / du))) for a, b in zip(u, v, strict=True)]
    for (iu, iv), wi in zip(keys, w, strict=True):
        cells[(iu, iv)] = cells.get((iu, iv), 0.0) + wi
        cells[(-iu - 1, -iv - 1)] = cells.get((-iu - 1, -iv - 1), 0.0) + wi
    return np.array([cells[k] for k in keys])


def _imaging_weights(s, scheme, robust=0.0):
    w = s["w"]
    if scheme == "natural":
        return w
    dens = _density(s["u"], s["v"], w)
    if scheme == "uniform":
        return w / dens
    f2 = (5.0 * 10.0 ** (-robust)) ** 2 / ((w * dens).sum() / w.sum())
    return w / (1.0 + f2 * dens)


def _image(ms, prefix, *extra):
    from uvlab.app.outputs.fits_io import read_image_fits

    code, _out, err = run_cli("image", "--ms", ms, *IMAGE, *extra, "--out", prefix)
    assert code == 0, err
    dirty, header = read_image_fits(f"{prefix}-dirty.fits")
    psf, _ = read_image_fits(f"{prefix}-psf.fits")
    return dirty, psf, header


@pytest.mark.parametrize(
    "weighting, robust", [("natural", None), ("uniform", None), ("briggs", -0.5)]
)
def test_mfs_image_of_every_window_is_the_direct_dft_of_all_samples(
    spw_ms, tmp_path, weighting, robust
):
    extra = ("--algorithm", "dft", "--weighting", weighting)
    extra += ("--robust", str(robust)) if robust is not None else ()
    dirty, psf, header = _image(spw_ms, tmp_path / "mfs", *extra)
    s = _samples(spw_ms)
    wt = _imaging_weights(s, weighting, robust or 0.0)
    ref = dft_image(s["u"], s["v"], wt * s["vis"], SPEC) / wt.sum()
    ref_psf = dft_image(s["u"], s["v"], wt.astype(complex), SPEC) / wt.sum()
    peak = np.abs(ref).max()
    np.testing.assert_allclose(dirty, ref, rtol=0, atol=1e-6 * peak)
    np.testing.assert_allclose(psf, ref_psf, rtol=0, atol=1e-6)
    # CRVAL3: the imaging-weighted mean frequency; CDELT3: the band covered (edges)
    assert header["CRVAL3"] == pytest.approx((wt * s["f"]).sum() / wt.sum(), rel=1e-12)
    lo, hi = 1.0e9 - 0.5e6, 1.2e9 + 1.5e6  # windows at 1.0, 1.1, 1.2 GHz, 1 MHz channels
    assert header["CDELT3"] == pytest.approx(hi - lo)
    assert any("spw = 0,1,2 (multi-frequency synthesis of 3" in h for h in header["HISTORY"])
    if weighting == "uniform":  # the band's densities, not each window's on its own
        per_window = [_samples(spw_ms, {k}) for k in range(3)]
        wsum = sum(_imaging_weights(p, "uniform").sum() for p in per_window)
        summed = (
            sum(
                dft_image(p["u"], p["v"], _imaging_weights(p, "uniform") * p["vis"], SPEC)
                for p in per_window
            )
            / wsum
        )
        assert np.abs(summed - ref).max() > 1e-2 * peak


def test_a_gridder_gives_the_same_mfs_image(spw_ms, tmp_path):
    dirty, _psf, _ = _image(spw_ms, tmp_path / "ducc", "--weighting", "briggs")
    s = _samples(spw_ms)
    wt = _imaging_weights(s, "briggs")
    ref = dft_image(s["u"], s["v"], wt * s["vis"], SPEC) / wt.sum()
    np.testing.assert_allclose(dirty, ref, rtol=0, atol=1e-5 * np.abs(ref).max())


def test_one_window_is_that_window_alone(spw_ms, tmp_path):
    dirty, _psf, header = _image(spw_ms, tmp_path / "one", "--spw", "1", "--algorithm", "dft",
                                 "--weighting", "uniform")  # fmt: skip
    s = _samples(spw_ms, {1})
    wt = _imaging_weights(s, "uniform")
    ref = dft_image(s["u"], s["v"], wt * s["vis"], SPEC) / wt.sum()
    np.testing.assert_allclose(dirty, ref, rtol=0, atol=1e-6 * np.abs(ref).max())
    assert header["CRVAL3"] == pytest.approx(1.1e9 + 2e6)  # its channels' mean, as before
    assert "uvlab spw = 1" in header["HISTORY"]


def test_two_windows_of_three(spw_ms, tmp_path):
    dirty, _psf, header = _image(spw_ms, tmp_path / "two", "--spw", "2,0", "--algorithm", "dft")
    s = _samples(spw_ms, {0, 2})
    ref = dft_image(s["u"], s["v"], s["w"] * s["vis"], SPEC) / s["w"].sum()
    np.testing.assert_allclose(dirty, ref, rtol=0, atol=1e-6 * np.abs(ref).max())
    assert header["CRVAL3"] == pytest.approx((s["w"] * s["f"]).sum() / s["w"].sum())


@pytest.mark.parametrize("spw", ["3", "0,5", "one"])
def test_unknown_window_is_a_usage_error(spw_ms, tmp_path, spw):
    code, _out, err = run_cli("image", "--ms", spw_ms, *IMAGE, "--spw", spw, "--out",
                              tmp_path / "x")  # fmt: skip
    assert code == 2 and "--spw" in err and err.count("\n") == 1, err
    if spw != "one":
        assert "it has 3: 0 (" in err
    assert not list(tmp_path.glob("x*"))


def test_compare_asks_for_one_window(spw_ms, tmp_path):
    code, _out, err = run_cli("compare", "--ms", spw_ms, "--npix", NPIX, "--cell-arcsec",
                              CELL_ARCSEC, "--out", tmp_path / "c")  # fmt: skip
    assert code == 2 and "--spw" in err and "0,1,2" in err, err


@pytest.mark.parametrize("deconvolver", ["hogbom", "cotton-schwab"])
def test_clean_over_every_window(spw_ms, tmp_path, deconvolver):
    """CLEAN's residual is the data minus the model, over every window (checked by DFT)."""
    from uvlab.app.outputs.fits_io import read_image_fits

    prefix = tmp_path / deconvolver
    clean = ("--niter", "30", "--deconvolver", deconvolver, "--mgain", "0.5")
    dirty, _psf, _ = _image(spw_ms, prefix, "--algorithm", "dft", "--weighting", "uniform", *clean)
    model, _ = read_image_fits(f"{prefix}-model.fits")
    residual, _ = read_image_fits(f"{prefix}-residual.fits")
    assert np.count_nonzero(model) > 0 and np.abs(residual).max() < np.abs(dirty).max()
    s = _samples(spw_ms)
    wt = _imaging_weights(s, "uniform")
    l, m = np.meshgrid(SPEC.l_axis(), SPEC.m_axis())
    j, i = np.nonzero(model)
    model_vis = (
        model[j, i] * np.exp(2j * np.pi * (np.outer(s["u"], l[j, i]) + np.outer(s["v"], m[j, i])))
    ).sum(axis=1)
    ref = dft_image(s["u"], s["v"], wt * (s["vis"] - model_vis), SPEC) / wt.sum()
    peak = np.abs(dirty).max()
    # Cotton-Schwab: the last major cycle's residual (conv's degridder, the DFT has none);
    # Högbom: the dirty image minus the model times the 2N PSF, exact over the image too
    np.testing.assert_allclose(residual, ref, rtol=0, atol=1e-5 * peak)


def test_scaled_path_images_every_window(spw_ms, cluster, tmp_path):
    """The Dask path's tasks are each window's row chunks: the same image as in memory."""
    one, _, h1 = _image(spw_ms, tmp_path / "mem", "--weighting", "briggs", "--algorithm", "conv")
    two, _, h2 = _image(spw_ms, tmp_path / "dask", "--weighting", "briggs", "--algorithm", "conv",
                        *cluster, "--chunk-rows", "25")  # fmt: skip
    np.testing.assert_allclose(two, one, rtol=0, atol=1e-6 * np.abs(one).max())
    assert h2["CRVAL3"] == pytest.approx(h1["CRVAL3"], rel=1e-12)


def test_scaled_clean_over_every_window(spw_ms, cluster, tmp_path):
    """Cotton–Schwab over the cluster degrids each window's chunks at their frequencies:
    the same model and residual as the in-memory CLEAN over every window."""
    from uvlab.app.outputs.fits_io import read_image_fits

    clean = ("--weighting", "uniform", "--algorithm", "conv", "--niter", "30",
             "--deconvolver", "cotton-schwab", "--mgain", "0.5")  # fmt: skip
    _image(spw_ms, tmp_path / "mem", *clean)
    _image(spw_ms, tmp_path / "dask", *clean, *cluster, "--chunk-rows", "25")  # 25, 25, 10 of 60
    for kind in ("model", "residual"):
        want, _ = read_image_fits(f"{tmp_path / 'mem'}-{kind}.fits")
        got, _ = read_image_fits(f"{tmp_path / 'dask'}-{kind}.fits")
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6 * np.abs(want).max())


def test_info_lists_every_window(spw_ms, tmp_path):
    code, out, err = run_cli("info", spw_ms)
    assert code == 0, err
    lines = out[out.index("Spectral windows") :].splitlines()[2:5]
    assert [ln.split()[:2] for ln in lines] == [["0", "2"], ["1", "5"], ["2", "3"]]


def test_copy_is_untouched(spw_ms, tmp_path):
    """Imaging opens the MS read-only (its tree unchanged)."""
    from tests.support.ms_factory import tree_digest

    dst = tmp_path / "copy.ms"
    shutil.copytree(spw_ms, dst)
    before = tree_digest(dst)
    _image(dst, tmp_path / "ro", "--algorithm", "dft")
    assert tree_digest(dst) == before


def test_expected_noise_counts_every_window(spw_ms, tmp_path):
    """σ = √(Σ w²/d) / Σ w over every window's samples (d the data weights, w the imaging's)."""
    import re

    code, out, err = run_cli("image", "--ms", spw_ms, *IMAGE, "--weighting", "uniform",
                             "--algorithm", "dft", "--out", tmp_path / "n")  # fmt: skip
    assert code == 0, err
    s = _samples(spw_ms)
    w = _imaging_weights(s, "uniform")
    sigma = np.sqrt((w * w / s["w"]).sum()) / w.sum()
    got = re.search(r"noise: expected ([0-9.]+) mJy/beam .*N = (\d+)\)", out)
    assert got, out
    assert float(got[1]) * 1e-3 == pytest.approx(sigma, rel=5e-3)
    assert int(got[2]) == s["w"].size
