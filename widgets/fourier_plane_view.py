"""FourierPlaneView: |FT(sky)| on a log scale, with the uv samples drawn over it.

What an interferometer measures of a sky: the amplitude of its Fourier
transform, shown in kλ as ``log10(|V| / max|V|)`` (a floor at
:data:`FLOOR_DEX` below the peak), and over it the (u, v) points of the
observation (each sample and its mirror, at most :data:`MAX_POINTS` drawn).
The amplitude comes computed: ``amp[q, k]`` at ``u = (k − N/2)·du``,
``v = (q − N/2)·du`` (:func:`uvlab.app.lab.fourier_plane.sky_amplitude`); the
view places it with ``setRect`` and draws, it does not transform.
u increases to the right, v upwards.

Deferred drawing, as :class:`~uvlab.widgets.image_view.SkyImageView` does it:
with ``defer=True`` the data are stored (the accessors answer at once) and
drawn by :meth:`FourierPlaneView.flush`, or when the view is next shown.
"""

from __future__ import annotations

import numpy as np
from PyQt6 import QtCore, QtWidgets

from uvlab.widgets._pg import get_colormap, pg, plain_axes
from uvlab.widgets.elided_label import ElidedLabel

#: Dynamic range shown, decades below the peak amplitude.
FLOOR_DEX = 4.0
#: Most uv points drawn (a seeded sample beyond).
MAX_POINTS = 20_000


class FourierPlaneView(QtWidgets.QWidget):
    """The sky's Fourier amplitude and the sampled (u, v) points.

    ``set_amplitude(amp, du_lambda)`` and ``set_uv(u_lambda, v_lambda)``;
    :meth:`amplitude`, :meth:`du` and :meth:`uv_points` answer with what is shown.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plot_widget = pg.PlotWidget()
        self.plot_item = self.plot_widget.getPlotItem()
        plain_axes(self.plot_item)
        self.plot_item.setLabel("bottom", "u (kλ)")
        self.plot_item.setLabel("left", "v (kλ)")
        self.view_box = self.plot_item.getViewBox()
        self.view_box.setAspectLocked(True)
        self.image_item = pg.ImageItem(axisOrder="row-major")
        self.plot_item.addItem(self.image_item)
        self.color_bar = pg.ColorBarItem(
            colorMap=get_colormap("viridis"),
            interactive=False,
            values=(-FLOOR_DEX, 0.0),
            label="log₁₀ |V| / max",
            width=max(8, round(0.7 * self.fontMetrics().height())),
        )
        self.color_bar.setImageItem(self.image_item, insert_in=self.plot_item)
        self.points_item = pg.ScatterPlotItem(
            pen=None, brush=pg.mkBrush(255, 70, 70, 150), size=2, pxMode=True
        )
        self.points_item.setZValue(5)
        self.plot_item.addItem(self.points_item)
        self.show_points = QtWidgets.QCheckBox("uv samples")
        self.show_points.setChecked(True)
        self.show_points.setToolTip("Draw the observation's (u, v) samples over |FT(sky)|")
        self.show_points.toggled.connect(self.points_item.setVisible)
        self.note = ElidedLabel(
            ""
        )  # cut at a word where narrow (a lecture's grid), whole in its tooltip
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.show_points)
        row.addWidget(self.note, 1)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.setSpacing(2)
        lay.addLayout(row)
        lay.addWidget(self.plot_widget, 1)
        self._amp: np.ndarray | None = None
        self._du = 0.0
        self._uv = (np.zeros(0), np.zeros(0))
        self._pending: set[str] = set()  # "amplitude", "uv": stored, not drawn yet

    # ----------------------------------------------------------------- data
    def set_amplitude(self, amp, du_lambda: float, *, defer: bool = False) -> None:
        """Show ``|V|`` (N, N), ``amp[q, k]`` at ``u = (k − N/2)·du``, ``v = (q − N/2)·du``."""
        amp = np.asarray(amp)
        if amp.ndim != 2 or amp.shape[0] != amp.shape[1]:
            raise ValueError(f"the amplitude must be square (N, N), got shape {amp.shape}")
        if not du_lambda > 0:
            raise ValueError(f"du must be > 0 wavelengths, got {du_lambda}")
        self._amp, self._du = amp, float(du_lambda)
        self._pending.add("amplitude")
        if not defer:
            self.flush()

    def needs_drawing(self) -> bool:
        """Whether data set with ``defer=True`` wait for :meth:`flush`."""
        return bool(self._pending)

    def flush(self) -> bool:
        """Draw what was set with ``defer=True``; returns whether anything was drawn."""
        pending, self._pending = self._pending, set()
        if "amplitude" in pending and self._amp is not None:
            self._draw_amplitude()
        if "uv" in pending:
            self._draw_uv()
        return bool(pending)

    def showEvent(self, event) -> None:  # Qt override: a hidden tab draws when shown
        super().showEvent(event)
        self.flush()

    def _draw_amplitude(self) -> None:
        amp, du_lambda = self._amp, self._du
        peak = float(amp.max()) if amp.size else 0.0
        with np.errstate(divide="ignore"):
            shown = np.log10(amp / peak) if peak > 0 else np.full(amp.shape, -FLOOR_DEX)
        shown = np.clip(shown, -FLOOR_DEX, 0.0)
        self.image_item.setImage(shown, autoLevels=False, levels=(-FLOOR_DEX, 0.0))
        n = amp.shape[0]
        k = du_lambda / 1e3  # kλ per pixel; pixel N/2 at u = v = 0
        edge = (-(n // 2) - 0.5) * k
        self.image_item.setRect(QtCore.QRectF(edge, edge, n * k, n * k))
        self.plot_item.autoRange()

    def set_uv(self, u_lambda, v_lambda, *, defer: bool = False) -> None:
        """Draw the samples (u, v) in wavelengths and their mirrors (−u, −v)."""
        u = np.asarray(u_lambda, dtype=np.float64).ravel()
        v = np.asarray(v_lambda, dtype=np.float64).ravel()
        if u.shape != v.shape:
            raise ValueError(f"u {u.shape} and v {v.shape} differ")
        self._uv = (u, v)
        self._pending.add("uv")
        if not defer:
            self.flush()

    def _draw_uv(self) -> None:
        u, v = self._uv
        note = f"{u.size:,} samples and their mirrors"
        if u.size > MAX_POINTS // 2:
            pick = np.random.default_rng(u.size).choice(u.size, MAX_POINTS // 2, replace=False)
            u, v = u[pick], v[pick]
            note += f" ({u.size:,} of them drawn)"
        self.points_item.setData(x=np.concatenate([u, -u]) / 1e3, y=np.concatenate([v, -v]) / 1e3)
        self.note.setText(note)

    def clear(self) -> None:
        self.image_item.clear()
        self.points_item.setData(x=[], y=[])
        self._amp, self._du, self._uv = None, 0.0, (np.zeros(0), np.zeros(0))
        self._pending = set()
        self.note.setText("")

    def amplitude(self) -> np.ndarray | None:
        """The amplitude given to :meth:`set_amplitude` (not its log)."""
        return self._amp

    def du(self) -> float:
        return self._du

    def uv_points(self) -> tuple[np.ndarray, np.ndarray]:
        """The (u, v) given to :meth:`set_uv`, wavelengths (without the mirrors)."""
        return self._uv
