"""The Compare tab's accuracy-time plot, and *Match*: the smallest conv support reaching an
entry's error, measured again by the next comparison."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.compare_runs import THREE, run_compare
from uvlab.app.lab.imaging import ImagingOptions


def test_plot_shows_each_entrys_error_against_its_total_time(make_window, small_state, qtbot):
    w = make_window(small_state, run_on_start=False)
    w.compare.panel.set_algorithms(THREE, emit=True)
    out = run_compare(w, qtbot)
    plot = w.compare.view.accuracy_view
    # the entries' names, or their numbers (as on the entry tabs) where the names would
    # overlap each other or hide a marker in the strip's small plot
    assert [t.toPlainText() for t in plot.labels] in (THREE, ["1", "2", "3"])
    assert len(plot.points) == 3
    for name, item in zip(THREE, plot.points):
        r = out.comparison.results[name]
        np.testing.assert_array_equal(item.xData, [sum(r.timing.values())])
        np.testing.assert_array_equal(item.yData, [r.metrics["rms_full"]])
        assert item.name() == name
    assert "RMS" in plot.plot_item.getAxis("left").labelText
    assert "total time" in plot.plot_item.getAxis("bottom").labelText
    assert plot.curve.xData is None or plot.curve.xData.size == 0  # no match asked


def entry_error(out, options: ImagingOptions) -> float:
    """rms_full of the entry with these algorithm and parameters."""
    k = next(k for k, e in enumerate(out.entries) if e == options)
    return out.comparison.results[out.labels[k]].metrics["rms_full"]


#: Entries to match: hybrid (β = 16: conv's coarsest setting is far more accurate), and a
#: Kaiser–Bessel table read by linear lookup (between exact ES S = 4 and 5 on this scene).
MATCH_TARGETS = {
    "hybrid": ImagingOptions(npix=128, algorithm="hybrid"),
    "kb-table": ImagingOptions(
        npix=128, kernel="kb", kernel_size="support", support=6, oversample=16, lookup="linear"
    ),
}


@pytest.mark.parametrize("target", list(MATCH_TARGETS))
def test_match_adds_the_smallest_conv_support_reaching_the_entrys_error(
    make_window, small_state, qtbot, target
):
    from uvlab.app.lab.conv_match import MATCH_SUPPORTS, conv_candidate

    w = make_window(small_state, run_on_start=False)
    panel = w.compare.panel
    entry, other = MATCH_TARGETS[target], ImagingOptions(npix=128, algorithm="pruned-nn")
    panel.set_entries([entry, other], emit=True)
    assert all(ed.match_button.isEnabled() for ed in panel.editors)
    with qtbot.waitSignal(w.controller.result_ready, timeout=60_000) as blocker:
        panel.editors[0].match_button.click()
    result = blocker.args[0]
    assert result.request.match == 0 and result.task == "compare"
    out, m = result.output, result.output.match
    goal = entry_error(out, entry)
    assert m.target == out.labels[0] and m.target_error == goal and m.added
    s = m.support
    assert m.supports == MATCH_SUPPORTS[: MATCH_SUPPORTS.index(s) + 1]
    assert m.errors[-1] <= goal and all(e > goal for e in m.errors[:-1])
    if target == "kb-table":
        assert s > MATCH_SUPPORTS[0]  # the search had to go past the coarse supports
    # the comparison shown holds the new conv entry; so does the panel, without a stale note
    conv = conv_candidate(s, entry)
    assert conv.grid_params().support == s and out.entries == (entry, other, conv)
    assert len(panel.editors) == 3 and not panel.editors[2].match_button.isEnabled()
    assert panel.entries(w.imaging_panel.options()) == out.entries
    assert entry_error(out, conv) == m.errors[-1]
    assert not w.compare.view.note.text().startswith(w.compare.view.STALE)
    assert f"S = {s}" in w.statusBar().currentMessage()
    plot = w.compare.view.accuracy_view
    assert len(plot.points) == 3
    order = np.argsort(m.times_s, kind="stable")  # the conv candidates, a curve along time
    np.testing.assert_array_equal(plot.curve.xData, np.asarray(m.times_s)[order])
    np.testing.assert_array_equal(plot.curve.yData, np.asarray(m.errors)[order])

    # the next comparison, a plain one, measures the conv entry at matched accuracy again,
    # and conv one support smaller (when a candidate) does not reach the entry's error
    smaller = [conv_candidate(s - 1, entry)] if s > MATCH_SUPPORTS[0] else []
    panel.set_entries([entry, *smaller, conv], emit=True)
    again = run_compare(w, qtbot)
    assert again.match is None
    goal = entry_error(again, entry)
    assert entry_error(again, conv) <= goal
    if smaller:
        assert entry_error(again, smaller[0]) > goal


def test_match_is_offered_for_all_but_exact_conv_with_room_for_one_more(
    make_window, small_state, qtbot
):
    from uvlab.app.gui.compare_panel import MAX_ENTRIES

    w = make_window(small_state, run_on_start=False)
    panel = w.compare.panel
    panel.set_algorithms(["conv", "hybrid"])
    assert [ed.match_button.isEnabled() for ed in panel.editors] == [False, True]
    panel.editors[0].kernel_size_combo.setCurrentIndex(1)  # a conv kernel table
    assert panel.editors[0].match_button.isEnabled()
    panel.editors[0].kernel_size_combo.setCurrentIndex(0)
    panel.editors[0].algorithm_combo.setCurrentText("nn-oversampled")
    assert panel.editors[0].match_button.isEnabled()
    panel.set_algorithms(["hybrid"] * MAX_ENTRIES)
    assert not any(ed.match_button.isEnabled() for ed in panel.editors)
