"""``uvlab bench gui``: the window's stall and cancel latency, timed in a fresh process.

No bound on the times here (a busy machine would fail it): the bench must run the real
window through a job, its drawing and a cancel, and report what it measured.
"""

from __future__ import annotations

import json

import pytest

from tests.support.cli import run_cli
from uvlab.app.commands.bench import gui as bench_gui


@pytest.mark.slow  # ~21 s: the bench's own run; pytest-qt's cancel tests cover the window
def test_the_bench_times_a_job_and_a_cancel_in_the_real_window():
    pytest.importorskip("PyQt6")
    report = bench_gui.bench_gui("cpu", npix=128, repeats=1)
    assert set(report["runs"]) == {"stall_s", "cancel_s", "cancel_stall_s"}
    assert all(len(v) == 1 and 0 < v[0] < 600 for v in report["runs"].values())
    assert report["median"]["cancel_s"] == report["runs"]["cancel_s"][0]
    text = bench_gui.format_gui_bench(report)
    assert "cancel latency" in text and "target 500 ms" in text and "target 100 ms" in text


@pytest.mark.parametrize("args", [["--npix", "63"], ["--npix", "x"], ["--repeats", "0"]])
def test_bad_sizes_are_usage_errors(args):
    code, _, err = run_cli("bench", "gui", *args)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert args[0] in err


def test_the_report_says_when_a_target_is_missed():
    report = {
        "device": "cpu", "npix": 128, "repeats": 1,
        "median": {"stall_s": 0.25, "cancel_s": 0.1, "cancel_stall_s": 0.05},
        "targets": {"stall_s": 0.1, "cancel_s": 0.5},
    }  # fmt: skip
    lines = bench_gui.format_gui_bench(json.loads(json.dumps(report))).splitlines()
    assert "MISSED" in lines[1] and "met" in lines[2] and "met" in lines[3]
