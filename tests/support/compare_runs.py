"""A comparison run in the window (the Compare tab's tests, tests/app/gui/test_compare_*.py)."""

from __future__ import annotations

#: The three gridders compare mode's tests compare.
THREE = ["conv", "hybrid", "pruned-nn"]


def run_compare(w, qtbot, timeout=60_000):
    """Submit the window's comparison and wait for it: the CompareOutput."""
    with qtbot.waitSignal(w.controller.result_ready, timeout=timeout) as blocker:
        request = w.controller.submit("compare")
    result = blocker.args[0]
    assert result.job_id == request.job_id and result.task == "compare"
    return result.output
