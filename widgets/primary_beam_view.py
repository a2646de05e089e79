"""PrimaryBeamView: the power beam |E|² over the field, with the sky's components on it.

A dish sees a source at |E|² of its flux: the view shows the power beam in direction
cosines about the pointing centre, in degrees (l increasing to the left, east, as the
sky images show it), its half-power contour, the image's field as a dashed square, and
each component of the sky as a ring labelled with the fraction of its flux the dish
passes (the farthest first; a label that would overlap one already drawn on screen is
hidden until a zoom makes room: :mod:`~uvlab.widgets.label_declutter`).
The map comes computed: ``power[j, i]`` at ``l = (i − n//2)·step``,
``m = (j − n//2)·step`` (:func:`uvlab.app.lab.corruptions.beam_map`); the view places
it with ``setRect`` and draws.

Deferred drawing as the other views: with ``defer=True`` the data are stored (the
accessors answer at once) and drawn by :meth:`PrimaryBeamView.flush`, or when the view is
next shown.
"""

from __future__ import annotations

import math

import numpy as np
from PyQt6 import QtCore, QtWidgets

from uvlab.widgets._pg import get_colormap, pg, plain_axes
from uvlab.widgets.label_declutter import declutter, marker_rects

#: Components given a label with their beam gain, at most (the farthest; shown where they fit).
MAX_LABELS = 24
#: The components' rings, pixels across.
RING_PX = 14
#: Pixels between a gain's label and its ring's edge.
LABEL_GAP_PX = 1.0


def label_anchors(width: float, height: float) -> list[tuple[float, float]]:
    """Where a ``width`` × ``height`` px gain may sit against its ring, as TextItem anchors.

    In order of preference: above right, above left, below right, below left (a corner
    of the ring under the label's), centred above, centred below, right, left: only
    places touching the ring, so that a row of rings a label's width apart gets each
    gain beside its own ring and over no other (they used to sit above right, each over
    its neighbour's ring, and read as that ring's).
    """
    r = RING_PX / 2
    cx, cy = (r / 2) / width, (r / 2) / height  # the label's corner inside the ring's square
    ox, oy = (r + LABEL_GAP_PX) / width, (r + LABEL_GAP_PX) / height
    right, left, up, down = -cx, 1 + cx, 1 + cy, -cy
    return [
        (right, up), (left, up), (right, down), (left, down),
        (0.5, 1 + oy), (0.5, -oy), (-ox, 0.5), (1 + ox, 0.5),
    ]  # fmt: skip


def _anchors(text: pg.TextItem) -> list[tuple[float, float]]:
    """:func:`label_anchors` for ``text`` at its size now."""
    size = text.textItem.boundingRect().size()
    return label_anchors(size.width(), size.height())


#: The half-power contour's level.
HALF_POWER = 0.5


class PrimaryBeamView(QtWidgets.QWidget):
    """The power beam and the components it attenuates.

    ``set_beam(power, step_rad, image_half_rad=..., title=...)``,
    ``set_sources(l, m, gain)`` (direction cosines, |E|² at each) and
    ``set_message(text)`` (no beam to show); :meth:`power`, :meth:`step` and
    :meth:`sources` answer with what is shown.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plot_widget = pg.PlotWidget()
        self.plot_item = self.plot_widget.getPlotItem()
        plain_axes(self.plot_item)
        self.plot_item.setLabel("bottom", "l (°, east to the left)")
        self.plot_item.setLabel("left", "m (°)")
        self.view_box = self.plot_item.getViewBox()
        self.view_box.setAspectLocked(True)
        self.view_box.invertX(True)
        self.image_item = pg.ImageItem(axisOrder="row-major")
        self.plot_item.addItem(self.image_item)
        self.color_bar = pg.ColorBarItem(
            colorMap=get_colormap("viridis"),
            interactive=False,
            values=(0.0, 1.0),
            label="|E|² (power beam)",
            width=max(8, round(0.7 * self.fontMetrics().height())),
        )
        self.color_bar.setImageItem(self.image_item, insert_in=self.plot_item)
        self.contour = pg.IsocurveItem(level=HALF_POWER, pen=pg.mkPen("w", width=1))
        self.contour.setParentItem(self.image_item)
        self.field_item = pg.PlotCurveItem(
            pen=pg.mkPen((255, 255, 255, 180), width=1, style=QtCore.Qt.PenStyle.DashLine)
        )
        self.plot_item.addItem(self.field_item)
        ring = pg.mkPen((255, 80, 80, 230), width=1.5)
        self.marks = pg.ScatterPlotItem(symbol="o", size=RING_PX, pxMode=True, brush=None, pen=ring)
        self.marks.setZValue(5)
        self.plot_item.addItem(self.marks)
        self._labels: list[pg.TextItem] = []
        self._own: list[int] = []  # each label's ring, an index into the sources
        self.view_box.sigRangeChanged.connect(self._declutter)
        self.view_box.sigResized.connect(self._declutter)
        self.title = QtWidgets.QLabel("")
        self.title.setWordWrap(True)
        self.title.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred
        )
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.setSpacing(2)
        lay.addWidget(self.title)
        lay.addWidget(self.plot_widget, 1)
        self._power: np.ndarray | None = None
        self._step = 0.0
        self._half = 0.0
        self._sources = (np.zeros(0), np.zeros(0), np.zeros(0))
        self._pending = False

    # ----------------------------------------------------------------- data
    def set_beam(
        self, power, step_rad: float, *, image_half_rad: float = 0.0, title: str = "",
        defer: bool = False,
    ) -> None:  # fmt: skip
        """Show |E|² (n, n), ``power[j, i]`` at l = (i − n//2)·step, m = (j − n//2)·step."""
        power = np.asarray(power, dtype=np.float64)
        if power.ndim != 2 or power.shape[0] != power.shape[1]:
            raise ValueError(f"the beam must be square (n, n), got shape {power.shape}")
        if not step_rad > 0:
            raise ValueError(f"the beam map's step must be > 0, got {step_rad}")
        self._power, self._step, self._half = power, float(step_rad), float(image_half_rad)
        self.title.setText(title)
        self._pending = True
        if not defer:
            self.flush()

    def set_sources(self, l, m, gain) -> None:
        """The components (direction cosines) and the power beam at each (drawn with the beam)."""
        l, m, gain = (np.asarray(a, dtype=np.float64).ravel() for a in (l, m, gain))
        if not l.shape == m.shape == gain.shape:
            raise ValueError(f"l {l.shape}, m {m.shape} and gain {gain.shape} differ")
        self._sources = (l, m, gain)
        self._pending = True

    def set_message(self, text: str) -> None:
        """Nothing to show but ``text`` (e.g. no beam chosen)."""
        self.clear()
        self.title.setText(text)

    def needs_drawing(self) -> bool:
        return self._pending

    def flush(self) -> bool:
        """Draw what was set with ``defer=True``; returns whether anything was drawn."""
        if not self._pending:
            return False
        self._pending = False
        if self._power is None:
            return False
        deg = math.degrees(1.0)
        n = self._power.shape[0]
        k = self._step * deg
        edge = (-(n // 2) - 0.5) * k
        self.image_item.setImage(self._power, autoLevels=False, levels=(0.0, 1.0))
        self.image_item.setRect(QtCore.QRectF(edge, edge, n * k, n * k))
        self.contour.setData(self._power)
        # the contour is drawn in the image's pixel coordinates: its item follows the image
        h = self._half * deg
        self.field_item.setData(x=[-h, h, h, -h, -h], y=[-h, -h, h, h, -h])
        self._draw_sources()
        self.plot_item.autoRange()
        return True

    def _draw_sources(self) -> None:
        for item in self._labels:
            self.plot_item.removeItem(item)
        self._labels, self._own = [], []
        l, m, gain = self._sources
        deg = math.degrees(1.0)
        self.marks.setData(x=l * deg, y=m * deg)
        # the farthest first; each shown where it is clear of those before it (_declutter)
        for i in np.argsort(-np.hypot(l, m), kind="stable")[:MAX_LABELS]:
            text = pg.TextItem(f"×{gain[i]:.2f}", color=(255, 200, 200))  # placed by _declutter
            text.textItem.document().setDocumentMargin(1)
            text.setPos(l[i] * deg, m[i] * deg)
            self.plot_item.addItem(text)
            self._labels.append(text)
            self._own.append(int(i))
        self._declutter()

    def shown_labels(self) -> list[pg.TextItem]:
        """The gain labels drawn now (the others would overlap them)."""
        return [t for t in self._labels if t.isVisible()]

    def _declutter(self, *_args) -> None:
        """Gains inside the plot against their own rings, clear of each other and of the
        other rings (a gain that fits nowhere is hidden until a zoom makes room)."""
        if self._labels:
            l, m, _ = self._sources
            deg = math.degrees(1.0)
            rings = marker_rects(self.view_box, l * deg, m * deg, RING_PX)
            declutter(self.view_box, self._labels, anchors=_anchors, markers=rings, own=self._own)

    def showEvent(self, event) -> None:  # Qt override: a hidden tab draws when shown
        super().showEvent(event)
        self.flush()

    def clear(self) -> None:
        self.image_item.clear()
        self.contour.setData(None)
        self.field_item.setData(x=[], y=[])
        self._sources = (np.zeros(0), np.zeros(0), np.zeros(0))
        self._draw_sources()
        self._power, self._step, self._half = None, 0.0, 0.0
        self._pending = False
        self.title.setText("")

    # -------------------------------------------------------------- accessors
    def power(self) -> np.ndarray | None:
        """The |E|² map given to :meth:`set_beam`."""
        return self._power

    def step(self) -> float:
        return self._step

    def sources(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(l, m, gain) given to :meth:`set_sources`."""
        return self._sources
