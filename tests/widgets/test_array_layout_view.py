"""ArrayLayoutView: points where the antennas are, and dragging one moves it."""

from __future__ import annotations

import numpy as np
import pytest
from PyQt6 import QtCore, QtWidgets

from tests.support.mouse import send
from uvlab.widgets.array_layout_view import ArrayLayoutView

ENU = np.array([[0.0, 0.0, 1.0], [100.0, 0.0, 2.0], [0.0, 250.0, 3.0], [-80.0, -60.0, 0.0]])
NAMES = ["m000", "m001", "m002", "m003"]


class FakeDrag:
    """Stands in for pyqtgraph's MouseDragEvent (item coordinates)."""

    def __init__(self, down, pos, start=False, finish=False):
        self._down, self._pos = QtCore.QPointF(*down), QtCore.QPointF(*pos)
        self._start, self._finish = start, finish
        self.accepted = None

    def button(self):
        return QtCore.Qt.MouseButton.LeftButton

    def buttonDownPos(self):
        return self._down

    def pos(self):
        return self._pos

    def isStart(self):
        return self._start

    def isFinish(self):
        return self._finish

    def accept(self):
        self.accepted = True

    def ignore(self):
        self.accepted = False


@pytest.fixture
def view(qtbot):
    v = ArrayLayoutView(drag_interval_s=0.0)
    qtbot.addWidget(v)
    v.resize(500, 500)
    v.show()
    qtbot.waitExposed(v)
    v.set_antennas(ENU, NAMES, diameters=13.5)
    return v


def test_points_and_tooltips(view):
    x, y = view.scatter.getData()
    np.testing.assert_array_equal(np.c_[x, y], ENU[:, :2])
    tip = view.scatter.opts["tip"](x=0.0, y=250.0, data=2)
    assert "m002" in tip and "13.5" in tip
    assert [t.toPlainText() for t in view.labels] == NAMES
    assert view.plot_item.getViewBox().state["aspectLocked"]
    assert "4 antennas, 6 baselines" in view.info_label.text()
    # shortest: |(100, 0)| = |(-80, -60)| = 100 m; longest: |(0, 250) − (−80, −60)| = 320.2 m
    assert "shortest 100.0 m, longest 320.2 m" in view.info_label.text()


def test_drag_emits_moved_on_release(qtbot, view):
    start = (0.5, 250.5)  # grab m002 a little off-centre
    moved, dragged = [], []
    view.antenna_moved.connect(lambda *a: moved.append(a))
    view.antenna_dragged.connect(lambda *a: dragged.append(a))
    ev = FakeDrag(start, start, start=True)
    view.scatter.mouseDragEvent(ev)
    assert ev.accepted
    view.scatter.mouseDragEvent(FakeDrag(start, (40.5, 200.5)))
    assert dragged == [(2, pytest.approx(40.0), pytest.approx(200.0))] and moved == []
    view.scatter.mouseDragEvent(FakeDrag(start, (60.5, 180.5), finish=True))
    assert moved == [(2, pytest.approx(60.0), pytest.approx(180.0))]
    expected = ENU.copy()
    expected[2, :2] = 60.0, 180.0
    np.testing.assert_allclose(view.positions(), expected)
    x, y = view.scatter.getData()
    assert (x[2], y[2]) == pytest.approx((60.0, 180.0))
    assert (view.labels[2].pos().x(), view.labels[2].pos().y()) == pytest.approx((60.0, 180.0))


def test_drag_on_empty_space_is_ignored(view):
    ev = FakeDrag((500.0, 500.0), (500.0, 500.0), start=True)
    view.scatter.mouseDragEvent(ev)
    assert ev.accepted is False
    np.testing.assert_array_equal(view.positions(), ENU)


def test_dragged_is_throttled(qtbot):
    v = ArrayLayoutView(drag_interval_s=60.0)
    qtbot.addWidget(v)
    v.set_antennas(ENU, NAMES)
    seen = []
    v.antenna_dragged.connect(lambda *a: seen.append(a))
    for k in range(5):
        v.drag(1, 100.0 + k, 0.0)
    assert len(seen) == 1
    with qtbot.waitSignal(v.antenna_moved) as blocker:
        v.finish_drag(1, 110.0, 5.0)
    assert blocker.args == [1, 110.0, 5.0]


def test_rejects_bad_shapes(view):
    with pytest.raises(ValueError):
        view.set_antennas(np.zeros((3, 2)))
    with pytest.raises(ValueError):
        view.set_antennas(np.zeros((3, 3)), names=["a"])


def test_real_mouse_drag_moves_antenna(qtbot, view):
    QtWidgets.QApplication.processEvents()
    vb = view.plot_item.getViewBox()
    to_widget = view.plot_widget.mapFromScene
    a = to_widget(vb.mapViewToScene(QtCore.QPointF(100.0, 0.0)))
    b = to_widget(vb.mapViewToScene(QtCore.QPointF(150.0, -50.0)))
    port = view.plot_widget.viewport()
    left, none = QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.MouseButton.NoButton
    with qtbot.waitSignal(view.antenna_moved, timeout=2000) as blocker:
        send(port, QtCore.QEvent.Type.MouseButtonPress, a, left)
        for f in np.linspace(0.1, 1.0, 6):
            p = QtCore.QPoint(
                round(a.x() + f * (b.x() - a.x())), round(a.y() + f * (b.y() - a.y()))
            )
            send(port, QtCore.QEvent.Type.MouseMove, p, left)
        send(port, QtCore.QEvent.Type.MouseButtonRelease, b, none)
    index, east, north = blocker.args
    px = vb.viewPixelSize()  # metres per screen pixel: rounding to whole pixels
    assert index == 1
    assert east == pytest.approx(150.0, abs=2 * px[0]) and north == pytest.approx(
        -50.0, abs=2 * px[1]
    )
    assert view.positions()[1, :2] == pytest.approx([east, north])
