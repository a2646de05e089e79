"""AccuracyTimeView: one labelled marker per run at (time, error), on log-log axes."""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.widgets.accuracy_time_view import AccuracyTimeView


@pytest.fixture
def view(qtbot):
    v = AccuracyTimeView("RMS error", "total time (s)")
    qtbot.addWidget(v)
    return v


def test_one_marker_per_run_at_its_time_and_error(view):
    t = np.array([0.09, 0.64, 4.6])
    e = np.array([1.5e-9, 4.7e-5, 7.3e-5])
    view.set_points(t, e, ["conv", "hybrid", "pruned-nn"])
    assert view.plot_item.ctrl.logXCheck.isChecked() and view.plot_item.ctrl.logYCheck.isChecked()
    assert len(view.points) == 3 and [x.toPlainText() for x in view.labels] == [
        "conv",
        "hybrid",
        "pruned-nn",
    ]
    for k, item in enumerate(view.points):
        np.testing.assert_array_equal(item.xData, [t[k]])
        np.testing.assert_array_equal(item.yData, [e[k]])
        x, y = item.getData()  # what is drawn: log10 of both
        np.testing.assert_allclose([x[0], y[0]], np.log10([t[k], e[k]]))
        pos = view.labels[k].pos()
        np.testing.assert_allclose([pos.x(), pos.y()], np.log10([t[k], e[k]]))
    got_t, got_e = view.point_data()
    np.testing.assert_array_equal(got_t, t)
    np.testing.assert_array_equal(got_e, e)
    # the ranges hold every marker
    (x0, x1), (y0, y1) = view.plot_item.viewRange()
    assert x0 < np.log10(t).min() and x1 > np.log10(t).max()
    assert y0 < np.log10(e).min() and y1 > np.log10(e).max()
    assert view.note.isHidden()


def test_new_points_replace_the_old_and_non_positive_ones_are_named(view):
    view.set_points([1.0, 2.0, 3.0], [1e-3, 1e-4, 1e-5], ["a", "b", "c"])
    view.set_points([0.5, 0.2], [0.0, 2e-2], ["zero", "ok"])
    assert len(view.points) == 1 and view.labels[0].toPlainText() == "ok"
    items = [i for i in view.plot_item.items if i in view.points or i in view.labels]
    assert len(items) == 2
    assert "zero" in view.note.text() and not view.note.isHidden()
    with pytest.raises(ValueError):
        view.set_points([1.0], [1e-3], ["a", "b"])


def test_reference_curve_is_sorted_by_time(view):
    """The line runs along time; each point has its marker, label and tooltip."""
    t, e = [0.3, 0.1, 0.2, -1.0], [1e-6, 1e-2, 1e-4, 1e-3]  # the last: not on a log plot
    view.set_curve(t, e, ["S=6", "S=2", "S=4", "S=3"], name="conv ES")
    np.testing.assert_array_equal(view.curve.xData, [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(view.curve.yData, [1e-2, 1e-4, 1e-6])
    assert [x.toPlainText() for x in view.curve_labels] == ["S=6", "S=2", "S=4"]
    assert [p.toolTip() for p in view.curve_points] == ["conv ES S=6", "conv ES S=2", "conv ES S=4"]
    got_t, got_e = view.curve_point_data()
    np.testing.assert_array_equal(got_t, t[:3])
    np.testing.assert_array_equal(got_e, e[:3])
    for label, (x, y) in zip(view.curve_labels, zip(t, e)):  # each at its point
        np.testing.assert_allclose([label.pos().x(), label.pos().y()], np.log10([x, y]))
    view.set_curve()
    assert view.curve.xData is None or view.curve.xData.size == 0
    assert not view.curve_labels and not view.curve_points
    assert not [
        i for i in view.plot_item.items if isinstance(i, type(view.curve)) and i is not view.curve
    ]


def test_labels_of_close_markers_neither_overlap_nor_leave_the_plot(view, qtbot):
    """Six runs in a short plot (the Compare tab's strip), two at the same point, one on top."""
    from PyQt6 import QtWidgets

    t = np.array([0.02, 0.3, 1.4, 0.4, 0.05, 1.4])
    e = np.array([2e-3, 2.3e-8, 7.3e-5, 4.9e-5, 1.5e-9, 7.3e-5])
    names = ["nn", "conv", "pruned-nn", "hybrid", "ducc", "nn-oversampled"]
    view.resize(300, 180)
    view.show()
    qtbot.waitExposed(view)
    view.set_points(t, e, names)
    QtWidgets.QApplication.processEvents()
    area = view.plot_item.vb.sceneBoundingRect()
    shown = [k for k, label in enumerate(view.labels) if label.isVisible()]
    assert len(shown) >= 3
    assert all(view.points[k].toolTip() == names[k] for k in range(6))  # hidden ones too
    boxes = [label.sceneBoundingRect() for label in view.labels]
    for k in shown:
        assert area.contains(boxes[k]), (names[k], boxes[k], area)
        for j in shown:
            assert j == k or not boxes[k].intersects(boxes[j]), (names[k], names[j])
    for label, item in zip(view.labels, view.points):  # each still at its marker
        np.testing.assert_allclose(
            [label.pos().x(), label.pos().y()], np.log10([item.xData[0], item.yData[0]])
        )


@pytest.mark.parametrize(("size", "names"), [((900, 500), True), ((220, 140), False)])
def test_labels_keep_clear_of_the_markers_the_names_where_they_fit(view, qtbot, size, names):
    """Six runs, two at one point: the names in a roomy plot, the numbers in a cramped one."""
    from PyQt6 import QtCore, QtWidgets

    from uvlab.widgets.accuracy_time_view import marker_box

    t = np.array([0.02, 0.3, 1.4, 0.4, 0.05, 1.4])
    e = np.array([2e-3, 2.3e-8, 7.3e-5, 4.9e-5, 1.5e-9, 7.3e-5])
    full = ["nn", "conv", "pruned-nn", "hybrid", "ducc", "nn-oversampled"]
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    view.set_points(t, e, full, [str(k) for k in range(1, 7)])
    QtWidgets.QApplication.processEvents()
    shown = [label.toPlainText() for label in view.labels]
    assert shown == (full if names else [str(k) for k in range(1, 7)])
    assert all(label.isVisible() for label in view.labels)
    assert [item.toolTip() for item in view.points] == full  # the name, whatever is shown
    vb = view.plot_item.vb
    at = [vb.mapViewToScene(QtCore.QPointF(*np.log10([a, b]))) for a, b in zip(t, e)]
    marks = [marker_box(p) for p in at]
    boxes = [label.sceneBoundingRect() for label in view.labels]
    for k, box in enumerate(boxes):
        assert vb.sceneBoundingRect().contains(box)
        for j in range(6):
            if j != k:
                assert not box.intersects(boxes[j]), (shown[k], shown[j])
            if not marks[j].intersects(marks[k]):  # a marker on its own: the label beside it
                assert not box.intersects(marks[j]), (shown[k], "covers", full[j])
