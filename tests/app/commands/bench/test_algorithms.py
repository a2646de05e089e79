"""`uvlab bench algorithms`: every catalogue algorithm timed and measured on the default scene."""

import json
from dataclasses import replace

import numpy as np
import pytest

from uvlab.app.cli import main
from uvlab.gpu.constants import C_LIGHT
from uvlab.gpu.gridders.registry import ALGORITHMS, NAMES, REFERENCE

NPIX = 64


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """The bench at 64², one run each, through the command line and its JSON."""
    path = tmp_path_factory.mktemp("bench") / "algorithms.json"
    argv = ["bench", "algorithms", "--device", "cpu", "--npix", str(NPIX), "--repeats", "1"]
    assert main([*argv, "--json", str(path)]) == 0
    return json.loads(path.read_text())


def test_every_catalogue_algorithm_is_reported(report):
    assert list(report["algorithms"]) == list(NAMES)
    assert report["device"] == "cpu" and report["npix"] == NPIX and report["repeats"] == 1
    assert report["nvis"] == 180 * 2016 * 4
    conv_s = report["algorithms"]["conv"]["median_s"]
    for name in ALGORITHMS:
        r = report["algorithms"][name]
        assert np.isfinite(r["error"]) and r["error"] >= 0
        assert r["min_s"] <= r["median_s"] <= r["max_s"] and len(r["samples_s"]) == 1
        # an imaging-only change: the held prediction is re-imaged, nothing predicted
        assert "grid" in r["timing_s"] and "predict" not in r["timing_s"]
        assert r["x_conv"] == pytest.approx(r["median_s"] / conv_s)
    # the DFT over 64² × 1.45e6 visibilities exceeds the CPU budget: skipped, with the reason
    assert "budget" in report["algorithms"][REFERENCE]["skipped"]


def test_errors_rank_as_the_algorithms_promise(report):
    err = {name: report["algorithms"][name]["error"] for name in ALGORITHMS}
    assert err["conv"] < 1e-5 and err["ducc"] < 1e-5  # ε = 1e-5
    assert err["nn"] > 100 * max(err["conv"], err["ducc"])  # raw aliasing, no correction
    assert err["nn"] > 10 * max(err["hybrid"], err["pruned-nn"], err["nn-oversampled"])


def _phasors(x, axis):
    """``e^{−2πi x_k a_i}`` (k, i) for an evenly spaced ``axis``, by recurrence along it.

    ``e^{−2πi x (a_0 + i·Δ)} = e^{−2πi x a_0} · (e^{−2πi x Δ})^i``: two exponentials per
    ``x`` and a running product (its rounding grows as i·ε, 1e-14 here), where the table
    of every product would take one exponential per entry (most of this test's time).
    """
    delta = axis[1] - axis[0]
    np.testing.assert_allclose(np.diff(axis), delta, rtol=1e-12)
    out = np.empty((x.size, axis.size), complex)
    out[:, 0] = np.exp(-2j * np.pi * x * axis[0])
    out[:, 1:] = np.exp(-2j * np.pi * x * delta)[:, None]
    return np.cumprod(out, axis=1, out=out)


def _independent_dft(samples, spec, step: int):
    """Natural-weighted dirty image on every ``step``-th pixel by a float64 direct sum."""
    keep = ~np.broadcast_to(samples.flag, samples.vis.shape)
    weight = np.broadcast_to(samples.weight, samples.vis.shape)[keep]
    wavelengths = np.asarray(samples.freq_hz)[None, :] / C_LIGHT
    u = (samples.uvw[:, 0:1] * wavelengths)[keep]
    v = (samples.uvw[:, 1:2] * wavelengths)[keep]
    wvis = weight * samples.vis[keep]
    lax, max_ = spec.l_axis()[::step], spec.m_axis()[::step]
    img = np.zeros((max_.size, lax.size))
    for s in range(0, u.size, 50_000):  # I[j, i] = Re Σ_k e^{−2πi v_k m_j} wvis_k e^{−2πi u_k l_i}
        a = _phasors(u[s : s + 50_000], lax) * wvis[s : s + 50_000, None]
        b = _phasors(v[s : s + 50_000], max_)
        img += (b.T @ a).real
    return img / weight.sum()


def test_reported_error_matches_an_independent_direct_dft(report):
    """nn's reported error, recomputed from the job's nn image and a direct sum written here."""
    from uvlab.app.commands.bench.worker import default_request
    from uvlab.app.lab.live import run_job
    from uvlab.app.lab.samples import WorkCache
    from uvlab.app.lab.sources import read_samples

    base = default_request("cpu", NPIX)
    request = replace(base, imaging=replace(base.imaging, algorithm="nn"))
    cache = WorkCache()
    image = run_job(request, cache).dirty
    samples = read_samples(request, cache)
    step = report["reference"]["step"]
    ref = _independent_dft(samples, samples.spec, step)
    err = np.abs(image[::step, ::step] - ref) / np.abs(ref).max()
    assert report["algorithms"]["nn"]["error"] == pytest.approx(np.sqrt(np.mean(err**2)), rel=1e-6)
    assert report["algorithms"]["nn"]["metrics"]["max_error"] == pytest.approx(err.max(), rel=1e-6)


def test_gpu_without_a_device_skips_every_algorithm(tmp_path, monkeypatch, capsys):
    """``--device gpu`` where no GPU can be used: each algorithm skipped with the reason, exit 0."""
    from uvlab.gpu import backend

    def no_gpu(device="auto"):
        raise backend.DeviceError("no usable CUDA device (test)")

    monkeypatch.setattr(backend, "resolve_device", no_gpu)
    path = tmp_path / "gpu.json"
    assert main(["bench", "algorithms", "--device", "gpu", "--json", str(path)]) == 0
    result = json.loads(path.read_text())
    assert set(result["algorithms"]) == set(NAMES)
    assert all("no usable CUDA device" in r["skipped"] for r in result["algorithms"].values())
    assert "skipped" in capsys.readouterr().out


def test_odd_npix_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "algorithms", "--npix", "65"])
    assert exc.value.code == 2
    assert "--npix" in capsys.readouterr().err


@pytest.mark.gpu
def test_gpu_measures_every_algorithm(report):
    """On a CUDA device every algorithm runs (the DFT within the GPU's budget), and the
    errors rank as on the CPU (the CPU run of the same scene for scale)."""
    from uvlab.app.commands.bench.algorithms import bench_algorithms

    gpu = bench_algorithms("gpu", NPIX, 1)
    assert gpu["device"] == "gpu" and list(gpu["algorithms"]) == list(NAMES)
    err = {name: r["error"] for name, r in gpu["algorithms"].items()}
    assert err[REFERENCE] < 1e-9  # the DFT against the DFT
    assert all(np.isfinite(e) for e in err.values())
    assert err["conv"] < 1e-4 and err["ducc"] < 1e-4  # ε = 1e-5, whatever the precision
    assert err["nn"] == pytest.approx(report["algorithms"]["nn"]["error"], rel=0.5)
    assert err["nn"] > 100 * max(err["conv"], err["ducc"])
