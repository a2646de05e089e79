"""Observation panel: a synthetic observation, or a MeasurementSet selection.

Synthetic: array layout (built-in or a file; antennas can be dragged in the
array view, which makes a modified in-memory layout:
:class:`~uvlab.app.gui.panels.array_chooser.ArrayChooser`), RA, declination and
hour-angle sliders, integration, frequency, channels, smearing.

MeasurementSet: the path (opened through the window's file dialog or recent
list), then field, spectral window, data column and Stokes/correlation combos
filled from the summary the worker reads (:meth:`set_ms_info`), and that
summary as text. The panel never touches casacore itself.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
from PyQt6 import QtCore, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.app.gui.panels.array_chooser import ArrayChooser
from uvlab.app.gui.panels.fields import SliderSpin, double_spin, mark_invalid
from uvlab.app.gui.panels.ms_selector import MSSelector
from uvlab.app.lab.jobs import MSSelection
from uvlab.app.observing.observation import ObservationSpec

if TYPE_CHECKING:
    from uvlab.app.lab.state import ObservationRecord

SOURCE_LABELS = {"synthetic": "Synthetic observation", "ms": "MeasurementSet"}


class ObservationPanel(QtWidgets.QWidget):
    """Where the visibilities come from.

    Signals
    -------
    changed()
        Any accepted edit (the controller debounces it).
    layout_changed()
        The antenna positions to show changed (new layout, moved, reset).
    array_chosen(str)
        The user chose another array (before the ``changed`` it causes).
    open_ms_requested()
        The user asked to open a MeasurementSet (the window shows the dialog).
    recent_ms_chosen(str)
    error(str)
        A message for the status bar (e.g. a bad layout file).

    The array's fields (``layout_combo``, ``combine_combo``, ``reset_layout_button``) are
    its :class:`~uvlab.app.gui.panels.array_chooser.ArrayChooser`'s (``array``).
    """

    changed = pyqtSignal()
    layout_changed = pyqtSignal()
    array_chosen = pyqtSignal(str)
    open_ms_requested = pyqtSignal()
    recent_ms_chosen = pyqtSignal(str)
    error = pyqtSignal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        from uvlab.app.observing.layouts import list_layouts

        self._spec: ObservationSpec | None = None

        self.source_combo = QtWidgets.QComboBox()
        for key, label in SOURCE_LABELS.items():
            self.source_combo.addItem(label, key)
        self.stack = QtWidgets.QStackedWidget()
        self.stack.addWidget(self._synthetic_page(list_layouts()))
        self.ms = MSSelector()
        self.stack.addWidget(self.ms)
        self.ms.changed.connect(self.changed)
        self.ms.open_requested.connect(self.open_ms_requested)
        self.ms.recent_chosen.connect(self.recent_ms_chosen)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        top = QtWidgets.QFormLayout()
        top.addRow("Data", self.source_combo)
        lay.addLayout(top)
        lay.addWidget(self.stack, 1)
        self.stack.currentChanged.connect(self._size_to_page)
        self._size_to_page(self.stack.currentIndex())
        self.source_combo.currentIndexChanged.connect(self._on_source)

    # ------------------------------------------------------------- building
    def _synthetic_page(self, layouts: list[str]) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        form = QtWidgets.QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        self.array = ArrayChooser(layouts, self)
        self.array.add_rows(form)
        self.layout_combo = self.array.layout_combo
        self.combine_combo = self.array.combine_combo
        self.reset_layout_button = self.array.reset_button
        self.ra_spin = QtWidgets.QDoubleSpinBox()
        self.ra_spin.setRange(0.0, 360.0)
        self.ra_spin.setDecimals(6)
        self.ra_spin.setSuffix(" °")
        self.ra_spin.setKeyboardTracking(False)
        form.addRow("RA", self.ra_spin)
        self.dec = SliderSpin(-90.0, 90.0, 0.5, -30.0, decimals=6, suffix=" °")
        form.addRow("Declination", self.dec)
        self.ha_start = SliderSpin(-12.0, 12.0, 0.25, -3.0, suffix=" h")
        self.ha_stop = SliderSpin(-12.0, 12.0, 0.25, 3.0, suffix=" h")
        form.addRow("Hour angle from", self.ha_start)
        form.addRow("Hour angle to", self.ha_stop)
        self.int_spin = double_spin(0.01, 86400.0, 3, suffix=" s")
        form.addRow("Integration", self.int_spin)
        self.freq_spin = double_spin(1.0, 1e6, 6, suffix=" MHz")
        form.addRow("Frequency", self.freq_spin)
        self.chan_width_spin = double_spin(-1e4, 1e4, 6, suffix=" MHz")
        form.addRow("Channel width", self.chan_width_spin)
        self.nchan_spin = QtWidgets.QSpinBox()
        self.nchan_spin.setRange(1, 65536)
        self.nchan_spin.setKeyboardTracking(False)
        form.addRow("Channels", self.nchan_spin)
        self.smearing_check = QtWidgets.QCheckBox("Time and bandwidth smearing")
        self.smearing_check.setChecked(True)
        form.addRow("", self.smearing_check)
        self.array.layout_changed.connect(self.layout_changed)
        self.array.chosen.connect(self._on_array_chosen)
        self.array.edited.connect(self.changed)
        self.array.error.connect(self.error)
        for w in (self.dec, self.ha_start, self.ha_stop):
            w.value_changed.connect(self._emit_if_valid)
        for w in (self.ra_spin, self.int_spin, self.freq_spin, self.chan_width_spin):
            w.valueChanged.connect(self._emit_if_valid)
        self.nchan_spin.valueChanged.connect(self._emit_if_valid)
        self.smearing_check.toggled.connect(self._emit_if_valid)
        return page

    def source(self) -> str:
        return self.source_combo.currentData()

    def set_source(self, source: str) -> None:
        with QtCore.QSignalBlocker(self.source_combo):
            self.source_combo.setCurrentIndex(list(SOURCE_LABELS).index(source))
        self.stack.setCurrentIndex(self.source_combo.currentIndex())

    def _size_to_page(self, index: int) -> None:
        """Only the page shown sets the panel's size: a hidden page's wider rows (the
        MeasurementSet page's) would cut the synthetic page's fields in a narrow dock."""
        policy = QtWidgets.QSizePolicy.Policy
        for k in range(self.stack.count()):
            shown = policy.Preferred if k == index else policy.Ignored
            self.stack.widget(k).setSizePolicy(shown, shown)
        self.stack.adjustSize()

    def _on_source(self, index: int) -> None:
        self.stack.setCurrentIndex(index)
        self.layout_changed.emit()
        self.changed.emit()

    # ------------------------------------------------------------ synthetic
    def set_observation(self, spec: ObservationSpec, modified_enu=None, smearing=True) -> None:
        """Show ``spec`` (layout a name or path) without emitting ``changed``."""
        self._spec = spec
        self.array.show(str(spec.layout), modified_enu)
        ha0, ha1 = spec.ha_range_h if spec.ha_mode else (-3.0, 3.0)
        blockers = [
            QtCore.QSignalBlocker(w)
            for w in (
                self.ra_spin,
                self.int_spin,
                self.freq_spin,
                self.chan_width_spin,
                self.nchan_spin,
                self.smearing_check,
            )
        ]
        self.ra_spin.setValue(spec.ra_deg % 360.0)
        self.dec.set_value(spec.dec_deg)
        self.ha_start.set_value(ha0)
        self.ha_stop.set_value(ha1)
        self.int_spin.setValue(spec.int_s)
        self.freq_spin.setValue(spec.freq_hz / 1e6)
        self.chan_width_spin.setValue(spec.chan_width_hz / 1e6)
        self.nchan_spin.setValue(int(spec.nchan))
        self.smearing_check.setChecked(bool(smearing))
        del blockers
        self._validate()
        self.layout_changed.emit()

    def _on_array_chosen(self, name: str) -> None:
        self.array_chosen.emit(name)  # the window may move the declination first
        self._emit_if_valid()

    def set_layout_name(self, name: str) -> None:
        """Choose a built-in layout or a layout file (emits ``changed`` if it loads)."""
        self.array.set_layout_name(name)

    def set_declination(self, dec_deg: float, *, emit: bool = False) -> None:
        """Point at another declination (emits ``changed`` only if asked)."""
        self.dec.set_value(dec_deg)  # emits nothing itself
        if emit:
            self._emit_if_valid()

    def layout(self):
        """The ArrayLayout in use (the modified one if antennas were moved)."""
        return self.array.layout()

    def is_modified(self) -> bool:
        return self.array.is_modified()

    def modified_enu(self) -> np.ndarray | None:
        return self.array.modified_enu()

    def move_antenna(self, index: int, east: float, north: float) -> None:
        """Move one antenna (metres east/north of the site; up unchanged) and re-run."""
        self.array.move_antenna(index, east, north)

    def reset_layout(self) -> None:
        self.array.reset_layout()

    def set_ha_range(self, start: float, stop: float) -> None:
        """Set the hour-angle range (hours) without emitting ``changed``."""
        self.ha_start.set_value(start)
        self.ha_stop.set_value(stop)
        self._validate()

    def ha_range(self) -> tuple[float, float]:
        return self.ha_start.value(), self.ha_stop.value()

    def smearing(self) -> bool:
        return self.smearing_check.isChecked()

    def _validate(self) -> str | None:
        try:
            self.observation_spec()
        except ValueError as exc:
            msg = str(exc)
            bad_ha = "ha_" in msg or "hour" in msg or "longer than the observation" in msg
            for w in (self.ha_start.spin, self.ha_stop.spin):
                mark_invalid(w, msg if bad_ha else None)
            mark_invalid(self.int_spin, msg if "int_s" in msg else None)
            mark_invalid(self.chan_width_spin, msg if "chan_width" in msg else None)
            return msg
        for w in (self.ha_start.spin, self.ha_stop.spin, self.int_spin, self.chan_width_spin):
            mark_invalid(w, None)
        return None

    def _emit_if_valid(self, *_args) -> None:
        msg = self._validate()
        if msg is None:
            self.changed.emit()
        else:
            self.error.emit(f"observation not accepted: {msg}")

    def layout_name(self) -> str:
        """The layout's name or path as chosen, ``a+b`` when combined."""
        return self.array.layout_name()

    def observation_spec(self, *, for_job: bool = True) -> ObservationSpec:
        """The observation shown (ValueError if invalid).

        ``for_job=True`` puts the modified ArrayLayout in; ``False`` keeps the
        layout's name or path (for sessions).
        """
        if self.array.layout() is None:
            raise ValueError("no array layout loaded")
        base = self._spec or ObservationSpec(layout="meerkat", ra_deg=0.0, dec_deg=-30.0)
        layout = self.layout() if for_job else self.layout_name()
        if for_job and not self.is_modified():
            layout = self.layout_name()
        return replace(
            base,
            layout=layout,
            ra_deg=float(self.ra_spin.value()),
            dec_deg=self.dec.value(),
            start_iso=None,
            duration_h=None,
            ha_start_h=self.ha_start.value(),
            ha_stop_h=self.ha_stop.value(),
            int_s=float(self.int_spin.value()),
            freq_hz=float(self.freq_spin.value()) * 1e6,
            chan_width_hz=float(self.chan_width_spin.value()) * 1e6,
            nchan=int(self.nchan_spin.value()),
        )

    # -------------------------------------------------------- MeasurementSet
    def set_recent(self, paths: list[str]) -> None:
        self.ms.set_recent(paths)

    def set_ms_selection(self, sel: MSSelection) -> None:
        """Use this MS and selection (switches to the MS page; combos fill later)."""
        self.ms.set_selection(sel)
        self.set_source("ms")
        self.layout_changed.emit()

    def ms_selection(self) -> MSSelection | None:
        return self.ms.selection()

    def record(self) -> ObservationRecord:
        """What the panel shows, as the lab's record (ValueError if a field is invalid)."""
        from uvlab.app.lab.state import ObservationRecord

        enu = self.modified_enu()
        return ObservationRecord(
            self.observation_spec(for_job=False),
            self.source(),
            None if enu is None else tuple(map(tuple, enu.tolist())),
            self.smearing(),
            self.ms_selection(),
        )

    def set_ms_info(self, info) -> None:
        self.ms.set_info(info)
