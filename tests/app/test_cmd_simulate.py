"""``uvlab simulate``: an MS from an array, a phase centre and a sky; noise; errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests.app.cmd_support import run_cli, write_sky
from tests.app.ms_factory import tree_digest

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
    "extra, message",
    [
        (("--array", "nosuch"), "unknown layout 'nosuch'"),
        (("--int-s", "-3"), "int_s must be > 0"),
        (("--feeds", "elliptical"), "invalid choice"),
    ],
)
def test_bad_options(tmp_path, extra, message):
    code, _, err = run_cli(*BASE, *extra, "--sky", "point", "--out", tmp_path / "x.ms")
    usage = "choice" in message
    assert code == (2 if usage else 1)
    assert message in err.strip().splitlines()[-1]
    assert usage or err.count("\n") == 1
    assert not (tmp_path / "x.ms").exists()


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


def test_progress_bar_draws_only_when_asked_or_on_a_terminal(monkeypatch):
    import io
    import sys

    import uvlab.app.progress as progress

    stream = io.StringIO()
    with progress.progress_bar("job", stream=stream) as update:  # stdout is not a TTY here
        update(0.5, "half")
    assert stream.getvalue() == ""
    with progress.progress_bar("job", enabled=True, stream=stream) as update:
        update(0.25, "predict")
        update(1.0, "done")
    assert "job" in stream.getvalue() and "100%" in stream.getvalue()
    monkeypatch.setitem(sys.modules, "tqdm", None)  # no tqdm: the small bar of our own
    plain = io.StringIO()
    with progress.progress_bar("job", enabled=True, stream=plain) as update:
        update(1.0, "done")
    assert "[##############################] 100% done" in plain.getvalue()
