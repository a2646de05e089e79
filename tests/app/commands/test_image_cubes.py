"""``uvlab image --channels-out N``: per-channel images against a float64 direct DFT.

A small simulated MS (VLA D, 8 channels of 100 MHz from 1.0 GHz, sources with
spectral indices) is imaged in 4 output channels of 2; each channel's dirty
image is compared with the direct sum over that channel's visibilities read
with casacore, natural and uniform (the density counted here, in NumPy, on that
channel's samples alone), and each file's CRVAL3 with the weighted mean
frequency computed here.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from tests.support.cli import run_cli
from tests.support.cube_ms import CELL, DF, IMAGE, NCHAN, NPIX, read_fits, simulate_cube
from tests.support.oracles import C_LIGHT, dft_image
from uvlab.gpu.image_spec import ImageSpec

NOUT = 4
#: (name, di, dj, I, spectral index α at 1.4 GHz): l = −di·cell, m = dj·cell.
SOURCES = [("a", 0, 0, 1.0, -0.7), ("b", 9, -6, 0.5, 1.0)]
_simulate = simulate_cube


@pytest.fixture(scope="module")
def two_sources(tmp_path_factory):
    return _simulate(tmp_path_factory.mktemp("cube2"), SOURCES)


@pytest.fixture(scope="module")
def one_source(tmp_path_factory):
    return _simulate(tmp_path_factory.mktemp("cube1"), SOURCES[:1])


def _read(ms: Path):
    """(uvw m, Stokes I vis, weight, usable, freq Hz) of the MS, read with casacore."""
    from casacore import tables

    with tables.table(str(ms), ack=False) as t:
        uvw, data, weight, flag = (t.getcol(c) for c in ("UVW", "DATA", "WEIGHT", "FLAG"))
    with tables.table(str(ms / "SPECTRAL_WINDOW"), ack=False) as s:
        freq = s.getcell("CHAN_FREQ", 0)
    vis = 0.5 * (data[..., 0] + data[..., 3]).astype(np.complex128)
    w_i = 4.0 / (1.0 / weight[:, 0].astype(np.float64) + 1.0 / weight[:, 3])
    usable = ~(flag[..., 0] | flag[..., 3])
    return uvw, vis, np.repeat(w_i[:, None], freq.size, axis=1) * usable, usable, freq


def _uniform(u, v, w, spec: ImageSpec) -> np.ndarray:
    """w / W, W the Σw of the uv cell ⌊u/du⌋, ⌊v/du⌋ with its Hermitian mirror (CASA's cells)."""
    du = 1.0 / (spec.npix * spec.cell_rad)
    iu, iv = np.floor(u / du).astype(int), np.floor(v / du).astype(int)
    cells = np.concatenate([np.stack([iu, iv], 1), np.stack([-iu - 1, -iv - 1], 1)])
    keys, inverse = np.unique(cells, axis=0, return_inverse=True)
    density = np.bincount(inverse.ravel(), weights=np.concatenate([w, w]), minlength=len(keys))
    return w / density[inverse.ravel()[: u.size]]


def _oracle(ms: Path, start: int, stop: int, weighting: str, mf: bool = False):
    """(dirty image, Σ imaging weights) of input channels start … stop−1: the direct sum.

    ``mf``: uniform weights from the density of all channels' samples (MF weighting).
    """
    spec = ImageSpec(NPIX, CELL)
    uvw, vis, w, usable, freq = _read(ms)
    u, v = (uvw[:, None, k] * freq / C_LIGHT for k in (0, 1))
    keep = usable & (w > 0)
    if weighting == "uniform" and mf:
        w = w.copy()
        w[keep] = _uniform(u[keep], v[keep], w[keep], spec)
    sl = slice(start, stop)
    keep = keep[:, sl]
    u, v, wk, vk = u[:, sl][keep], v[:, sl][keep], w[:, sl][keep], vis[:, sl][keep]
    if weighting == "uniform" and not mf:
        wk = _uniform(u, v, wk, spec)
    return dft_image(u, v, wk * vk, spec) / wk.sum(), wk.sum()


def _image(ms: Path, prefix: Path, *extra):
    code, out, err = run_cli("image", "--ms", ms, *IMAGE, "--channels-out", NOUT, "--no-png",
                             *extra, "--out", prefix)  # fmt: skip
    assert code == 0, err
    return out


_fits = read_fits


@pytest.mark.parametrize("weighting", ["natural", "uniform"])
def test_each_channel_is_the_direct_sum_of_its_own_channels(two_sources, tmp_path, weighting):
    prefix = tmp_path / "c"
    _image(two_sources, prefix, "--weighting", weighting)
    for k in range(NOUT):
        dirty, _ = _fits(f"{prefix}-{k:04d}-dirty.fits")
        psf, _ = _fits(f"{prefix}-{k:04d}-psf.fits")
        want, _ = _oracle(two_sources, 2 * k, 2 * k + 2, weighting)
        assert np.abs(dirty - want).max() <= 1e-6 * np.abs(want).max(), (weighting, k)
        assert psf.max() == pytest.approx(1.0, abs=1e-6)
    mfs, _ = _fits(f"{prefix}-MFS-dirty.fits")  # the image of all 8 channels together
    want, _ = _oracle(two_sources, 0, NCHAN, weighting)
    assert np.abs(mfs - want).max() <= 1e-6 * np.abs(want).max()


def test_crval3_is_the_weighted_centre_and_cdelt3_the_bandwidth(two_sources, tmp_path):
    prefix = tmp_path / "f"
    _image(two_sources, prefix)
    _, _, w, _, freq = _read(two_sources)
    wc = w.sum(axis=0)
    for k in range(NOUT):
        _, header = _fits(f"{prefix}-{k:04d}-dirty.fits")
        sl = slice(2 * k, 2 * k + 2)
        centre = (wc[sl] * freq[sl]).sum() / wc[sl].sum()
        assert header["CRVAL3"] == pytest.approx(centre, rel=1e-12)
        assert header["CDELT3"] == pytest.approx(2 * DF, rel=1e-12)
    _, header = _fits(f"{prefix}-MFS-dirty.fits")
    assert header["CRVAL3"] == pytest.approx(freq.mean(), rel=1e-12)


def test_files_are_named_as_wsclean_names_them(two_sources, tmp_path):
    prefix = tmp_path / "n"
    out = _image(two_sources, prefix)
    names = {p.name for p in tmp_path.iterdir()}
    want = {f"n-{k:04d}-{kind}.fits" for k in range(NOUT) for kind in ("dirty", "psf")}
    want |= {"n-MFS-dirty.fits", "n-MFS-psf.fits", "n-timing.json"}
    assert names == want
    assert sum(line.startswith("channel ") for line in out.splitlines()) == NOUT


def test_peak_follows_the_spectral_index(one_source, tmp_path):
    prefix = tmp_path / "s"
    _image(one_source, prefix)
    _, _, w, _, freq = _read(one_source)
    _, _, _, flux, alpha = SOURCES[0]
    spectrum = flux * (freq / 1.4e9) ** alpha
    nu, peak = [], []
    for k in range(NOUT):
        dirty, header = _fits(f"{prefix}-{k:04d}-dirty.fits")
        sl = slice(2 * k, 2 * k + 2)
        wc = w[:, sl].sum(axis=0)
        want = (wc * spectrum[sl]).sum() / wc.sum()  # the weighted mean of its channels' flux
        assert dirty[NPIX // 2, NPIX // 2] == pytest.approx(want, rel=1e-6)
        nu.append(header["CRVAL3"])
        peak.append(dirty[NPIX // 2, NPIX // 2])
    slope = np.polyfit(np.log(nu), np.log(peak), 1)[0]
    assert slope == pytest.approx(alpha, abs=2e-3)


def test_clean_per_channel_and_the_mfs_weighted_mean(two_sources, tmp_path):
    prefix, threshold = tmp_path / "k", 2e-3
    _image(two_sources, prefix, "--niter", 2000, "--threshold-jy", threshold)
    _, _, w, _, _ = _read(two_sources)
    weights, residuals, images = [], [], []
    for k in range(NOUT):
        image, header = _fits(f"{prefix}-{k:04d}-image.fits")
        residual, _ = _fits(f"{prefix}-{k:04d}-residual.fits")
        model, mheader = _fits(f"{prefix}-{k:04d}-model.fits")
        assert np.isfinite(image).all() and "BMAJ" in header
        assert np.abs(residual).max() <= threshold
        assert mheader["BUNIT"] == "Jy/pixel" and model.sum() > 0
        weights.append(w[:, 2 * k : 2 * k + 2].sum())  # natural: Σ of the data weights
        residuals.append(residual)
        images.append(image)
    weights = np.array(weights) / np.sum(weights)
    mfs_res, _ = _fits(f"{prefix}-MFS-residual.fits")
    mfs_img, _ = _fits(f"{prefix}-MFS-image.fits")
    np.testing.assert_allclose(mfs_res, np.tensordot(weights, residuals, 1), atol=1e-7)
    np.testing.assert_allclose(mfs_img, np.tensordot(weights, images, 1), atol=1e-6)
    assert Path(f"{prefix}-sources.txt").is_file()


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (("--channels-out", "0"), "--channels-out"),
        (("--channels-out", "9"), "--channels-out: 9 output channels, but only 8"),
        (("--channels", "0:4", "--channels-out", "5"), "--channels-out: 5 output channels"),
    ],
)
def test_bad_values_are_usage_errors(two_sources, tmp_path, argv, words):
    from tests.support.cli import error_line

    code, _, err = run_cli("image", "--ms", two_sources, *IMAGE, *argv, "--out", tmp_path / "b")
    assert code == 2
    assert words in error_line(err)
    assert not list(tmp_path.iterdir())


def test_an_existing_set_is_refused_and_force_replaces_the_single_image(two_sources, tmp_path):
    prefix = tmp_path / "r"
    code, _, err = run_cli("image", "--ms", two_sources, *IMAGE, "--no-png", "--out", prefix)
    assert code == 0, err
    code, _, err = run_cli("image", "--ms", two_sources, *IMAGE, "--no-png", "--channels-out",
                           2, "--out", prefix)  # fmt: skip
    assert code == 2 and "already exists; pass --force" in err
    _image(two_sources, prefix, "--force")
    assert not Path(f"{prefix}-dirty.fits").exists()  # no file of the older set stays
    assert Path(f"{prefix}-0003-dirty.fits").is_file()


@pytest.mark.parametrize(
    ("nchan", "n", "sizes"), [(8, 4, [2, 2, 2, 2]), (10, 4, [2, 3, 2, 3]), (5, 5, [1] * 5)]
)
def test_channel_ranges_split_as_wsclean(nchan, n, sizes):
    from uvlab.app.commands.image_channels import channel_ranges

    ranges = channel_ranges(nchan, n)
    assert [b - a for a, b in ranges] == sizes
    assert ranges[0][0] == 0 and ranges[-1][1] == nchan
    assert all(a1 == b0 for (_, b0), (a1, _) in itertools.pairwise(ranges))


def test_an_all_flagged_output_channel_is_named(two_sources):
    from dataclasses import replace

    from uvlab.app.commands.image_channels import image_channels
    from uvlab.app.ms.reader import read_visibilities
    from uvlab.gpu.imaging.imager import ImagingError
    from uvlab.gpu.imaging.weighting import Weighting

    vd = read_visibilities(str(two_sources))
    flag = vd.flag.copy()
    flag[:, 2:4] = True
    with pytest.raises(ImagingError, match=r"output channel 1 \(input channels 2-3\): every"):
        image_channels(replace(vd, flag=flag), ImageSpec(NPIX, CELL), NOUT, Weighting(),
                       "ducc", None, "cpu")  # fmt: skip


def test_the_memory_check_counts_every_output_channel(two_sources, tmp_path, monkeypatch):
    from argparse import Namespace

    from uvlab.app.commands.image_channels import channels_estimate
    from uvlab.app.runtime import memory
    from uvlab.app.runtime.memory_limits import Available

    for niter, join, per in ((0, False, 2), (10, False, 5), (0, True, 2), (10, True, 12)):
        args = Namespace(channels_out=4, niter=niter, join_channels=join)
        assert channels_estimate(args, 64).total == 4 * per * 64 * 64 * 8
    # joined multiscale: 10 N² more per scale above 0, the scales given or 4, 8, 16, 32
    for scales, nscale in (((0.0, 6.0, 12.0), 2), (None, 4)):
        args = Namespace(channels_out=4, niter=10, join_channels=True, multiscale=True,
                         multiscale_scales=scales)  # fmt: skip
        assert channels_estimate(args, 64).total == 4 * (12 + 10 * nscale) * 64 * 64 * 8
    calls = []  # the read passes (the command's check, the MS source's); imaging finds 1 MiB

    def available():
        calls.append(1)
        return Available(2**40 if len(calls) <= 2 else 2**20, "test")

    monkeypatch.setattr(memory, "available_memory", available)
    code, _, err = run_cli("image", "--ms", two_sources, *IMAGE, "--channels-out", NOUT,
                           "--out", tmp_path / "m")  # fmt: skip
    assert code != 0 and "in 4 output channels" in err and "output channel images" in err
    assert not list(tmp_path.iterdir())


def test_join_channels_weights_every_channel_on_one_density_grid(two_sources, tmp_path):
    """WSClean's MF weighting: the channels' weighted mean is then the MFS image."""
    prefix = tmp_path / "mf"
    _image(two_sources, prefix, "--weighting", "uniform", "--join-channels")
    dirty, weights = [], []
    for k in range(NOUT):
        image, _ = _fits(f"{prefix}-{k:04d}-dirty.fits")
        want, wsum = _oracle(two_sources, 2 * k, 2 * k + 2, "uniform", mf=True)
        assert np.abs(image - want).max() <= 1e-6 * np.abs(want).max(), k
        dirty.append(image)
        weights.append(wsum)
    mfs, _ = _fits(f"{prefix}-MFS-dirty.fits")
    mean = np.tensordot(np.array(weights) / np.sum(weights), dirty, 1)
    assert np.abs(mfs - mean).max() <= 1e-6 * np.abs(mfs).max()
