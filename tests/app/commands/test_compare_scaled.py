"""``uvlab compare --workers/--scheduler/--abs-mem/--chunk-rows``: the chunked path (issue 27).

Oracle: ``uvlab compare`` of the same MS without them (the whole selection read at once;
its reference is the float64 DFT of test_compare.py and gpu/test_dft.py), whose FITS maps
and metrics the chunked run must give to 1e-6 (the error and bound maps are in units of
the DFT peak already). The chunked runs join the package's cluster (``cluster``,
tests/app/commands/conftest.py), in uneven chunks of 17 rows (6 times × 15 baselines).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from astropy.io import fits

from tests.support.cli import run_cli
from tests.support.ms_factory import make_ms

GEOMETRY = ["--npix", "32", "--cell-arcsec", "40", "--device", "cpu", "--repeats", "1"]
ALGORITHMS = ("conv", "ducc", "nn")  # conv sums grids, ducc a NUFFT a worker, nn images
#: The metrics of each algorithm that do not depend on timing.
MEASURED = ("rms_central", "rms_full", "max_error", "bound_max", "error_over_bound_max")


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    path = tmp_path_factory.mktemp("cmp-scaled") / "obs.ms"
    make_ms(path, np.random.default_rng(7), spw_nchan=(4,), ntime=6, nant=6)
    return path


@pytest.mark.parametrize(
    ("weighting", "step"),
    # natural with the whole reference in `make test-all` only: briggs with a subsampled
    # reference covers the same sums, the density pass besides
    [pytest.param("natural", "1", marks=pytest.mark.slow), ("briggs", "2")],
)
def test_chunked_compare_gives_the_one_process_maps_and_metrics(
    ms, cluster, tmp_path, weighting, step
):
    args = ["compare", "--ms", ms, *GEOMETRY, "--weighting", weighting, "--dft-step", step,
            "--algorithms", ",".join(ALGORITHMS)]  # fmt: skip
    code, _, err = run_cli(*args, "--out", tmp_path / "one")
    assert code == 0, err
    code, out, err = run_cli(*args, *cluster, "--chunk-rows", "17", "--out", tmp_path / "many")
    assert code == 0, err
    assert "Dask cluster tcp://127.0.0.1:" in err and "2 workers" in err
    names = ["dft-dirty"] + [f"{a}-{k}" for a in ALGORITHMS for k in ("dirty", "error")]
    names += [f"{a}-analytic" for a in ALGORITHMS] + ["conv-bound", "nn-bound"]
    peak = np.abs(fits.getdata(tmp_path / "one" / "dft-dirty.fits")).max()
    for name in names:
        want = fits.getdata(tmp_path / "one" / f"{name}.fits")
        got = fits.getdata(tmp_path / "many" / f"{name}.fits")
        scale = peak if name.endswith("dirty") else 1.0  # the maps are relative to the peak
        np.testing.assert_allclose(got, want, atol=1e-6 * scale, rtol=0, err_msg=name)
    assert not (tmp_path / "many" / "ducc-bound.fits").exists()  # ducc0's kernel: no bound
    one = json.loads((tmp_path / "one" / "metrics.json").read_text())
    many = json.loads((tmp_path / "many" / "metrics.json").read_text())
    for key in ("reference", "reference_step", "npix", "cell_arcsec", "nvis"):
        assert many[key] == one[key], key
    assert many["reference_step"] == int(step) and many["nvis"] > 0
    assert "chunked" in many["timing_path"] and "timing_path" not in one
    for a in ALGORITHMS:
        m, w = many["algorithms"][a], one["algorithms"][a]
        assert m["nvis"] == w["nvis"] and m["bound_step"] == w["bound_step"]
        for key in MEASURED:
            if w[key] is None:
                assert m[key] is None, (a, key)
            else:
                assert m[key] == pytest.approx(w[key], rel=1e-6, abs=1e-9), (a, key)
        assert m["runs_s"] == [pytest.approx(m["total_s"])] and m["total_s"] > 0
    assert w["max_error"] > 1e-6  # nn's error is far above the tolerance: the test can fail
    assert "rms central" in out and "wrote" in out


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--workers", "0"], "--workers"),
        (["--abs-mem", "nan"], "--abs-mem"),
        (["--chunk-rows", "-3"], "--chunk-rows"),
        (["--chunk-rows", "x"], "--chunk-rows"),
        (["--dft-step", "3", "--chunk-rows", "5"], "--dft-step"),
    ],
)
def test_bad_cluster_options_are_usage_errors(ms, tmp_path, extra, named):
    code, _, err = run_cli("compare", "--ms", ms, *GEOMETRY, *extra, "--out", tmp_path / "x")
    assert code == 2 and len(err.strip().splitlines()) == 1 and named in err, err
    assert not (tmp_path / "x").exists()


def test_the_chunked_path_needs_a_geometry(ms, tmp_path):
    code, _, err = run_cli("compare", "--ms", ms, "--npix", "32", "--workers", "2", "--out",
                           tmp_path / "x")  # fmt: skip
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--cell-arcsec" in err, err


def test_a_synthetic_observation_is_compared_in_memory_only(tmp_path):
    code, _, err = run_cli("compare", "--array", "kat-7", "--ra", "0", "--dec", "-30", "--sky",
                           "point", "--workers", "2", "--out", tmp_path / "x")  # fmt: skip
    assert code == 2 and len(err.strip().splitlines()) == 1 and "need --ms" in err, err


def test_too_little_memory_is_refused_before_any_work(ms, tmp_path):
    code, _, err = run_cli("compare", "--ms", ms, *GEOMETRY, "--workers", "1", "--abs-mem",
                           "0.0001", "--out", tmp_path / "m")  # fmt: skip
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "per worker" in err and "--abs-mem" in err
    assert not list(tmp_path.iterdir())


def test_chunks_sized_from_abs_mem(ms, tmp_path):
    """No --chunk-rows: the rows planned from a worker's share, on a cluster of its own."""
    code, out, err = run_cli("compare", "--ms", ms, *GEOMETRY, "--algorithms", "nn", "--workers",
                             "1", "--abs-mem", "0.5", "--out", tmp_path / "m")  # fmt: skip
    assert code == 0, err
    assert "rows per chunk" in err and "image-sized per worker" in err and "1 worker" in err
    metrics = json.loads((tmp_path / "m" / "metrics.json").read_text())
    assert metrics["nvis"] > 0 and "grid " not in out  # no grid stage of its own to report


@pytest.mark.gpu
def test_chunked_compare_on_gpu_workers_gives_the_one_process_maps(ms, tmp_path):
    """GPU workers (a local cluster pinned to the GPU): each chunk's image and its DFT
    reference on the device, the maps and metrics of the one-process GPU comparison."""
    args = ["compare", "--ms", ms, "--npix", "32", "--cell-arcsec", "40", "--device", "gpu",
            "--repeats", "1", "--weighting", "uniform", "--dft-step", "1",
            "--algorithms", "conv,nn"]  # fmt: skip
    code, _, err = run_cli(*args, "--out", tmp_path / "one")
    assert code == 0, err
    code, _, err = run_cli(*args, "--workers", "1", "--chunk-rows", "17",
                           "--out", tmp_path / "many")  # fmt: skip
    assert code == 0, err
    assert "on GPUs" in err
    peak = np.abs(fits.getdata(tmp_path / "one" / "dft-dirty.fits")).max()
    for name in ("dft-dirty", "conv-dirty", "nn-dirty", "conv-error", "nn-error"):
        want = fits.getdata(tmp_path / "one" / f"{name}.fits")
        got = fits.getdata(tmp_path / "many" / f"{name}.fits")
        scale = peak if name.endswith("dirty") else 1.0
        np.testing.assert_allclose(got, want, atol=1e-6 * scale, rtol=0, err_msg=name)
    many = json.loads((tmp_path / "many" / "metrics.json").read_text())
    assert many["reference_device"] == "gpu"
