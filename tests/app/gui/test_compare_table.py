"""What the Compare tab shows a researcher (issue 28): each entry's backend, its timing's
median and spread over repeated runs (table and error bars), what each column measures
(header tooltips), scatter labels clear of each other and of the markers, and the panel's
timed runs reaching the job."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6 import QtWidgets

from uvlab.app.gui.compare_view import CompareView
from uvlab.app.lab.compare import compare_algorithms
from uvlab.app.lab.compare_task import CompareOutput
from uvlab.app.lab.imaging import ImagingOptions
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.registry import algorithm
from uvlab.gpu.image_spec import ImageSpec
from uvlab.widgets.accuracy_time_view import marker_box
from uvlab.widgets.metrics_table import format_metric

SIX = ("conv", "ducc", "nn", "nn-oversampled", "hybrid", "pruned-nn")
REPEATS = 3


@pytest.fixture(scope="module")
def output():
    """A comparison of six entries, each timed three times, on random uv coverage."""
    rng = np.random.default_rng(28)
    freq = np.array([1.0e9])
    r, phi = 2000.0 * np.sqrt(rng.random(3000)), rng.uniform(0, 2 * np.pi, 3000)
    uvw = np.stack([r * np.cos(phi), r * np.sin(phi), np.zeros_like(r)], axis=1)
    spec = ImageSpec(64, 1.0 / (3 * 2000 * freq[0] / 299792458.0))
    vis = np.exp(2j * np.pi * rng.random((3000, 1)))
    cmp = compare_algorithms(
        uvw, freq, vis, 1.0, spec, algorithms=SIX, params=GridParams(threads=1), device="cpu",
        repeats=REPEATS,
    )  # fmt: skip
    entries = tuple(ImagingOptions(npix=64, algorithm=a) for a in SIX)
    return CompareOutput(cmp, entries, 0.0, -0.5, freq, "random coverage")


@pytest.fixture
def view(qtbot, output):
    v = CompareView()
    qtbot.addWidget(v)
    v.resize(1358, 690)  # the Compare tab of a window on a 1366×768 screen
    v.show()
    qtbot.waitExposed(v)
    v.show_output(output)
    QtWidgets.QApplication.processEvents()
    return v


def column(table, title_start: str) -> int:
    titles = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    return next(c for c, t in enumerate(titles) if t.startswith(title_start))


def rows(table) -> dict[str, int]:
    return {table.item(r, 0).text(): r for r in range(table.rowCount())}


def test_each_metric_column_says_what_it_measures_and_its_units(view):
    table = view.metrics_table
    tips = {
        table.horizontalHeaderItem(c).text(): table.horizontalHeaderItem(c).toolTip()
        for c in range(table.columnCount())
    }
    assert all(tips.values()), [t for t, tip in tips.items() if not tip]
    for title, tip in tips.items():
        if "error" in title.lower():
            assert "peak" in tip and "dimensionless" in tip, title
    assert "milliseconds" in tips["time (ms)\nmedian (range)"]
    assert "per second" in tips["rate\n(vis/s)"]
    assert all(b in tips["backend"] for b in ("ducc0", "numba", "NumPy"))


def test_the_backend_of_each_entry(view, output):
    table = view.metrics_table
    c, at = column(table, "backend"), rows(table)
    shown = {label: table.item(r, c).text() for label, r in at.items()}
    assert shown == {label: output.comparison.results[label].backend for label in SIX}
    assert shown["ducc"] == "ducc0"  # ducc0, which chooses its own kernel from ε
    chain = algorithm("conv").backend("cpu")  # uvlab's chain on the CPU: numba or NumPy
    assert chain in ("numba", "NumPy")
    assert {shown[a] for a in SIX if a != "ducc"} == {chain}


def test_median_time_and_its_spread_in_the_table_and_as_error_bars(view, output):
    table, results = view.metrics_table, output.comparison.results
    c, at = column(table, "time (ms)\nmedian"), rows(table)
    for label in SIX:
        r = results[label]
        assert len(r.runs_s) == REPEATS and r.warmup_s > 0  # timed after a warm-up run
        lo, hi = r.spread_s
        assert (lo, hi) == (min(r.runs_s), max(r.runs_s))
        assert lo <= r.total_s <= hi
        assert r.total_s in r.runs_s  # the median run's stages are those drawn
        assert sorted(r.runs_s)[REPEATS // 2] == r.total_s
        ms = [format_metric("time_ms", 1e3 * t) for t in (r.total_s, lo, hi)]
        assert table.item(at[label], c).text() == f"{ms[0]} ({ms[1]}–{ms[2]})"
    y, lo_ms, hi_ms = view.timing_view.spread_ms()
    assert y.size == len(SIX)
    np.testing.assert_allclose(lo_ms, [1e3 * results[a].spread_s[0] for a in SIX], rtol=1e-12)
    np.testing.assert_allclose(hi_ms, [1e3 * results[a].spread_s[1] for a in SIX], rtol=1e-12)
    ends = sum(view.timing_view.stage_widths_ms(s) for s in view.timing_view.bars)
    assert np.all((lo_ms <= ends * (1 + 1e-12)) & (ends <= hi_ms * (1 + 1e-12)))
    # the totals' texts sit past the error bars, inside the plot's x range
    x_max = view.timing_view.plot_item.vb.viewRange()[0][1]
    for text, end in zip(view.timing_view.totals, hi_ms):
        assert end <= text.pos().x() <= x_max


def test_scatter_labels_overlap_neither_each_other_nor_the_markers(view):
    """Six entries in the strip's small plot, two at one point: the labels stay legible."""
    acc = view.accuracy_view
    vb = acc.plot_item.vb
    area = vb.sceneBoundingRect()
    boxes = [label.sceneBoundingRect() for label in acc.labels]
    markers = [
        marker_box(vb.mapViewToScene(vb.mapFromItemToView(p, p.scatter.points()[0].pos())))
        for p in acc.points
    ]
    assert len(boxes) == len(SIX)
    for k, box in enumerate(boxes):
        assert area.contains(box), (SIX[k], box, area)
        for j in range(len(boxes)):
            if j != k:
                assert not box.intersects(boxes[j]), (SIX[k], SIX[j])
            if not markers[j].intersects(markers[k]):  # a marker on top of its own: beside it
                assert not box.intersects(markers[j]), (SIX[k], "marker of", SIX[j])
    # crowded: each label the entry's number, as on its tab
    shown = [label.toPlainText() for label in acc.labels]
    assert shown in (list(SIX), [str(k) for k in range(1, len(SIX) + 1)])
    tabs = [view.entry_bar.tabText(k) for k in range(view.entry_bar.count())]
    assert all(tab.startswith(f"{text} ") or tab == f"{k + 1} {text}"
               for k, (tab, text) in enumerate(zip(tabs, shown)))  # fmt: skip


def test_the_panels_timed_runs_reach_the_job(make_window, small_state, qtbot):
    w = make_window(small_state, run_on_start=False)
    w.compare.panel.set_entries([ImagingOptions(npix=128, algorithm=a) for a in ("ducc", "nn")])
    w.compare.panel.repeats_box.setValue(2)
    with qtbot.waitSignal(w.controller.result_ready, timeout=300_000) as blocker:
        request = w.controller.submit("compare")
    assert request.repeats == 2
    out = blocker.args[0].output
    assert [len(out.comparison.results[a].runs_s) for a in ("ducc", "nn")] == [2, 2]
    table = w.compare.view.metrics_table
    c, r = column(table, "time (ms)\nmedian"), out.comparison.results["nn"]
    ms = [format_metric("time_ms", 1e3 * t) for t in (r.total_s, *r.spread_s)]
    assert table.item(rows(table)["nn"], c).text() == f"{ms[0]} ({ms[1]}–{ms[2]})"
