"""The Aliasing tab: error map against the DFT, analytic map, R(X) and metrics.

Nothing is computed until the user presses *Compute* (the DFT reference can
be slow); until then, and whenever the parameters change, the tab says so.
When the DFT reference is too costly the error map is left empty, never the
previous computation's, and a banner over it says why.
"""

from __future__ import annotations

import numpy as np
from PyQt6 import QtCore, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.app.gui.boxes import boxed
from uvlab.app.gui.on_demand import OnDemand
from uvlab.widgets import MetricsTable, ProfilePlotView, SkyImageView
from uvlab.widgets.stale_overlay import StaleOverlay

NOT_COMPUTED = (
    "Aliasing maps not computed. Press Compute to compare the current algorithm with the "
    "exact DFT on the current data (error map), and to draw its analytic aliasing map and "
    "Muscat's R(X) point-source scan."
)


class AliasingView(OnDemand, QtWidgets.QWidget):
    """Shows an :class:`~uvlab.app.lab.jobs.AliasingOutput`.

    Signals
    -------
    compute_requested()
    """

    compute_requested = pyqtSignal()
    NOT_COMPUTED = NOT_COMPUTED
    STALE = "Parameters changed since these maps were computed: press Compute to update them."

    def __init__(self, parent=None):
        super().__init__(parent)
        self.compute_button = QtWidgets.QPushButton("Compute")
        self.note = QtWidgets.QLabel(NOT_COMPUTED)
        self.note.setWordWrap(True)
        self.error_view = SkyImageView(colormap="viridis", stretch="log")
        self.analytic_view = SkyImageView(colormap="viridis", stretch="log")
        self.scan_view = ProfilePlotView()
        self.metrics = MetricsTable()
        self.metrics.setMaximumHeight(70)
        self.metrics.hide()  # shown with the error map's metrics
        self.error_box = boxed("Error map |I − I_DFT| / peak", self.error_view)
        self.error_mark = StaleOverlay(self.error_view.plot_widget)  # why it is empty
        head = QtWidgets.QHBoxLayout()
        head.addWidget(self.compute_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        head.addWidget(self.note, 1)
        # the two maps and R(X) side by side, as tall as the tab: all three on a 1366×768
        # screen without scrolling (each map view ≥ 300 px there)
        maps = QtWidgets.QHBoxLayout()
        maps.addWidget(self.error_box, 1)
        maps.addWidget(boxed("Analytic map E(l, m) = max_δ |L_u·L_v − 1|", self.analytic_view), 1)
        maps.addWidget(
            boxed("R(X) = |1 − I(X, X)|, a unit source on the diagonal", self.scan_view), 1
        )
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addLayout(head)
        lay.addWidget(self.metrics)
        lay.addLayout(maps, 1)
        self.compute_button.clicked.connect(self.compute_requested)
        self._computed = False

    def set_running(self, running: bool) -> None:
        if running:
            self.note.setText("Computing aliasing maps …")

    def show_output(self, out) -> None:
        """Draw an AliasingOutput."""
        self._computed = True
        # short: a group box is at least as wide as its title, and the banner says why
        self.error_box.setTitle("Error map |I − I_DFT| / peak" if out.error is not None
                                else "Error map: not computed")  # fmt: skip
        if out.error is None:  # not the previous map under the new title
            self.error_view.clear()
            why = [n for n in out.notes if n.startswith("Error map")]
            self.error_mark.mark(why[0] if why else "Error map not computed")
        else:
            self.error_mark.unmark()
            self.error_view.set_image(
                np.maximum(out.error, 1e-16),
                out.spec,
                title=f"{out.algorithm} vs DFT",
                units="fraction of peak",
            )
        if out.analytic is not None:
            spec = out.analytic_spec or out.spec
            self.analytic_view.set_image(
                np.maximum(out.analytic, 1e-16),
                spec,
                title=f"{out.algorithm}: analytic bound",
                units="fraction",
            )
        if len(out.scan_x):
            self.scan_view.set_curves(
                {out.algorithm: (out.scan_x, out.scan_r)},
                xlabel="X (pixels from the centre, on the diagonal)",
                ylabel="|1 − I(X, X)|",
            )
        self.metrics.setVisible(bool(out.metrics))
        if out.metrics:
            self.metrics.set_metrics({out.algorithm: out.metrics})
        text = f"Aliasing of {out.algorithm} ({out.spec.npix}² pixels)."
        if out.metrics:
            text += f" RMS error over the central half: {out.metrics['rms_central']:.2e}."
        if out.notes:
            text += " " + " ".join(out.notes)
        self.note.setText(text)
        self.note.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
