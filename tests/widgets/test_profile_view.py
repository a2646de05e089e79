"""ProfilePlotView: curves as given, log axis without warnings for y ≤ 0."""

from __future__ import annotations

import numpy as np
import pytest

from uvlab.widgets.profile_view import ProfilePlotView


@pytest.fixture
def view(qtbot):
    v = ProfilePlotView()
    qtbot.addWidget(v)
    return v


def test_curves_log_axis_and_legend(view):
    x = np.arange(1.0, 65.0)
    y1, y2 = 1e-6 * np.exp(x / 10), 1e-3 * np.sin(x / 5)  # y2 has negative values
    view.set_curves({"conv": (x, y1), "nn": (x, y2)}, "X (pixels)", "|1 − I(X, X)|")
    assert view.plot_item.ctrl.logYCheck.isChecked()
    assert [label.text for _, label in view.legend.items] == ["conv", "nn"]
    np.testing.assert_array_equal(view.curve_data("conv")[1], y1)
    _, shown = view.curve_data("nn")
    np.testing.assert_array_equal(np.isnan(shown), y2 <= 0)
    np.testing.assert_array_equal(shown[y2 > 0], y2[y2 > 0])
    assert view.plot_item.getAxis("bottom").labelText == "X (pixels)"


def test_linear_axis_keeps_negative_values(view):
    x = np.linspace(-1, 1, 11)
    view.set_curves({"cut": (x, -x)}, "l (arcmin)", "Jy/beam", log_y=False)
    assert not view.plot_item.ctrl.logYCheck.isChecked()
    np.testing.assert_array_equal(view.curve_data("cut")[1], -x)
    view.set_curves({}, log_y=False)
    assert view.curves == {} and view.legend.items == []
    with pytest.raises(ValueError):
        view.set_curves({"bad": (x, x[:-1])})
