"""ProfilePlotView: line plots for the R(X) diagonal scan and 1-D image cuts."""

from __future__ import annotations

import numpy as np
from PyQt6 import QtWidgets

from uvlab.widgets._pg import PALETTE, pg, plain_axes


class ProfilePlotView(QtWidgets.QWidget):
    """A few named curves on shared axes, optionally with a log y axis.

    With ``log_y=True``, non-positive y values cannot be drawn; they are
    replaced by NaN (a gap in the line) instead of raising warnings.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plot_widget = pg.PlotWidget()
        self.plot_item = self.plot_widget.getPlotItem()
        self.plot_item.showGrid(x=True, y=True, alpha=0.25)
        plain_axes(self.plot_item)
        self.legend = self.plot_item.addLegend(offset=(-10, 10))
        self.curves: dict[str, pg.PlotDataItem] = {}
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.plot_widget)

    def set_curves(
        self,
        curves: dict[str, tuple],
        xlabel: str = "",
        ylabel: str = "",
        log_y: bool = True,
    ) -> None:
        """Replace the curves.

        Parameters
        ----------
        curves : dict
            ``{name: (x, y)}`` with x, y 1-D arrays of equal length.
        xlabel, ylabel : str
            Axis labels (e.g. ``"X (pixels)"``, ``"|1 − I(X, X)|"``).
        log_y : bool
            Logarithmic y axis.
        """
        for item in self.curves.values():
            self.plot_item.removeItem(item)
        self.legend.clear()
        self.curves = {}
        self.plot_item.setLogMode(x=False, y=log_y)
        for k, (name, (x, y)) in enumerate(curves.items()):
            x = np.asarray(x, dtype=np.float64).ravel()
            y = np.asarray(y, dtype=np.float64).ravel()
            if x.shape != y.shape:
                raise ValueError(f"curve {name!r}: x {x.shape} and y {y.shape} differ")
            if log_y:
                y = np.where(y > 0, y, np.nan)
            pen = pg.mkPen(PALETTE[k % len(PALETTE)], width=2)
            item = self.plot_item.plot(x, y, pen=pen, name=str(name), connect="finite")
            self.curves[str(name)] = item
        self.plot_item.setLabel("bottom", xlabel)
        self.plot_item.setLabel("left", ylabel)
        self.plot_item.autoRange()

    def curve_data(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """The (x, y) given for a curve (y with non-positive values as NaN in log mode)."""
        x, y = self.curves[name].getOriginalDataset()
        return np.asarray(x), np.asarray(y)
