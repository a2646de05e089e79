"""--quiet, --verbose and --log-file (:mod:`uvlab.app.runtime.logs`), on real commands.

Each test runs ``uvlab`` through its entry point in this process on a small MS and
checks the outcome the options promise: the results still written and printed on
stdout, what reaches stderr, and what the log file holds (its timestamps parsed).
"""

from __future__ import annotations

import logging
import re
from datetime import datetime

import numpy as np
import pytest
from astropy.io import fits

from tests.support.cli import run_cli, write_sky
from tests.support.ms_factory import make_ms

IMAGE = ["--npix", "64", "--cell-arcsec", "30", "--no-png", "--device", "cpu"]
#: Cotton–Schwab with a small mgain: several major cycles on the small MS.
CLEAN = ["--algorithm", "conv", "--niter", "60", "--mgain", "0.3",
         "--deconvolver", "cotton-schwab"]  # fmt: skip
STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) (DEBUG|INFO|WARNING|ERROR)\s")


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    path = tmp_path_factory.mktemp("logs") / "obs.ms"
    make_ms(path, np.random.default_rng(5), spw_nchan=(4,), ntime=6, nant=6)
    return path


def _log_lines(path) -> list[str]:
    """The log file's lines, each checked to start with a parseable timestamp and level."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for line in lines:
        m = STAMP.match(line)
        assert m, line
        datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f")
    return lines


def test_log_file_holds_every_stage_timestamped_and_is_appended(ms, tmp_path):
    log = tmp_path / "run.log"
    code, out, err = run_cli("--log-file", log, "image", "--ms", ms, *IMAGE, *CLEAN,
                             "--out", tmp_path / "a")  # fmt: skip
    assert code == 0, err
    assert "wrote " in out and (tmp_path / "a-image.fits").exists()
    assert "debug:" not in err  # the file has the detail, not the terminal
    text = "\n".join(_log_lines(log))
    for stage in ("read: started", "read: done", "stage grid:", "stage FFT:",
                  "CLEAN (cotton-schwab): done", "write: started", "write: done"):  # fmt: skip
        assert stage in text, stage
    # each major cycle: as many lines as the FITS history says CLEAN ran cycles
    cycles = re.findall(r"CLEAN cycle (\d+): \d+ iterations, (\d+) major", text)
    assert len(cycles) >= 2 and [int(c) for c, _ in cycles] == list(range(1, len(cycles) + 1))
    assert int(cycles[-1][1]) >= 2
    first = len(_log_lines(log))
    code, _, err = run_cli(
        "image", "--ms", ms, *IMAGE, "--out", tmp_path / "b", "--log-file", log
    )  # after the subcommand too
    assert code == 0, err
    lines = _log_lines(log)
    assert len(lines) > first and "command line: uvlab image" in lines[first]  # appended
    assert lines[first - 1].endswith("exit code 0") and lines[-1].endswith("exit code 0")


def test_quiet_prints_no_progress_or_notes_but_the_results(ms, tmp_path, monkeypatch):
    monkeypatch.setenv("UVLAB_PROGRESS_SECONDS", "0")  # every update a line, were it shown
    code, out, err = run_cli("image", "--ms", ms, *IMAGE, *CLEAN, "--quiet",
                             "--out", tmp_path / "q")  # fmt: skip
    assert code == 0, err
    assert err == ""
    assert "CLEAN: 60 iterations" in out and f"wrote {tmp_path / 'q'}-image.fits" in out
    assert fits.getdata(tmp_path / "q-image.fits").shape[-2:] == (64, 64)
    # the chunked path's notes (chunk size, cluster, dashboard) are notes too
    code, out, err = run_cli("-q", "image", "--ms", ms, *IMAGE, "--workers", "1",
                             "--out", tmp_path / "w")  # fmt: skip
    assert code == 0, err
    assert err == "" and "wrote " in out


def test_verbose_shows_debug_lines_and_the_cluster_line(ms, tmp_path):
    code, out, err = run_cli("--verbose", "image", "--ms", ms, *IMAGE, *CLEAN,
                             "--out", tmp_path / "v")  # fmt: skip
    assert code == 0, err
    assert "uvlab image: debug: CLEAN cycle 1:" in err
    assert "uvlab image: debug: stage FFT:" in err and "wrote " not in err
    assert "CLEAN: 60 iterations" in out and "debug:" not in out
    code, _, err = run_cli("image", "--ms", ms, *IMAGE, "--workers", "1", "-v",
                           "--out", tmp_path / "w")  # fmt: skip
    assert code == 0, err
    line = next(x for x in err.splitlines() if "Dask cluster" in x)
    assert line.startswith("uvlab image: Dask cluster tcp://127.0.0.1:")
    assert "dashboard" in line  # its address, or that it is off (bokeh absent)
    assert "read + grid: done" in err  # ducc: its chunks added into a NUFFT a worker


def test_not_a_terminal_gets_plain_lines_no_carriage_returns(ms, tmp_path, monkeypatch):
    monkeypatch.setenv("UVLAB_PROGRESS_SECONDS", "0")  # a line at every update
    code, _, err = run_cli("image", "--ms", ms, *IMAGE, *CLEAN, "--out", tmp_path / "p")
    assert code == 0, err
    assert "\r" not in err and "\x1b" not in err
    lines = [x for x in err.splitlines() if re.search(r" \d+% \(", x)]
    assert any(x.startswith("uvlab image: CLEAN (cotton-schwab) ") for x in lines), err
    assert all(x.startswith("uvlab image: ") for x in lines)


def test_simulate_and_predict_log_their_stages(tmp_path):
    sky = write_sky(tmp_path / "sky.txt", [("a", 80.05, -59.97, 1.0, 0, 0, 0)])
    log = tmp_path / "sim.log"
    code, out, err = run_cli(
        "simulate", "--array", "atca.6a", "--ra", "80", "--dec", "-60", "--ha-start", "-1",
        "--ha-stop", "1", "--int-s", "900", "--nchan", "2", "--device", "cpu", "--sky", sky,
        "--out", tmp_path / "s.ms", "--quiet", "--log-file", log,
    )  # fmt: skip
    assert code == 0, err
    assert err == "" and out.startswith("wrote ") and (tmp_path / "s.ms").is_dir()
    code, out, err = run_cli("predict", "--ms", tmp_path / "s.ms", "--sky", sky, "-q",
                             "--log-file", log)  # fmt: skip
    assert code == 0, err
    assert err == "" and out.startswith("wrote MODEL_DATA")
    text = "\n".join(_log_lines(log))
    for stage in ("simulate: started", "simulate: done", "predict: started", "predict: done"):
        assert stage in text, stage


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_bad_log_file_is_a_usage_error_naming_it(ms, tmp_path, where):
    bad = tmp_path / "no such folder" / "x.log"
    opts = ["--log-file", bad]
    args = ["image", "--ms", ms, *IMAGE, "--out", tmp_path / "x"]
    code, out, err = run_cli(*(opts + args if where == "before" else args + opts))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and f"--log-file {bad}" in err
    assert not (tmp_path / "x-dirty.fits").exists()
    code, _, err = run_cli(
        "image", "--ms", ms, *IMAGE, "--out", tmp_path / "y", "--log-file", tmp_path
    )  # a folder
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--log-file" in err


def test_quiet_and_verbose_together_are_refused(ms, tmp_path):
    code, _, err = run_cli("-q", "image", "--ms", ms, *IMAGE, "-v", "--out", tmp_path / "z")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--quiet or --verbose" in err


def test_the_logger_is_left_as_it_was(ms, tmp_path):
    run_cli("--log-file", tmp_path / "l.log", "arrays")
    root = logging.getLogger("uvlab")
    assert not root.handlers and root.level == logging.NOTSET and root.propagate


def test_an_error_reaches_the_log_file_too(tmp_path):
    log = tmp_path / "e.log"
    code, _, err = run_cli("image", "--ms", tmp_path / "none.ms", *IMAGE, "--out",
                           tmp_path / "n", "--log-file", log)  # fmt: skip
    assert code == 1 and len(err.strip().splitlines()) == 1
    lines = _log_lines(log)
    assert " ERROR " in lines[-2] and lines[-2].endswith(err.strip())
    assert lines[-1].endswith("exit code 1")
