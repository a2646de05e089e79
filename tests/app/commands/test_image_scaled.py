"""``uvlab image --workers/--scheduler/--abs-mem/--chunk-rows``: the chunked path (issue 27).

Oracle: ``uvlab image`` of the same MS without them (the whole selection read at once),
whose images are tested against the DFT and tclean; the FITS must agree to rounding. The
chunked runs join the package's cluster (``cluster``, tests/app/commands/conftest.py); the
command's own (``--workers``) is test_chunks_sized_from_abs_mem's and
test_cotton_schwab_on_the_grid_path_sized_from_abs_mem's.
"""

from __future__ import annotations

import numpy as np
import pytest
from astropy.io import fits

from tests.support.cli import run_cli
from tests.support.ms_factory import make_ms

GEOMETRY = ["--npix", "64", "--cell-arcsec", "30", "--no-png", "--device", "cpu"]


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    """90 rows to image (6 times × 15 baselines): ``--chunk-rows 40`` splits them unevenly
    in three (40, 40, 10), the smaller sizes below in more."""
    path = tmp_path_factory.mktemp("scaled") / "obs.ms"
    make_ms(path, np.random.default_rng(5), spw_nchan=(4,), ntime=6, nant=6)
    return path


@pytest.mark.parametrize(
    ("weighting", "algorithm"),
    [("natural", "ducc"), ("uniform", "ducc"), ("natural", "conv"), ("briggs", "conv")],
)  # ducc sums images, conv grids (gpu/imaging/grid_parts.py)
def test_chunks_over_local_workers_write_the_same_images(
    ms, cluster, tmp_path, weighting, algorithm
):
    args = ["image", "--ms", ms, *GEOMETRY, "--weighting", weighting, "--algorithm", algorithm]
    code, _, err = run_cli(*args, "--out", tmp_path / "one")
    assert code == 0, err
    code, _, err = run_cli(*args, *cluster, "--chunk-rows", "40",
                             "--out", tmp_path / "many")  # fmt: skip
    assert code == 0, err
    assert "Dask cluster tcp://127.0.0.1:" in err and "2 workers" in err
    for kind in ("dirty", "psf"):
        want = fits.getdata(tmp_path / f"one-{kind}.fits")
        got = fits.getdata(tmp_path / f"many-{kind}.fits")
        np.testing.assert_allclose(got, want, atol=1e-6 * np.abs(want).max())
    header = fits.getheader(tmp_path / "many-dirty.fits")
    assert header["BMAJ"] == pytest.approx(fits.getheader(tmp_path / "one-dirty.fits")["BMAJ"])


@pytest.mark.parametrize(
    ("deconvolver", "cells"), [("hogbom", "wsclean"), ("cotton-schwab", "casa")]
)
def test_clean_over_local_workers_writes_the_same_images(ms, cluster, tmp_path, deconvolver, cells):
    """WSClean's density cells too: the first pass counts on them, the PSFs weight by them
    (on CASA's cells this PSF differs by 7.7e-2 of its peak: the chunks did use them)."""
    args = ["image", "--ms", ms, *GEOMETRY, "--weighting", "uniform", "--niter", "30",
            "--deconvolver", deconvolver, "--mgain", "0.7", "--density-cells", cells]  # fmt: skip
    code, out, err = run_cli(*args, "--out", tmp_path / "one")
    assert code == 0, err
    code, out, err = run_cli(*args, *cluster, "--chunk-rows", "23",
                             "--out", tmp_path / "many")  # fmt: skip
    assert code == 0, err
    assert f"{deconvolver}: 30 iterations" in out
    assert "CLEAN keeps the selection's data on the workers" in err  # read once, then held
    assert "CLEAN's passes sum a ducc0 NUFFT per worker" in err  # ducc
    for kind in ("psf", "model", "residual", "image"):
        want = fits.getdata(tmp_path / f"one-{kind}.fits")
        got = fits.getdata(tmp_path / f"many-{kind}.fits")
        np.testing.assert_allclose(got, want, atol=1e-6 * np.abs(want).max())
    history = "".join(fits.getheader(tmp_path / "many-psf.fits")["HISTORY"])
    assert ("density_cells=wsclean density_padding=1.2" in history) == (cells == "wsclean")
    one = (tmp_path / "one-sources.txt").read_text().splitlines()
    assert len((tmp_path / "many-sources.txt").read_text().splitlines()) == len(one)


def test_size_and_pb_correct_in_chunks_write_the_same_images(ms, cluster, tmp_path):
    """--size W H and --pb-correct on the chunked path: the in-memory path's files."""
    geometry = [g for g in GEOMETRY if g not in ("--npix", "64")]
    args = ["image", "--ms", ms, *geometry, "--size", "48", "32", "--niter", "20",
            "--mask-box", "4", "4", "44", "28", "--pb-correct", "--pb-model", "airy",
            "--pb-dish-diameter-m", "13.5"]  # fmt: skip
    code, _, err = run_cli(*args, "--out", tmp_path / "one")
    assert code == 0, err
    code, _, err = run_cli(*args, *cluster, "--chunk-rows", "19",
                           "--out", tmp_path / "many")  # fmt: skip
    assert code == 0, err
    for kind in ("dirty", "psf", "model", "residual", "image", "pb", "image-pb"):
        want = fits.getdata(tmp_path / f"one-{kind}.fits")
        got = fits.getdata(tmp_path / f"many-{kind}.fits")
        assert got.shape[-2:] == (32, 48), kind
        np.testing.assert_allclose(got, want, atol=1e-6 * np.nanmax(np.abs(want)), err_msg=kind)
        head = fits.getheader(tmp_path / f"many-{kind}.fits")
        assert (head["CRPIX1"], head["CRPIX2"]) == (25, 17)


def test_row_selections_in_chunks_write_the_same_images(ms, cluster, tmp_path):
    """--antenna, --timerange, --phase-center and --minuv-l/--maxuv-l on the chunked path:
    the in-memory path's images (rows left out there are flagged in the chunks)."""
    from casacore import tables

    with tables.table(str(ms), ack=False) as t:
        t0 = float(np.unique(t.getcol("TIME"))[2])
    day_s = np.floor(t0 % 86400.0 * 1e3) / 1e3  # just before timestep 2
    start = f"{int(day_s // 3600):02d}:{int(day_s % 3600 // 60):02d}:{day_s % 60:06.3f}"
    args = ["image", "--ms", ms, *GEOMETRY, "--weighting", "uniform", "--antenna", "!1",
            "--timerange", f">{start}", "--phase-center", "57.9", "-28.2",
            "--minuv-l", "5", "--maxuv-l", "4000"]  # fmt: skip
    code, out_one, err = run_cli(*args, "--out", tmp_path / "one")
    assert code == 0, err
    code, out_many, err = run_cli(*args, *cluster, "--chunk-rows", "7",
                                  "--out", tmp_path / "many")  # fmt: skip
    assert code == 0, err
    nvis = [int(o.split(" visibilities")[0].split()[-1]) for o in (out_one, out_many)]
    assert nvis[0] == nvis[1] > 0
    for kind in ("dirty", "psf"):
        want = fits.getdata(tmp_path / f"one-{kind}.fits")
        got = fits.getdata(tmp_path / f"many-{kind}.fits")
        np.testing.assert_allclose(got, want, atol=1e-6 * np.abs(want).max(), err_msg=kind)
    for key in ("CRVAL1", "CRVAL2"):
        assert fits.getheader(tmp_path / "many-dirty.fits")[key] == pytest.approx(
            fits.getheader(tmp_path / "one-dirty.fits")[key], abs=1e-9
        )  # fmt: skip


def test_interval_in_chunks_keeps_the_same_timesteps(ms, cluster, tmp_path):
    args = ["image", "--ms", ms, *GEOMETRY, "--interval", "1", "9", "--antenna", "0,2,3"]
    code, _, err = run_cli(*args, "--out", tmp_path / "one")
    assert code == 0, err
    code, _, err = run_cli(*args, *cluster, "--chunk-rows", "5",
                                  "--out", tmp_path / "many")  # fmt: skip
    assert code == 0, err
    want = fits.getdata(tmp_path / "one-dirty.fits")
    np.testing.assert_allclose(fits.getdata(tmp_path / "many-dirty.fits"), want,
                               atol=1e-6 * np.abs(want).max())  # fmt: skip
    code, _, err = run_cli(*args[:-5], "--interval", "7", "9", *cluster,
                           "--out", tmp_path / "bad")  # fmt: skip
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "--interval" in err and "6 timesteps" in err


@pytest.mark.parametrize("algorithm", ["ducc", "conv"])  # a NUFFT a worker, grids summed
def test_chunks_sized_from_abs_mem(ms, tmp_path, algorithm):
    code, _, err = run_cli("image", "--ms", ms, *GEOMETRY, "--workers", "1", "--abs-mem",
                           "0.5", "--algorithm", algorithm, "--out", tmp_path / "m")  # fmt: skip
    assert code == 0, err
    assert "rows per chunk" in err and "image-sized per worker" in err


@pytest.mark.parametrize("algorithm", ["ducc", "conv"])
def test_too_little_memory_is_refused_before_any_work(ms, tmp_path, algorithm):
    code, _, err = run_cli("image", "--ms", ms, *GEOMETRY, "--workers", "1", "--abs-mem",
                           "0.0001", "--algorithm", algorithm, "--out", tmp_path / "m")  # fmt: skip
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "per worker" in err and "--abs-mem" in err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--workers", "0"], "--workers"),
        (["--abs-mem", "nan"], "--abs-mem"),
        (["--chunk-rows", "-3"], "--chunk-rows"),
        (["--workers", "2", "--niter", "10", "--gain", "0"], "--gain"),
        (["--workers", "2", "--channels-out", "9"], "--channels-out"),
        (["--workers", "2", "--size", "48", "48"], "--npix"),
    ],
)
def test_bad_or_unsupported_options_are_usage_errors(ms, tmp_path, extra, named):
    code, _, err = run_cli("image", "--ms", ms, *GEOMETRY, *extra, "--out", tmp_path / "x")
    assert code == 2 and len(err.strip().splitlines()) == 1 and named in err


@pytest.mark.parametrize(
    ("weighting", "niter"), [("natural", "0"), ("uniform", "0"), ("briggs", "25")]
)
def test_channels_out_in_chunks_writes_the_same_cube(ms, cluster, tmp_path, weighting, niter):
    """--channels-out 2: every output channel's files and the MFS set as the in-memory cube's
    (each channel its own density and PSF, CLEANed on its own; MFS images their mean)."""
    args = ["image", "--ms", ms, *GEOMETRY, "--weighting", weighting, "--channels-out", "2",
            "--niter", niter, "--mgain", "0.8"]  # fmt: skip
    code, _, err = run_cli(*args, "--out", tmp_path / "one")
    assert code == 0, err
    code, out, err = run_cli(*args, *cluster, "--chunk-rows", "40",
                             "--out", tmp_path / "many")  # fmt: skip
    assert code == 0, err
    assert "channel 0001: input channels 2-3" in out
    kinds = ["dirty", "psf"] + (["model", "residual", "image"] if niter != "0" else [])
    for tag in ("0000", "0001", "MFS"):
        for kind in kinds:
            want = fits.getdata(tmp_path / f"one-{tag}-{kind}.fits")
            got = fits.getdata(tmp_path / f"many-{tag}-{kind}.fits")
            np.testing.assert_allclose(got, want, atol=1e-6 * np.abs(want).max(),
                                       err_msg=f"{tag}-{kind}")  # fmt: skip
    assert not (tmp_path / "many-dirty.fits").exists()
    if weighting == "natural":  # imaging weights = data weights: the same centre frequency
        for tag in ("0000", "0001"):
            want = fits.getheader(tmp_path / f"one-{tag}-dirty.fits")
            got = fits.getheader(tmp_path / f"many-{tag}-dirty.fits")
            assert got["CRVAL3"] == pytest.approx(want["CRVAL3"], rel=1e-12)
            assert got["CDELT3"] == pytest.approx(want["CDELT3"], rel=1e-12)
            assert got["CRVAL3"] != pytest.approx(fits.getheader(
                tmp_path / "many-MFS-dirty.fits")["CRVAL3"], rel=1e-9)  # fmt: skip


def test_the_chunked_path_needs_a_geometry(ms, tmp_path):
    code, _, err = run_cli("image", "--ms", ms, "--workers", "2", "--out", tmp_path / "x")
    assert code == 2 and "--npix and --cell-arcsec" in err


def test_cotton_schwab_on_the_grid_path_sized_from_abs_mem(ms, tmp_path):
    """conv sums grids through CLEAN too (app/scale/ms_clean.py): chunks sized by
    clean_grid_costs under --abs-mem, the images those of the one-process run."""
    args = ["image", "--ms", ms, *GEOMETRY, "--weighting", "briggs", "--algorithm", "conv",
            "--niter", "30", "--deconvolver", "cotton-schwab", "--mgain", "0.6"]  # fmt: skip
    code, _, err = run_cli(*args, "--out", tmp_path / "one")
    assert code == 0, err
    code, out, err = run_cli(*args, "--workers", "2", "--abs-mem", "1", "--out",
                             tmp_path / "many")  # fmt: skip
    assert code == 0, err
    assert "rows per chunk" in err and "cotton-schwab: 30 iterations" in out
    assert "CLEAN's passes sum a grid per worker" in err
    for kind in ("psf", "model", "residual", "image"):
        want = fits.getdata(tmp_path / f"one-{kind}.fits")
        got = fits.getdata(tmp_path / f"many-{kind}.fits")
        np.testing.assert_allclose(got, want, atol=1e-6 * np.abs(want).max(), err_msg=kind)


@pytest.mark.parametrize(
    ("weighting", "deconvolver", "algorithm", "extra"),
    [("uniform", "cotton-schwab", "conv", []),
     ("natural", "hogbom", "ducc", ["--fit-spectral-pol", "2", "--multiscale"])],
    ids=["uniform-cs-grids", "natural-multiscale-fit-nufft"],
)  # fmt: skip
def test_join_channels_in_chunks_writes_the_same_cube(ms, cluster, tmp_path, weighting,
                                                      deconvolver, algorithm, extra):  # fmt: skip
    """--join-channels: MF weighting (each channel weighted by all channels' density) and
    joined CLEAN, every pass over the cluster: the in-memory cube's files."""
    args = ["image", "--ms", ms, *GEOMETRY, "--weighting", weighting, "--channels-out", "2",
            "--join-channels", "--niter", "40", "--deconvolver", deconvolver, "--mgain", "0.6",
            "--algorithm", algorithm, *extra]  # fmt: skip
    code, out_one, err = run_cli(*args, "--out", tmp_path / "one")
    assert code == 0, err
    code, out, err = run_cli(*args, *cluster, "--chunk-rows", "40",
                             "--out", tmp_path / "many")  # fmt: skip
    assert code == 0, err
    summed = "a grid per worker" if algorithm == "conv" else "a ducc0 NUFFT per worker"
    assert f"CLEAN's passes sum {summed}" in err
    # each channel's CLEAN line: the joined CLEAN's iterations, stop and residual peak
    cleans = [line.split("; CLEAN")[1] for line in out_one.splitlines() if "; CLEAN" in line]
    assert len(cleans) == 2 and all(f"; CLEAN{c}" in out for c in cleans)
    for tag in ("0000", "0001", "MFS"):
        for kind in ("dirty", "psf", "model", "residual", "image"):
            want = fits.getdata(tmp_path / f"one-{tag}-{kind}.fits")
            got = fits.getdata(tmp_path / f"many-{tag}-{kind}.fits")
            np.testing.assert_allclose(got, want, atol=1e-6 * np.abs(want).max(),
                                       err_msg=f"{tag}-{kind}")  # fmt: skip
    # joined: every channel's components at the same pixels
    m0, m1 = (fits.getdata(tmp_path / f"many-{t}-model.fits") != 0 for t in ("0000", "0001"))
    assert m0.any() and (m0 == m1).all()
    one = (tmp_path / "one-sources.txt").read_text().splitlines()
    assert (tmp_path / "many-sources.txt").read_text().splitlines()[0] == one[0]
