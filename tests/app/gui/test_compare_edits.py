"""The Compare panel's edits are the lab's (issue 28): said when not accepted, in the
state when made by ``--compare``, and the timed runs saved, restored and undone."""

from __future__ import annotations

import json

from uvlab.app.gui.panels.fields import is_marked_invalid


def test_an_invalid_epsilon_is_reported_and_refused_until_put_right(
    make_window, small_state, qtbot
):
    w = make_window(small_state, run_on_start=False)
    w.run_panel.autorun_check.setChecked(False)
    panel, before = w.compare.panel, w.model.state
    eps = panel.editors[1].eps_edit
    with qtbot.waitSignal(panel.error) as blocker:
        eps.setText("2")  # ε must lie in (0, 1)
    why = blocker.args[0]
    assert why.startswith("compare entry 2 (hybrid) not accepted") and "(0, 1)" in why
    assert is_marked_invalid(eps) and "(0, 1)" in eps.toolTip()
    assert "Entry 2 (hybrid)" in panel.message.text()
    assert why in w.statusBar().currentMessage()
    assert w.model.state == before  # not recorded
    with qtbot.waitSignal(w.controller.job_failed) as failed:
        assert w.controller.submit("compare") is None  # a run says why, not the old ε
    assert "compare entry 2 (hybrid)" in failed.args[0]
    eps.setText("1e-3")  # put right: an edit of the state, the refusal gone
    assert not is_marked_invalid(eps) and panel.message.text() == ""
    assert w.model.state.imaging.compare[1].eps == 1e-3
    assert w.requests("compare").compare[1].eps == 1e-3


def test_start_makes_the_entries_the_lab_states(make_window, small_state, qtbot):
    """``uvlab gui --compare``: the entries shown are those the model holds and a job runs."""
    w = make_window(small_state, run_on_start=False)
    w.run_panel.autorun_check.setChecked(False)
    view = w.compare.view
    view._computed = True  # as after a comparison of the former entries
    stale = []
    w.compare.panel.changed.connect(lambda: stale.append(view.STALE in view.note.text()))
    w.compare.start(["ducc", "nn"])
    assert [ed.algorithm() for ed in w.compare.panel.editors] == ["ducc", "nn"]
    assert [o.algorithm for o in w.model.state.imaging.compare] == ["ducc", "nn"]
    assert [o.algorithm for o in w.requests("compare").compare] == ["ducc", "nn"]
    assert stale == [True]  # the panel said so: the shown comparison is out of date
    assert w.model.can_undo()  # an edit like any other


def test_timed_runs_are_saved_restored_and_undone(make_window, small_state, qtbot, tmp_path):
    w = make_window(small_state, run_on_start=False)
    w.run_panel.autorun_check.setChecked(False)
    panel = w.compare.panel
    panel.repeats_box.setValue(6)
    assert w.model.state.imaging.compare_repeats == 6
    assert w.requests("compare").repeats == 6  # from the state: no hook on the request
    path = tmp_path / "lab.json"
    assert w.files.save_session(path)
    assert json.loads(path.read_text())["compare_repeats"] == 6
    w.binding.undo()
    assert panel.repeats() == 3 and w.requests("compare").repeats == 3
    assert w.files.load_session(path)
    assert panel.repeats() == 6 and w.model.state.imaging.compare_repeats == 6
