"""The colour scale of a sky image view: stretch, colour map, levels and colour-bar ticks.

The default stretch is ``asinh`` and levels run from the 0.5th percentile to
the peak (:mod:`uvlab.widgets._display`), so sidelobes and faint sources show
at once. The colour bar is labelled with the units and the stretch; for log and
asinh its ticks are in data units. A diverging colour map (``blue-red``) gets
levels symmetric about zero, except under the log stretch.
"""

from __future__ import annotations

from PyQt6 import QtCore, QtGui

from uvlab.widgets._display import (
    STRETCHES,
    abs_peak,
    auto_levels,
    data_ticks,
    finite_range,
    stretch_for_peak,
)
from uvlab.widgets._pg import DIVERGING, get_colormap


class ColourScaleMixin:
    """Colour-scale methods of :class:`~uvlab.widgets.image_view.SkyImageView`.

    The view provides ``image_item``, ``color_bar``, ``cmap_combo``,
    ``stretch_combo``, ``flush``, ``needs_drawing`` and the state ``_data``,
    ``_units``, ``_stretch``, ``_stretch_fn``, ``_cmap_name``, ``_ticks``,
    ``_data_range`` and ``_pending_keep_levels``.
    """

    def levels(self) -> tuple[float, float]:
        """Colour-scale limits, in displayed (stretched) units."""
        self.flush()
        lo, hi = self.color_bar.levels()
        return float(lo), float(hi)

    def set_levels(self, lo: float, hi: float) -> None:
        """Set the colour-scale limits, in displayed (stretched) units."""
        self.flush()
        self.color_bar.setLevels((float(lo), float(hi)))

    def auto_levels(self) -> None:
        """Fit the colour scale to the displayed image: 0.5th percentile to the peak."""
        if self.needs_drawing():
            self._pending_keep_levels = False  # drawn with its levels fitted
            self.flush()
            return
        shown = self.image_item.image
        if shown is not None:
            symmetric = self._cmap_name in DIVERGING and self._stretch != "log"
            lo, hi = auto_levels(shown, symmetric=symmetric)
            self.color_bar.rounding = (hi - lo) / 1000.0
            self.color_bar.setLevels((lo, hi))
            self._update_ticks()

    def _refresh(self, keep_levels: bool = False) -> None:
        if self._data is None:
            return
        self._data_range = finite_range(self._data)
        self._stretch_fn = stretch_for_peak(self._stretch, abs_peak(self._data_range))
        self.image_item.setImage(self._stretch_fn(self._data), autoLevels=False)
        self.color_bar.getAxis("left").setLabel(self._stretch_fn.label(self._units))
        if keep_levels:
            self.color_bar.setLevels(self.color_bar.levels())
            self._update_ticks()
        else:
            self.auto_levels()

    def _update_ticks(self) -> None:
        """Label a log or asinh colour bar in data units (linear: pyqtgraph's own ticks)."""
        ticks: list[tuple[float, str]] = []
        if self._stretch != "linear" and self._data_range is not None:
            lo, hi = self.color_bar.levels()  # as drawn: never a flush from a resize
            vmin, vmax = self._data_range
            if self._stretch == "log":  # only values above the floor have a place on the bar
                vmin = max(vmin, self._stretch_fn.scale)
            # labels at least 1.3 lines apart on the bar as drawn (8 % of it before layout)
            bar_px = self.color_bar.axis.geometry().height()
            line = QtGui.QFontMetricsF(self.font()).height()
            gap = max(0.08, 1.3 * line / bar_px) if bar_px > 0 else 0.08
            ticks = data_ticks(self._stretch_fn, vmin, vmax, hi - lo, min_gap=gap)
        if ticks != self._ticks or not ticks:
            self._ticks = ticks
            self.color_bar.axis.setTicks([ticks] if ticks else None)

    def colorbar_ticks(self) -> list[tuple[float, str]]:
        """The colour bar's (stretched position, data-unit label) ticks; [] when linear."""
        self.flush()
        return list(self._ticks)

    def set_colormap(self, name: str) -> None:
        """Choose a colour map by name (see ``uvlab.widgets._pg.COLORMAPS``)."""
        cmap = get_colormap(name)
        self._cmap_name = name
        self.color_bar.setColorMap(cmap)
        with QtCore.QSignalBlocker(self.cmap_combo):
            self.cmap_combo.setCurrentText(name)
        if name in DIVERGING:
            self.auto_levels()

    def colormap(self) -> str:
        return self._cmap_name

    def set_stretch(self, name: str) -> None:
        """Choose ``asinh``, ``linear`` or ``log``; refits the colour levels."""
        if name not in STRETCHES:
            raise ValueError(f"unknown stretch {name!r}; choose from {STRETCHES}")
        self._stretch = name
        with QtCore.QSignalBlocker(self.stretch_combo):
            self.stretch_combo.setCurrentText(name)
        if self.needs_drawing():
            self._pending_keep_levels = False  # a new stretch always refits the levels
            self.flush()
        else:
            self._refresh(keep_levels=False)

    def stretch(self) -> str:
        return self._stretch
