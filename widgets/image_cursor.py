"""The cursor of a sky image view: its crosshair, the readout under the mouse, clicks.

Public l, m arguments and signals are direction cosines (dimensionless, ≈ radians); the
crosshair's lines sit on the plot's arcmin axes. The readout (value, l, m, RA/Dec) is
:func:`uvlab.widgets.image_readout.readout_at`'s.
"""

from __future__ import annotations

from PyQt6 import QtCore, QtWidgets

from uvlab.widgets._pg import pg
from uvlab.widgets.image_geometry import ARCMIN
from uvlab.widgets.image_readout import readout_at, readout_text


class CursorMixin:
    """Crosshair and readout methods of :class:`~uvlab.widgets.image_view.SkyImageView`.

    The view provides ``plot_widget``, ``plot_item``, ``view_box``, the signals
    ``cursor_moved``, ``crosshair_moved`` and ``clicked``, and the state ``_data``,
    ``_spec``, ``_radec0``, ``_units``, ``_setting_crosshair`` and ``_cursor_lm``.
    """

    def _build_cursor(self) -> None:
        """The crosshair's lines (``v_line``, ``h_line``), ``readout_label``, mouse slots."""
        pen = pg.mkPen((0, 220, 255, 160), width=1)
        self.v_line = pg.InfiniteLine(0.0, angle=90, movable=True, pen=pen)
        self.h_line = pg.InfiniteLine(0.0, angle=0, movable=True, pen=pen)
        for line in (self.v_line, self.h_line):
            line.setZValue(10)
            self.plot_item.addItem(line, ignoreBounds=True)
            line.sigPositionChanged.connect(self._on_line_moved)
        self.readout_label = QtWidgets.QLabel(" ")
        self.readout_label.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse
        )
        # long readouts are clipped instead of widening the view
        self.readout_label.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred
        )
        scene = self.plot_widget.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(self._on_mouse_clicked)

    def set_crosshair(self, l: float, m: float) -> None:
        """Move the crosshair to direction cosines (l, m) without emitting."""
        self._setting_crosshair = True
        try:
            self.v_line.setValue(l / ARCMIN)
            self.h_line.setValue(m / ARCMIN)
        finally:
            self._setting_crosshair = False

    def crosshair(self) -> tuple[float, float]:
        """(l, m) of the crosshair, direction cosines."""
        return self.v_line.value() * ARCMIN, self.h_line.value() * ARCMIN

    def _on_line_moved(self) -> None:
        if not self._setting_crosshair:
            self.crosshair_moved.emit(*self.crosshair())

    def readout_at(self, l: float, m: float) -> dict:
        """Everything the cursor readout shows at direction cosines (l, m).

        Returns
        -------
        dict
            See :func:`uvlab.widgets.image_readout.readout_at`.
        """
        return readout_at(
            l, m, data=self._data, spec=self._spec, radec0=self._radec0, units=self._units
        )

    def _on_mouse_moved(self, scene_pos: QtCore.QPointF) -> None:
        if self._data is None or not self.view_box.sceneBoundingRect().contains(scene_pos):
            return
        p = self.view_box.mapSceneToView(scene_pos)
        self._cursor_lm = (p.x() * ARCMIN, p.y() * ARCMIN)
        r = self.readout_at(*self._cursor_lm)
        self.readout_label.setText(readout_text(r))
        self.cursor_moved.emit(r)

    def _refresh_readout(self) -> None:
        """The readout of the last cursor position, for the image now shown (new RA/Dec, value)."""
        if self._cursor_lm is None or self._data is None:
            self.readout_label.setText(" ")
            return
        self.readout_label.setText(readout_text(self.readout_at(*self._cursor_lm)))

    def _on_mouse_clicked(self, ev) -> None:
        if ev.button() != QtCore.Qt.MouseButton.LeftButton or ev.double():
            return
        if not self.view_box.sceneBoundingRect().contains(ev.scenePos()):
            return
        p = self.view_box.mapSceneToView(ev.scenePos())
        l, m = p.x() * ARCMIN, p.y() * ARCMIN
        self.set_crosshair(l, m)
        self.crosshair_moved.emit(l, m)
        self.clicked.emit(l, m)
