"""`uvlab bench startup` and the process clock it reads. Oracle: the wall clock outside."""

import subprocess
import sys
import time

import pytest

from uvlab.app.commands.bench import startup as bench_startup
from uvlab.app.runtime.process_clock import process_age_s


def test_process_age_counts_from_the_process_start():
    code = (
        "import time; time.sleep(0.4); "
        "from uvlab.app.runtime.process_clock import process_age_s as age; print(age())"
    )
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    outside = time.perf_counter() - t0
    age = float(out.stdout)
    assert 0.4 <= age <= outside + 0.02  # the sleep counts; never more than the wall clock saw
    a, b = process_age_s(), process_age_s()
    assert 0.0 < a <= b


@pytest.mark.slow  # 10–20 s: the bench's own run (test_demo covers the demo)
def test_startup_bench_runs_the_demo_and_the_window(monkeypatch):
    pytest.importorskip("PyQt6")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    monkeypatch.delenv("DISPLAY", raising=False)
    t0 = time.perf_counter()
    result = bench_startup.bench_startup(repeats=1)
    outside = time.perf_counter() - t0
    runs = result["runs_s"]
    assert set(runs) == {"demo_wall_s", "gui_first_image_s", "gui_complete_s", "gui_wall_s"}
    assert all(len(v) == 1 and v[0] > 0 for v in runs.values())
    first, complete = runs["gui_first_image_s"][0], runs["gui_complete_s"][0]
    assert first <= complete <= runs["gui_wall_s"][0]
    assert runs["demo_wall_s"][0] + runs["gui_wall_s"][0] <= outside
    text = bench_startup.format_startup_bench(result)
    assert text.splitlines()[0] == "start-up, median of 1 fresh processes"
    assert f"{first:.2f}" in text


def test_a_failing_command_is_one_line():
    with pytest.raises(
        RuntimeError, match=r"^uvlab no-such-command exited with 2: .*invalid choice"
    ):
        bench_startup._uvlab(["no-such-command"])
