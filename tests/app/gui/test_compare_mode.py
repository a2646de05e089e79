"""Compare mode: entries against the DFT in the worker, the table, views and exports.

``uvlab gui --compare`` is tested in test_compare_gui_command.py, *Match* in
test_compare_match.py.
"""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest
from PyQt6 import QtCore, QtGui

from tests.support.compare_runs import THREE, run_compare
from uvlab.app.lab import compare as engine
from uvlab.app.lab import compare_reference
from uvlab.app.lab.compare import compare_algorithms, write_metrics_json
from uvlab.app.lab.compare_task import CompareOutput
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.widgets.metrics_table import COLUMNS, format_metric

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
