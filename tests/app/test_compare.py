"""The compare engine (uvlab.app.lab.compare) and ``uvlab compare``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.app.cmd_support import run_cli
from uvlab.app.lab.compare import compare_algorithms, dft_step
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.imaging.spec import ImageSpec

C = 299792458.0
ALGOS = ["conv", "nn", "hybrid", "pruned-nn"]


@pytest.fixture(scope="module")
def data():
    """Random uv coverage and three point sources (two off-pixel), 1 channel."""
    rng = np.random.default_rng(5)
    nrow, freq = 3000, np.array([1.0e9])
    r = 2000.0 * np.sqrt(rng.random(nrow))
    phi = rng.uniform(0, 2 * np.pi, nrow)
    uvw = np.stack([r * np.cos(phi), r * np.sin(phi), rng.normal(0, 50, nrow)], axis=1)
    spec = ImageSpec(64, 1.0 / (3 * 2000 * freq[0] / C))
    u, v = uvw[:, 0] * freq[0] / C, uvw[:, 1] * freq[0] / C
    vis = np.zeros(nrow, complex)
    for di, dj, s in [(0, 0, 1.0), (7.3, -11.6, 0.5), (-20.5, 14.2, 0.3)]:
        l, m = -di * spec.cell_rad, dj * spec.cell_rad
        vis += s * np.exp(2j * np.pi * (u * l + v * m))
    return uvw, freq, vis[:, None], spec


def _direct(uvw, freq, vis, spec, pixels):
    """float64 DFT at a few (j, i) pixels, unit weights, normalised by Σw."""
    u, v = uvw[:, 0] * freq[0] / C, uvw[:, 1] * freq[0] / C
    l, m = spec.l_axis(), spec.m_axis()
    return np.array(
        [
            np.real(np.sum(vis[:, 0] * np.exp(-2j * np.pi * (u * l[i] + v * m[j])))) / len(u)
            for j, i in pixels
        ]
    )


def test_errors_rank_sensibly_against_the_exact_dft(data):
    uvw, freq, vis, spec = data
    cmp = compare_algorithms(
        uvw,
        freq,
        vis,
        1.0,
        spec,
        algorithms=ALGOS,
        params=GridParams(support=7, oversample=16),
        device="cpu",
    )
    pixels = [(32, 32), (20, 25), (40, 12), (5, 60)]
    np.testing.assert_allclose(
        [cmp.reference[p] for p in pixels], _direct(uvw, freq, vis, spec, pixels), atol=1e-12
    )
    assert cmp.step == 1 and cmp.reference_label == "dft" and cmp.nvis == len(uvw)
    err = {name: r.metrics for name, r in cmp.results.items()}
    for name in ("conv", "hybrid", "pruned-nn"):
        assert err[name]["rms_central"] < err["nn"]["rms_central"] / 10, name
        assert err[name]["max_error"] < err["nn"]["max_error"], name
    assert err["conv"]["rms_central"] < 1e-5
    for r in cmp.results.values():
        assert r.image.shape == r.error.shape == (64, 64)
        np.testing.assert_allclose(r.error, np.abs(r.image - cmp.reference) / cmp.reference.max())
        assert r.rate_vis_per_s == pytest.approx(r.nvis / r.timing["grid"])
    m = cmp.metrics()
    assert set(m["algorithms"]) == set(ALGOS) and m["reference"] == "dft"
    assert {"rms_central", "rms_full", "max_error", "timing", "rate_vis_per_s"} <= set(
        m["algorithms"]["nn"]
    )


def test_a_subsampled_reference_compares_on_its_pixels_only(data):
    uvw, freq, vis, spec = data
    full = compare_algorithms(uvw, freq, vis, 1.0, spec, algorithms=["nn"], device="cpu")
    sub = compare_algorithms(uvw, freq, vis, 1.0, spec, algorithms=["nn"], device="cpu", step=4)
    assert sub.reference.shape == (16, 16)
    np.testing.assert_allclose(sub.reference, full.reference[::4, ::4], atol=1e-13)
    assert sub.reference_label == "dft subsampled every 4 pixels"
    assert sub.metrics()["reference"] == "dft subsampled every 4 pixels"
    r = sub.results["nn"]
    np.testing.assert_allclose(
        r.error, np.abs(r.image[::4, ::4] - sub.reference) / sub.reference.max()
    )
    with pytest.raises(ValueError, match="must divide N/2 = 32"):
        compare_algorithms(uvw, freq, vis, 1.0, spec, algorithms=["nn"], step=3)
    with pytest.raises(ValueError, match="dft is the reference"):
        compare_algorithms(uvw, freq, vis, 1.0, spec, algorithms=["dft"])


def test_dft_step_stays_within_budget_and_keeps_the_centre():
    assert dft_step(512, 100_000, 4e9) == 4  # (512/4)²·1e5 = 1.6e9 ≤ 4e9 < (512/2)²·1e5
    assert dft_step(128, 1000, 4e9) == 1
    for n, nvis in [(96, 10**6), (1000, 10**7), (4096, 10**8)]:
        k = dft_step(n, nvis, 4e9)
        assert (n // 2) % k == 0
        assert (n / k) ** 2 * nvis <= 4e9 or k == max(
            d for d in range(1, n // 16 + 1) if (n // 2) % d == 0
        )


SYNTH = (
    "--array",
    "kat-7",
    "--ra",
    "60",
    "--dec",
    "-45",
    "--ha-start",
    "-2",
    "--ha-stop",
    "2",
    "--int-s",
    "300",
    "--sky",
    "pair",
    "--no-smearing",
)


def test_compare_on_an_ms_writes_fits_metrics_and_report(tmp_path):
    from astropy.io import fits

    ms = tmp_path / "k.ms"
    assert run_cli("simulate", *SYNTH, "--device", "cpu", "--out", ms)[0] == 0
    out = tmp_path / "cmp"
    code, stdout, err = run_cli(
        "compare",
        "--ms",
        ms,
        "--algorithms",
        "conv,nn,pruned-nn",
        "--npix",
        "64",
        "--dft-step",
        "2",
        "--device",
        "cpu",
        "--out",
        out,
    )
    assert code == 0, err
    for name in ("conv", "nn", "pruned-nn"):
        assert fits.getdata(out / f"{name}-dirty.fits").shape == (1, 1, 64, 64)
        err_hdr = fits.getheader(out / f"{name}-error.fits")
        assert err_hdr["NAXIS1"] == 32 and err_hdr["CRPIX1"] == 17.0
        assert err_hdr["CDELT1"] == pytest.approx(
            2 * fits.getheader(out / "nn-dirty.fits")["CDELT1"]
        )
    # The analytic maps: full-size, with the WCS, and ranking conv (ES) far below nn.
    analytic = {}
    for name in ("conv", "nn", "pruned-nn"):
        data = fits.getdata(out / f"{name}-analytic.fits")[0, 0]
        assert data.shape == (64, 64) and np.all(data >= 0)
        assert fits.getheader(out / f"{name}-analytic.fits")["CTYPE1"] == "RA---SIN"
        analytic[name] = float(np.sqrt(np.mean(data**2)))
    assert analytic["conv"] < 1e-3 * analytic["nn"]
    assert analytic["pruned-nn"] < analytic["nn"]
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["reference"] == "dft subsampled every 2 pixels"
    algos = metrics["algorithms"]
    assert list(algos) == ["conv", "nn", "pruned-nn"]
    for m in algos.values():
        assert {"rms_central", "rms_full", "max_error", "timing", "rate_vis_per_s"} <= set(m)
        assert m["rate_vis_per_s"] > 0 and "grid" in m["timing"]
    assert algos["conv"]["rms_full"] < algos["nn"]["rms_full"]
    assert algos["pruned-nn"]["rms_full"] < algos["nn"]["rms_full"]
    assert (out / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "subsampled every 2 pixels" in stdout


def test_compare_a_synthetic_observation(tmp_path):
    code, _, err = run_cli(
        "compare",
        *SYNTH,
        "--algorithms",
        "conv,nn",
        "--npix",
        "64",
        "--device",
        "cpu",
        "--out",
        tmp_path / "syn",
    )
    assert code == 0, err
    metrics = json.loads((tmp_path / "syn" / "metrics.json").read_text())
    assert metrics["reference"] == "dft" and "kat-7" in metrics["data"]
    assert metrics["algorithms"]["conv"]["max_error"] < metrics["algorithms"]["nn"]["max_error"]


@pytest.mark.parametrize(
    "args, code, message",
    [
        (("--algorithms", "conv"), 2, "give --ms MS, or --array"),
        (("--ms", "x.ms", "--array", "kat-7"), 2, "not both"),
        ((*SYNTH, "--algorithms", "conv,magic"), 2, "unknown magic"),
        ((*SYNTH, "--algorithms", "dft"), 2, "dft is always the reference"),
        ((*SYNTH, "--npix", "200000"), 1, "a 200000² image needs about"),
        ((*SYNTH, "--nchan", "0"), 2, "argument --nchan: expected a whole number ≥ 1, got '0'"),
        ((*SYNTH, "--int-s", "-1"), 2, "argument --int-s: expected a number > 0, got '-1'"),
        (("--ms", "nowhere.ms"), 1, "nowhere.ms: no such file or folder"),
    ],
)
def test_compare_errors(tmp_path, args, code, message):
    got, _, err = run_cli("compare", *args, "--out", tmp_path / "o")
    assert got == code and message in err.strip().splitlines()[-1], err
    assert not (tmp_path / "o").exists()


def test_a_synthetic_observation_too_large_for_memory_is_refused_first(tmp_path, monkeypatch):
    import uvlab.app.observation as observation
    from tests.app.memory_support import fake_memory

    fake_memory(monkeypatch, tmp_path / "fake", cgroup_limit=2**30)

    def refuse(spec):
        raise AssertionError("the observation was simulated before the size check")

    monkeypatch.setattr(observation, "simulate_observation", refuse)
    args = ("compare", *SYNTH, "--nchan", "1e6", "--npix", "64", "--device", "cpu")
    code, stdout, err = run_cli(*args, "--algorithms", "conv,nn", "--out", tmp_path / "o")
    assert code == 1 and stdout == "" and err.count("\n") == 1, err
    assert err.startswith(
        "uvlab compare: error: this observation (48 integrations × 21 baselines × "
        "1000000 channels, 2 sources) and its 64² images needs about 135.6 GiB "
        "(samples 120.2 GiB + visibilities 15.0 GiB + dft reference 256.0 MiB + "
    ), err
    assert "only 1.0 GiB of memory is available (cgroup limit); use fewer channels" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.gpu
def test_gpu_reference_equals_the_cpu_one(data):
    uvw, freq, vis, spec = data
    cpu = compare_algorithms(uvw, freq, vis, 1.0, spec, algorithms=["nn"], device="cpu")
    gpu = compare_algorithms(uvw, freq, vis, 1.0, spec, algorithms=["nn"], device="gpu")
    assert gpu.reference_device == "gpu" and gpu.step == 1
    np.testing.assert_allclose(gpu.reference, cpu.reference, atol=1e-12)
    np.testing.assert_allclose(gpu.results["nn"].error, cpu.results["nn"].error, atol=1e-12)
    sub = compare_algorithms(uvw, freq, vis, 1.0, spec, algorithms=["nn"], device="gpu", step=8)
    np.testing.assert_allclose(sub.reference, cpu.reference[::8, ::8], atol=1e-12)
