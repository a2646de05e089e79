"""Compare mode: entries against the DFT in the worker, the table, views, exports, CLI."""

from __future__ import annotations

import argparse
import json
import threading

import numpy as np
import pytest
from PyQt6 import QtCore, QtGui

from tests.support.observations import SMALL_OBS
from uvlab.app.lab import compare as engine
from uvlab.app.lab import compare_reference
from uvlab.app.lab.compare import compare_algorithms, write_metrics_json
from uvlab.app.lab.compare_task import CompareOutput
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.widgets.metrics_table import COLUMNS, format_metric

THREE = ["conv", "hybrid", "pruned-nn"]
ROLE = QtCore.Qt.ItemDataRole.UserRole


def engine_data(obs_spec, sky):
    """(uvw, freq, vis, flag) straight through the engine: every time predicted at once."""
    from uvlab.app.observing.observation import simulate_observation
    from uvlab.gpu.predict import Smearing, predict_antennas

    obs = simulate_observation(obs_spec)
    src = sky.to_source_arrays(obs.ra0_rad, obs.dec0_rad)
    sm = Smearing(obs.chan_width_hz, obs.int_s, obs.dec0_rad)
    vis = predict_antennas(obs.ant_uvw, obs.ant1, obs.ant2, obs.freq_hz, src, smearing=sm)
    nchan = obs.freq_hz.size
    return obs.uvw.reshape(-1, 3), obs.freq_hz, vis.reshape(-1, nchan), obs.flag.reshape(-1, 1)


def run_compare(w, qtbot, timeout=60_000):
    with qtbot.waitSignal(w.controller.result_ready, timeout=timeout) as blocker:
        request = w.controller.submit("compare")
    result = blocker.args[0]
    assert result.job_id == request.job_id and result.task == "compare"
    return result.output


def table_rows(table) -> dict[str, dict[str, tuple[float, str]]]:
    """{label: {metric key: (stored value, shown text)}} of a MetricsTable."""
    keys = table.metric_keys()
    rows = {}
    for r in range(table.rowCount()):
        cells = {}
        for c, key in enumerate(keys, start=1):
            item = table.item(r, c)
            cells[key] = (item.data(ROLE), item.text())
        rows[table.item(r, 0).text()] = cells
    return rows


def test_compare_mode_with_three_algorithms_produces_the_metrics_table(
    make_window, small_state, qtbot, tmp_path, monkeypatch
):
    # a reference summed over several visibility chunks (the GUI's cancellable path)
    monkeypatch.setattr(engine, "REFERENCE_CHUNK_WORK", 5e6)
    w = make_window(small_state, run_on_start=False)
    w.compare.panel.set_algorithms(THREE, emit=True)
    out = run_compare(w, qtbot)
    assert isinstance(out, CompareOutput) and out.labels == THREE
    im = small_state.imaging
    uvw, freq, vis, flag = engine_data(small_state.observation, small_state.sky)
    cmp = compare_algorithms(
        uvw,
        freq,
        vis,
        1.0,
        out.comparison.spec,
        algorithms=THREE,
        flag=flag,
        weighting=im.weighting_spec(),
        params=im.grid_params(),
        device="cpu",
    )
    assert out.comparison.spec.npix == 128 and cmp.step == out.comparison.step == 1
    assert out.comparison.nvis == cmp.nvis == uvw.shape[0] * freq.size
    np.testing.assert_allclose(out.comparison.reference, cmp.reference, rtol=0, atol=1e-12)

    rows = table_rows(w.compare.view.metrics_table)
    assert list(rows) == THREE
    assert w.compare.view.metrics_table.metric_keys() == list(COLUMNS)
    for name in THREE:
        want = cmp.results[name].metrics
        for key in ("rms_central", "rms_full", "max_error"):
            value, text = rows[name][key]
            assert value == pytest.approx(want[key], rel=1e-6), (name, key)
            assert text == format_metric(key, value)
        got = out.comparison.results[name]
        rate, _ = rows[name]["rate_vis_per_s"]
        assert got.nvis == cmp.results[name].nvis
        assert rate == pytest.approx(got.nvis / got.timing["grid"], rel=1e-12)
    # the errors rank as they should: conv (ε = 1e-5) far below the NN-based gridders
    assert rows["conv"]["rms_central"][0] < 1e-5
    assert rows["conv"]["rms_central"][0] < rows["hybrid"]["rms_central"][0] / 10

    view = w.compare.view
    assert view.shown_entry() == THREE[0]
    for k, name in enumerate(THREE):  # each entry's images, chosen by its tab or its table row
        if k % 2:
            view.entry_bar.setCurrentIndex(k)
        else:
            row = next(r for r in range(3) if view.metrics_table.item(r, 0).text() == name)
            view.metrics_table.cellClicked.emit(row, 1)
        assert view.shown_entry() == name and view.entry_bar.currentIndex() == k
        np.testing.assert_allclose(view.image_view.image(), cmp.results[name].image, atol=1e-9)
        np.testing.assert_allclose(view.error_view.image(), cmp.results[name].error, atol=1e-9)
    diff = 1e3 * (cmp.results["conv"].image - cmp.results["hybrid"].image)  # mJy/beam
    np.testing.assert_allclose(view.diff_view.image(), diff, atol=1e-6)
    view.diff_b.setCurrentText("pruned-nn")
    diff = 1e3 * (cmp.results["conv"].image - cmp.results["pruned-nn"].image)
    np.testing.assert_allclose(view.diff_view.image(), diff, atol=1e-6)
    assert view.timing_view.stage_widths_ms("grid") == pytest.approx(
        [1e3 * out.comparison.results[n].timing["grid"] for n in THREE]
    )
    assert w.views.currentWidget() is view
    assert "Compared 3 entries" in w.statusBar().currentMessage()

    # exports: metrics.json in the format of `uvlab compare`, and the PNG report
    gui = json.loads(view.save_metrics(tmp_path / "gui.json").read_text())
    cli = json.loads(write_metrics_json(cmp, tmp_path / "cli.json", out.description).read_text())
    assert gui.keys() == cli.keys() and gui["data"] == out.description
    assert gui["reference"] == "dft" and gui["nvis"] == cli["nvis"]
    for name in THREE:
        g, c = gui["algorithms"][name], cli["algorithms"][name]
        assert g.keys() == c.keys() and g["timing"].keys() == c["timing"].keys()
        assert g["rms_central"] == pytest.approx(c["rms_central"], rel=1e-6)
    png = QtGui.QImage(str(view.save_report(tmp_path / "report.png")))
    assert png.width() > 1000 and png.height() > 800


def test_same_algorithm_with_different_parameters(make_window, small_state, qtbot):
    w = make_window(small_state, run_on_start=False)
    w.compare.panel.set_entries(
        [ImagingOptions(algorithm="conv", eps=1e-3), ImagingOptions(algorithm="conv", eps=1e-7)],
        emit=True,
    )
    out = run_compare(w, qtbot)
    assert out.labels == ["conv (es ε=0.001 σ=2)", "conv (es ε=1e-07 σ=2)"]
    uvw, freq, vis, flag = engine_data(small_state.observation, small_state.sky)
    rms = []
    for label, entry in zip(out.labels, out.entries):
        one = compare_algorithms(
            uvw,
            freq,
            vis,
            1.0,
            out.comparison.spec,
            algorithms=["conv"],
            flag=flag,
            weighting=entry.weighting_spec(),
            params=entry.grid_params(),
            device="cpu",
        )
        got = out.comparison.results[label].metrics
        assert got["max_error"] == pytest.approx(one.results["conv"].metrics["max_error"], rel=1e-6)
        rms.append(got["rms_central"])
    assert rms[1] < rms[0] / 100  # the finer ε is far more accurate
    assert list(table_rows(w.compare.view.metrics_table)) == out.labels


def test_a_superseded_comparison_is_dropped(make_window, small_state, qtbot):
    w = make_window(small_state, run_on_start=False)
    results, cancelled = [], []
    w.controller.result_ready.connect(results.append)
    w.controller.worker.cancelled.connect(cancelled.append)
    w.compare.panel.set_algorithms(THREE, emit=True)
    first = w.controller.submit("compare")
    w.compare.panel.set_algorithms(["nn", "conv"], emit=True)
    with qtbot.waitSignal(w.controller.result_ready, timeout=60_000):
        second = w.controller.submit("compare")
    qtbot.wait(200)
    assert [r.job_id for r in results] == [second.job_id]
    assert results[0].output.labels == ["nn", "conv"]
    assert first.job_id in cancelled
    assert list(table_rows(w.compare.view.metrics_table)) == ["nn", "conv"]


def test_a_cancelled_comparison_shows_nothing(make_window, small_state, qtbot, monkeypatch):
    gate, calls, original = threading.Event(), [], compare_reference.reference_image

    def held_reference(*args):  # the first chunk waits until the test has cancelled
        calls.append(1)
        assert gate.wait(10)
        return original(*args)

    monkeypatch.setattr(compare_reference, "reference_image", held_reference)
    monkeypatch.setattr(engine, "REFERENCE_CHUNK_WORK", 5e6)  # five chunks
    w = make_window(small_state, run_on_start=False)
    results = []
    w.controller.result_ready.connect(results.append)
    request = w.controller.submit("compare")
    qtbot.waitUntil(lambda: bool(calls), timeout=30_000)
    with qtbot.waitSignal(w.controller.job_cancelled, timeout=10_000) as blocker:
        w.controller.cancel()
        gate.set()
    qtbot.wait(200)
    assert blocker.args == [request.job_id] and results == [] and len(calls) == 1
    assert w.compare.view.output is None and not w.compare.view.is_computed()
    assert "did not finish" in w.compare.view.note.text()


def test_entries_are_validated_and_bounded(make_window, small_state, qtbot):
    w = make_window(small_state, run_on_start=False)
    panel = w.compare.panel
    assert [ed.algorithm() for ed in panel.editors] == THREE
    panel.add_entry()
    assert [ed.algorithm() for ed in panel.editors] == [*THREE, "ducc"]  # the next gridder
    panel.remove_entry(panel.editors[0])
    panel.remove_entry(panel.editors[0])
    assert len(panel.editors) == 2 and not panel.editors[0].remove_button.isEnabled()
    panel.remove_entry(panel.editors[0])  # two is the minimum
    assert len(panel.editors) == 2
    with pytest.raises(ValueError, match="cannot compare dft"):
        panel.set_algorithms(["dft", "conv"])
    panel.set_algorithms(["conv", "hybrid"])
    panel.editors[1].oversample_spin.setValue(5)  # hybrid needs an even β ≥ 4
    with qtbot.waitSignal(w.controller.job_failed) as blocker:
        assert w.controller.submit("compare") is None
    assert "compare entry 2 (hybrid)" in blocker.args[0] and "β" in blocker.args[0]


def test_show_tab_and_stale_note(make_window, small_state, qtbot):
    w = make_window(small_state, run_on_start=False)
    w.show_tab("timing")
    assert w.views.tabText(w.views.currentIndex()) == "Timing"
    w.show_tab("compare")
    assert w.views.currentWidget() is w.compare.view
    assert w.panel_tabs.tabText(w.panel_tabs.currentIndex()) == "Compare"
    with pytest.raises(ValueError, match="unknown tab"):
        w.show_tab("nowhere")
    w.compare.panel.set_algorithms(["nn", "conv"], emit=True)
    run_compare(w, qtbot)
    w.compare.panel.editors[0].algorithm_combo.setCurrentText("nn-oversampled")
    assert "Parameters changed" in w.compare.view.note.text()


def test_the_view_tabs_menu_and_show_tab_follow_one_list(make_window, small_state):
    """The tab list in one place: the tabs, the View menu, show_tab and ``gui --tab``."""
    from uvlab.app.gui.tabs import VIEW_TABS

    w = make_window(small_state, run_on_start=False)
    titles = [w.views.tabText(k) for k in range(w.views.count())]
    assert titles == [t.title for t in VIEW_TABS]  # Compare inserted by compare mode
    view = next(a.menu() for a in w.menuBar().actions() if a.text() == "&View")
    actions = {a.text(): a for a in view.actions()}
    for k, tab in enumerate(VIEW_TABS, start=1):
        w.show_tab("log")
        actions[tab.title].trigger()
        assert w.views.tabText(w.views.currentIndex()) == tab.title
        assert actions[tab.title].shortcut().toString() == f"Ctrl+{k % 10}"
        w.show_tab("log")
        w.show_tab(tab.key)
        assert w.views.tabText(w.views.currentIndex()) == tab.title
        assert parse("--tab", tab.key).tab == tab.key
    with pytest.raises(SystemExit):
        parse("--tab", "nowhere")


# ------------------------------------------------------------------ uvlab gui
def parse(*argv):
    from uvlab.app.commands import gui

    parser = argparse.ArgumentParser()
    gui.register(parser.add_subparsers())
    return parser.parse_args(["gui", *argv])


def test_gui_command_tab_and_compare_options(capsys):
    args = parse("--compare", "conv, hybrid,conv", "--tab", "timing")
    assert args.compare == ["conv", "hybrid"] and args.tab == "timing"
    assert parse().compare is None and parse().tab is None
    for bad in ("conv", "conv,dft", "conv,warp"):
        with pytest.raises(SystemExit) as exc:
            parse("--compare", bad)
        assert exc.value.code == 2
    assert "two or more of conv" in capsys.readouterr().err


@pytest.fixture
def private_settings(tmp_path):
    """Point the default QSettings store at tmp_path (launch() uses the default)."""
    for fmt in (QtCore.QSettings.Format.NativeFormat, QtCore.QSettings.Format.IniFormat):
        QtCore.QSettings.setPath(fmt, QtCore.QSettings.Scope.UserScope, str(tmp_path / "conf"))


def test_screenshot_waits_for_the_comparison(qapp, tmp_path, private_settings, capsys):
    from uvlab.app.lab.session import NamedSky, SessionState

    scene = tmp_path / "scene.json"
    state = SessionState(SMALL_OBS, sky=NamedSky("pair"), imaging=ImagingOptions(npix=64))
    scene.write_text(state.to_json())
    png = tmp_path / "compare.png"
    args = parse(
        "--scene",
        str(scene),
        "--screenshot",
        str(png),
        "--device",
        "cpu",
        "--compare",
        "conv,nn",
        "--tab",
        "compare",
        "--timeout",
        "60",
    )
    assert args.func(args) == 0
    assert f"wrote {png}" in capsys.readouterr().out
    image = QtGui.QImage(str(png))
    assert image.width() >= 1000 and image.height() >= 700


# ------------------------------------------------------- accuracy-time plot, conv match
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
