"""``uvlab compare`` (its engine, uvlab.app.lab.compare: tests/app/lab/test_compare.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.support.cli import run_cli
from uvlab.gpu.gridders.registry import algorithm

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
    # The analytic maps: on the error maps' pixels, with the WCS, conv (ES) far below nn.
    analytic = {}
    for name in ("conv", "nn", "pruned-nn"):
        data = fits.getdata(out / f"{name}-analytic.fits")[0, 0]
        assert data.shape == (32, 32) and np.all(data >= 0)
        assert fits.getheader(out / f"{name}-analytic.fits")["CTYPE1"] == "RA---SIN"
        analytic[name] = float(np.sqrt(np.mean(data**2)))
    # conv is the stated S = 7 table read at the nearest of β = 16 entries (its map 3.8e-2 of
    # nn's measured), not ducc0's kernel: the nearest lookup dominates
    assert analytic["conv"] < 0.05 * analytic["nn"]
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
    # conv is uvlab's own chain on the CPU too: like the others its map bounds its error.
    assert (out / "conv-bound.fits").exists()
    for name in ("conv", "nn", "pruned-nn"):
        assert 0 < algos[name]["error_over_bound_max"] <= 1.0
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
        "--repeats",
        "4",
        "--out",
        tmp_path / "syn",
    )
    assert code == 0, err
    metrics = json.loads((tmp_path / "syn" / "metrics.json").read_text())
    assert metrics["reference"] == "dft" and "kat-7" in metrics["data"]
    assert metrics["algorithms"]["conv"]["max_error"] < metrics["algorithms"]["nn"]["max_error"]
    for m in metrics["algorithms"].values():  # four timed runs after a warm-up, on NumPy
        assert (
            len(m["runs_s"]) == 4
            and m["warmup_s"] > 0
            and m["backend"] == algorithm("conv").backend("cpu")
        )
        assert m["total_s"] == sorted(m["runs_s"])[1]  # the (lower) median run
        assert m["total_s"] == pytest.approx(sum(m["timing"].values()), rel=1e-12)


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
        ((*SYNTH, "--repeats", "0"), 2, "argument --repeats: expected a whole number"),
        (("--ms", "nowhere.ms"), 1, "nowhere.ms: no such file or folder"),
    ],
)
def test_compare_errors(tmp_path, args, code, message):
    got, _, err = run_cli("compare", *args, "--out", tmp_path / "o")
    assert got == code and message in err.strip().splitlines()[-1], err
    assert not (tmp_path / "o").exists()


def test_a_synthetic_observation_too_large_for_memory_is_refused_first(tmp_path, monkeypatch):
    import uvlab.app.observing.observation as observation
    from tests.support.memory import fake_memory

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


def test_compare_writes_bounds_in_the_error_maps_units(tmp_path):
    """<alg>-bound.fits shares the error map's grid, header and units; error ≤ bound."""
    from astropy.io import fits

    out = tmp_path / "b"
    code, stdout, err = run_cli(
        "compare",
        *SYNTH,
        "--algorithms",
        "conv,hybrid,pruned-nn,nn-oversampled",
        "--kernel",
        "pswf",
        "--support",
        "6",
        "--oversample",
        "16",
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
    metrics = json.loads((out / "metrics.json").read_text())["algorithms"]
    for name, m in metrics.items():
        err_hdr, err_map = (
            fits.getheader(out / f"{name}-error.fits"),
            fits.getdata(out / f"{name}-error.fits"),
        )
        b_hdr, b_map = (
            fits.getheader(out / f"{name}-bound.fits"),
            fits.getdata(out / f"{name}-bound.fits"),
        )
        for key in ("NAXIS1", "NAXIS2", "CRPIX1", "CRPIX2", "CDELT1", "CDELT2", "CTYPE1", "BUNIT"):
            assert b_hdr[key] == err_hdr[key], (name, key)
        assert m["bound_step"] == 2
        assert np.all(err_map <= b_map * (1 + 1e-9) + 1e-12), name
        assert m["bound_max"] == pytest.approx(float(b_map.max()))
        assert 0 < m["error_over_bound_max"] <= 1.0
        lit = b_map > 1e-12
        assert m["error_over_bound_max"] == pytest.approx(float(np.max(err_map[lit] / b_map[lit])))
    assert "error/bound max" in stdout
