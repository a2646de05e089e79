"""``uvlab simulate``: an MS from an array, a phase centre and a sky; noise; errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.support.cli import run_cli, write_sky
from tests.support.ms_factory import tree_digest

C = 299792458.0
BASE = (
    "simulate",
    "--array",
    "kat-7",
    "--ra",
    "45",
    "--dec",
    "-50",
    "--ha-start",
    "-1",
    "--ha-stop",
    "1",
    "--int-s",
    "600",
    "--freq-hz",
    "1.3e9",
    "--chan-width-hz",
    "5e6",
    "--nchan",
    "2",
    "--device",
    "cpu",
)


def _cols(path, *names):
    from casacore import tables

    t = tables.table(str(path), ack=False)
    try:
        return [t.getcol(n) for n in names]
    finally:
        t.close()


def test_simulate_writes_the_predicted_visibilities(tmp_path):
    # One 1 Jy source 0.3° east and 0.2° north of the centre, Q = 0.25: the oracle
    # is the DESIGN §1 sum written out here (no smearing).
    ra0, dec0 = np.radians(45.0), np.radians(-50.0)
    dec = dec0 + np.radians(0.2)
    ra = ra0 + np.radians(0.3) / np.cos(dec)
    sky = write_sky(tmp_path / "one.txt", [("s", np.degrees(ra), np.degrees(dec), 1, 0.25, 0, 0)])
    code, out, err = run_cli(*BASE, "--sky", sky, "--no-smearing", "--out", tmp_path / "a.ms")
    assert code == 0, err
    assert "wrote" in out and "7 baselines" not in out and "21 baselines" in out
    uvw, data, flag, weight, sigma = _cols(
        tmp_path / "a.ms", "UVW", "DATA", "FLAG", "WEIGHT", "SIGMA"
    )
    l = np.cos(dec) * np.sin(ra - ra0)
    m = np.sin(dec) * np.cos(dec0) - np.cos(dec) * np.sin(dec0) * np.cos(ra - ra0)
    n = np.sqrt(1 - l * l - m * m)
    freq = np.array([1.3e9, 1.305e9])
    phase = (
        2j * np.pi * freq[None, :] / C * (uvw[:, :1] * l + uvw[:, 1:2] * m + uvw[:, 2:] * (n - 1))
    )
    expect = np.exp(phase)
    np.testing.assert_allclose(data[..., 0], 1.25 * expect, atol=2e-6)  # XX = I + Q
    np.testing.assert_allclose(data[..., 3], 0.75 * expect, atol=2e-6)  # YY = I − Q
    np.testing.assert_allclose(data[..., 1:3], 0, atol=1e-6)
    assert np.all(weight == 1) and np.all(sigma == 1) and not flag.any()


def test_noise_sets_sigma_and_weight_and_is_reproducible(tmp_path):
    args = (*BASE, "--sky", "point", "--noise-jy", "0.5", "--seed", "7", "--feeds", "circular")
    assert run_cli(*args, "--out", tmp_path / "n1.ms")[0] == 0
    assert run_cli(*args, "--out", tmp_path / "n2.ms")[0] == 0
    assert (
        run_cli(*BASE, "--sky", "point", "--feeds", "circular", "--out", tmp_path / "clean.ms")[0]
        == 0
    )
    d1, s1, w1 = _cols(tmp_path / "n1.ms", "DATA", "SIGMA", "WEIGHT")
    (d2,) = _cols(tmp_path / "n2.ms", "DATA")
    (clean,) = _cols(tmp_path / "clean.ms", "DATA")
    np.testing.assert_array_equal(d1, d2)
    noise = (d1 - clean).ravel()
    assert noise.size > 500
    assert np.std(noise.real) == pytest.approx(0.5, rel=0.1)
    assert np.std(noise.imag) == pytest.approx(0.5, rel=0.1)
    assert np.all(s1 == 0.5) and np.all(w1 == 4.0)


def test_refuses_to_replace_an_existing_ms(tmp_path):
    out = tmp_path / "a.ms"
    assert run_cli(*BASE, "--sky", "point", "--out", out)[0] == 0
    before = tree_digest(out)
    code, _, err = run_cli(*BASE, "--sky", "pair", "--out", out)
    assert code == 1 and "already exists" in err and str(out) in err
    assert tree_digest(out) == before
    assert run_cli(*BASE, "--sky", "pair", "--out", out, "--overwrite")[0] == 0
    assert tree_digest(out) != before


@pytest.mark.parametrize(
    "extra, usage, message",
    [
        (("--array", "nosuch"), False, "unknown layout 'nosuch'"),
        (("--int-s", "-3"), True, "argument --int-s: expected a number > 0, got '-3'"),
        (("--int-s", "nan"), True, "argument --int-s: expected a finite number, got 'nan'"),
        (("--nchan", "0"), True, "argument --nchan: expected a whole number ≥ 1, got '0'"),
        (("--nchan", "2.5"), True, "argument --nchan: expected a whole number ≥ 1, got '2.5'"),
        (("--nchan", "lots"), True, "argument --nchan: expected a number, got 'lots'"),
        (("--noise-jy", "-1"), True, "argument --noise-jy: expected a number ≥ 0, got '-1'"),
        (("--freq-hz", "0"), True, "argument --freq-hz: expected a number > 0, got '0'"),
        (("--ra", "inf"), True, "argument --ra: expected a finite number, got 'inf'"),
        (("--feeds", "elliptical"), True, "invalid choice"),
    ],
)
def test_bad_options(tmp_path, extra, usage, message):
    code, _, err = run_cli(*BASE, *extra, "--sky", "point", "--out", tmp_path / "x.ms")
    assert code == (2 if usage else 1)
    assert message in err.strip().splitlines()[-1]
    assert usage or err.count("\n") == 1
    assert not (tmp_path / "x.ms").exists()


def test_counts_accept_exponent_notation():
    import argparse

    from uvlab.app.commands.simulate import count

    assert count("1e8") == count("100000000") == 100_000_000 and count("3") == 3
    for bad in ("1.5", "0", "-2", "1e400", "inf"):
        with pytest.raises(argparse.ArgumentTypeError):
            count(bad)


def _nothing_simulated(monkeypatch):
    import uvlab.app.observing.observation as observation

    def refuse(spec):
        raise AssertionError("the observation was simulated before the size check")

    monkeypatch.setattr(observation, "simulate_observation", refuse)


def test_more_channels_than_memory_is_refused_before_anything_is_made(tmp_path, monkeypatch):
    from tests.support.memory import fake_memory

    fake_memory(monkeypatch, tmp_path / "fake", cgroup_limit=2**30)
    _nothing_simulated(monkeypatch)
    out = tmp_path / "out" / "x.ms"
    out.parent.mkdir()
    code, stdout, err = run_cli(*BASE, "--nchan", "1e8", "--sky", "point", "--out", out)
    assert code == 1 and stdout == "" and err.count("\n") == 1, err
    assert err.startswith(
        "uvlab simulate: error: simulating 12 integrations × 21 baselines × 100000000 channels "
        "× 4 correlations needs about 501.0 GiB (visibility chunk 500.7 GiB + "
    ), err
    assert "but only 1.0 GiB of memory is available (cgroup limit); use fewer channels" in err
    assert list(out.parent.iterdir()) == []


def test_an_ms_the_disk_cannot_hold_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    from uvlab.app.ms.simulation_size import ms_bytes, observation_size
    from uvlab.app.observing.observation import ObservationSpec

    _nothing_simulated(monkeypatch)
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", str(10 * 2**20))
    out = tmp_path / "x.ms"
    code, stdout, err = run_cli(*BASE, "--nchan", "4096", "--sky", "point", "--out", out)
    assert code == 1 and stdout == "" and err.count("\n") == 1, err
    assert err.startswith(
        f"uvlab simulate: error: {out}: not enough disk space for a MeasurementSet of "
        "12 integrations × 21 baselines × 4096 channels × 4 correlations: needs about "
    ), err
    assert err.rstrip().endswith("MiB, 10.0 MiB free")
    assert list(tmp_path.iterdir()) == []
    # the estimate: DATA + FLAG per correlation, ~200 B per row, 4 MiB of subtables
    spec = ObservationSpec("kat-7", 45, -50, ha_start_h=-1, ha_stop_h=1, int_s=600, nchan=4096)
    size = observation_size(spec)
    assert (size.ntime, size.nbl, size.nrow) == (12, 21, 252)
    assert ms_bytes(size) == 252 * 4096 * 4 * 9 + 252 * 200 + 4 * 2**20


def test_size_estimates_bound_what_a_simulation_writes(tmp_path):
    from uvlab.app.ms.simulate import simulate_ms
    from uvlab.app.ms.simulation_size import ms_bytes, observation_size
    from uvlab.app.observing.observation import ObservationSpec, simulate_observation
    from uvlab.app.skymodel import load_sky

    spec = ObservationSpec("kat-7", 45, -50, ha_start_h=-1, ha_stop_h=1, int_s=600, nchan=1024)
    size, obs = observation_size(spec), simulate_observation(spec)
    assert (size.ntime, size.nbl, size.nrow) == (obs.ntime, obs.nbl, obs.nrow)
    res = simulate_ms(spec, load_sky("point", ra0_deg=45, dec0_deg=-50), tmp_path / "a.ms")
    written = sum(f.stat().st_size for f in Path(res.path).rglob("*") if f.is_file())
    assert 0.6 * ms_bytes(size) < written <= ms_bytes(size)  # FLAG: bits, not bytes


def test_a_sky_file_with_a_bad_line(tmp_path):
    sky = tmp_path / "bad.txt"
    sky.write_text(
        "# uvlab sky model v1\ns1 point 45 -50 1 0 0 0 0 1.4e9 0 0 0\ns2 point 45 -50 1\n"
    )
    before = sky.read_bytes()
    code, out, err = run_cli(*BASE, "--sky", sky, "--out", tmp_path / "x.ms")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "bad.txt, line 3" in err and "13 columns" in err
    assert sky.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.txt"]
