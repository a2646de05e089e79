"""Instrument panel: the primary beam, gain errors and thermal noise of a synthetic observation.

Three groups, frozen into a :class:`~uvlab.app.lab.corruptions.Corruptions`:

- *Primary beam*: none, an analytic model (airy, gaussian, cos3) or a FITS beam cube
  (chosen through a file dialog, checked as it is chosen: a cube without usable WCS
  is refused with one line and the previous beam stays), and the dish diameter (0:
  the array's own).
- *Gain errors*: amplitude RMS (%), phase RMS (°), correlation time and seed of the
  random antenna gains (:func:`uvlab.gpu.predict.gains.random_gains`).
- *Thermal noise*: the SEFD of every antenna (0: none; the spin box cannot go below) and
  the noise's seed; below it the last image's noise, expected and measured.

None of it applies to a MeasurementSet (its data are what they are).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PyQt6 import QtCore, QtWidgets
from PyQt6.QtCore import pyqtSignal

from uvlab.app.gui.panels.fields import double_spin
from uvlab.app.instrument.jones import JonesOptions
from uvlab.app.lab.corruptions import Corruptions

if TYPE_CHECKING:
    from uvlab.app.lab.state import InstrumentRecord

#: The beam choices before any cube: (shown, JonesOptions.primary_beam).
BEAMS = (("none", "none"), ("Airy disk", "airy"), ("Gaussian", "gaussian"), ("cos³", "cos3"))
CUBE_ITEM = "FITS beam cube…"
#: Largest SEFD the spin box takes, Jy.
MAX_SEFD_JY = 1e7


class InstrumentPanel(QtWidgets.QWidget):
    """Beam, gains and noise.

    Signals
    -------
    changed()
        Any accepted edit (the window debounces it).
    error(str)
        One line for the status bar (e.g. a beam cube without usable WCS).
    """

    changed = pyqtSignal()
    error = pyqtSignal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        note = QtWidgets.QLabel("For synthetic observations: they enter the prediction.")
        note.setWordWrap(True)
        lay.addWidget(note)
        lay.addWidget(self._beam_group())
        lay.addWidget(self._gains_group())
        lay.addWidget(self._noise_group())
        lay.addStretch(1)
        self._beam = "none"  # the accepted choice (what a refused cube falls back to)

    # ------------------------------------------------------------- building
    @staticmethod
    def _seed_spin() -> QtWidgets.QSpinBox:
        s = QtWidgets.QSpinBox()
        s.setRange(0, 2**31 - 1)
        s.setValue(1)
        s.setKeyboardTracking(False)
        return s

    def _beam_group(self) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox("Primary beam")
        form = QtWidgets.QFormLayout(box)
        self.beam_combo = QtWidgets.QComboBox()
        for label, key in BEAMS:
            self.beam_combo.addItem(label, key)
        self.beam_combo.addItem(CUBE_ITEM, None)
        self.beam_combo.setToolTip(
            "The dishes' voltage pattern: a source off the pointing centre is seen at "
            "|E|² of its flux (the Primary beam tab shows it)"
        )
        form.addRow("Model", self.beam_combo)
        self.dish_spin = double_spin(0.0, 1000.0, 2, suffix=" m")
        self.dish_spin.setSpecialValueText("the array's")
        self.dish_spin.setToolTip("Every dish's diameter; 0: each antenna's own (the layout's)")
        form.addRow("Dish diameter", self.dish_spin)
        self.beam_combo.activated.connect(self._on_beam_chosen)
        self.dish_spin.valueChanged.connect(self._emit)
        return box

    def _gains_group(self) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox("Gain errors")
        form = QtWidgets.QFormLayout(box)
        self.amp_spin = double_spin(0.0, 100.0, 2, suffix=" %")
        self.amp_spin.setToolTip("RMS of each antenna's random amplitude error")
        form.addRow("Amplitude RMS", self.amp_spin)
        self.phase_spin = double_spin(0.0, 180.0, 2, suffix=" °", step=5.0)
        self.phase_spin.setToolTip("RMS of each antenna's random phase error")
        form.addRow("Phase RMS", self.phase_spin)
        self.corr_spin = double_spin(1.0, 1e6, 0, suffix=" s", step=300.0)
        self.corr_spin.setValue(3600.0)
        self.corr_spin.setToolTip("Correlation time of the errors (exp(−|Δt|/T))")
        form.addRow("Correlation time", self.corr_spin)
        self.gain_seed_spin = self._seed_spin()
        form.addRow("Seed", self.gain_seed_spin)
        for w in (self.amp_spin, self.phase_spin, self.corr_spin, self.gain_seed_spin):
            w.valueChanged.connect(self._emit)
        return box

    def _noise_group(self) -> QtWidgets.QGroupBox:
        box = QtWidgets.QGroupBox("Thermal noise")
        form = QtWidgets.QFormLayout(box)
        self.sefd_spin = double_spin(0.0, MAX_SEFD_JY, 1, suffix=" Jy", step=50.0)
        self.sefd_spin.setSpecialValueText("none")
        self.sefd_spin.setToolTip(
            "System-equivalent flux density of every antenna; each visibility gets "
            "σ = SEFD/√(2·Δν·Δt) (radiometer equation); 0: no noise"
        )
        form.addRow("SEFD", self.sefd_spin)
        self.noise_seed_spin = self._seed_spin()
        form.addRow("Seed", self.noise_seed_spin)
        self.noise_label = QtWidgets.QLabel("")
        self.noise_label.setWordWrap(True)
        self.noise_label.setTextInteractionFlags(
            QtCore.Qt.TextInteractionFlag.TextSelectableByMouse
        )
        form.addRow(self.noise_label)
        for w in (self.sefd_spin, self.noise_seed_spin):
            w.valueChanged.connect(self._emit)
        return box

    # ---------------------------------------------------------------- beam
    def _on_beam_chosen(self, index: int) -> None:
        key = self.beam_combo.itemData(index)
        if key is None:  # the FITS cube item
            path, _ = QtWidgets.QFileDialog.getOpenFileName(
                self, "Open primary-beam cube", "", "FITS (*.fits *.fit *.fts);;All (*)"
            )
            if not path or not self.set_beam_cube(path):
                self._show_beam(self._beam)
            return
        self._beam = key
        self.changed.emit()

    def set_beam_cube(self, path: str, *, emit: bool = True) -> bool:
        """Use the beam cube ``path`` if it loads (else one line on ``error``); returns whether.

        A file of a polarised pattern set (``beam_xx_re.fits`` beside ``beam_yy_re.fits``,
        :func:`~uvlab.app.instrument.beam_pattern.pattern_of`) selects the whole set.
        """
        from uvlab.app.instrument.beam_pattern import is_pattern, pattern_of

        beam = str(path) if is_pattern(path) else (pattern_of(path) or str(path))
        if not self._loads(beam):
            self._show_beam(self._beam)
            return False
        self._beam = beam
        self._show_beam(self._beam)
        if emit:
            self.changed.emit()
        return True

    def _loads(self, beam: str) -> bool:
        """Whether the cube or pattern set ``beam`` loads; if not, one line on ``error``."""
        from uvlab.app.instrument.beam_cube import BeamCubeError

        try:
            JonesOptions(primary_beam=beam).load_cube()
        except BeamCubeError as exc:
            self.error.emit(f"beam cube not used: {exc}")
            return False
        return True

    def _show_beam(self, beam: str) -> None:
        """Select ``beam`` (a model or a cube's path) in the combo, adding a cube's item."""
        with QtCore.QSignalBlocker(self.beam_combo):
            index = self.beam_combo.findData(beam)
            if index < 0:
                self.beam_combo.insertItem(self.beam_combo.count() - 1, _cube_label(beam), beam)
                index = self.beam_combo.findData(beam)
                self.beam_combo.setItemData(index, beam, QtCore.Qt.ItemDataRole.ToolTipRole)
            self.beam_combo.setCurrentIndex(index)

    # ---------------------------------------------------------------- model
    def _emit(self, *_args) -> None:
        self.changed.emit()

    def corruptions(self) -> Corruptions:
        """The choices shown, frozen."""
        dish = self.dish_spin.value()
        return Corruptions(
            JonesOptions(
                primary_beam=self._beam,
                dish_diameter_m=float(dish) if dish > 0 else None,
                gain_amp_rms=self.amp_spin.value() / 100.0,
                gain_phase_rms_deg=self.phase_spin.value(),
                gain_corr_time_s=self.corr_spin.value(),
                gain_seed=int(self.gain_seed_spin.value()),
            ),
            sefd_jy=float(self.sefd_spin.value()),
            noise_seed=int(self.noise_seed_spin.value()),
        )

    def record(self) -> InstrumentRecord:
        """The beam, gains and noise shown, as the lab's record (ValueError if invalid)."""
        from uvlab.app.lab.state import InstrumentRecord

        return InstrumentRecord(self.corruptions())

    def set_corruptions(self, c: Corruptions | None) -> None:
        """Show ``c`` (None: all off) without emitting ``changed``."""
        c = c or Corruptions()
        j = c.jones
        spins = (
            (self.dish_spin, j.dish_diameter_m or 0.0),
            (self.amp_spin, 100.0 * j.gain_amp_rms),
            (self.phase_spin, j.gain_phase_rms_deg),
            (self.corr_spin, j.gain_corr_time_s),
            (self.gain_seed_spin, 1 if j.gain_seed is None else int(j.gain_seed)),
            (self.sefd_spin, c.sefd_jy),
            (self.noise_seed_spin, int(c.noise_seed)),
        )
        for spin, value in spins:
            with QtCore.QSignalBlocker(spin):
                spin.setValue(value)
        beam = j.primary_beam or "none"
        if beam not in {key for _, key in BEAMS} and not self._loads(beam):
            beam = "none"
        self._beam = beam
        self._show_beam(beam)

    def set_noise_report(self, text: str) -> None:
        self.noise_label.setText(text)


def _cube_label(path: str) -> str:
    from pathlib import Path

    from uvlab.app.instrument.beam_pattern import is_pattern

    return f"{'Jones' if is_pattern(path) else 'cube'}: {Path(path).name}"
