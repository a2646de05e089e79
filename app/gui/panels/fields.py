"""Small input widgets shared by the panels: validated text, slider + spin box.

Invalid input is shown with a red border and a tool tip saying why, and is
not accepted: a :class:`ValidatedLineEdit` emits ``value_changed`` only for
text its parser accepts (``rejected`` with the reason for other text), and
:meth:`ValidatedLineEdit.value` raises ``ValueError`` otherwise.
"""

from __future__ import annotations

from collections.abc import Callable

from PyQt6 import QtCore, QtGui, QtWidgets
from PyQt6.QtCore import pyqtSignal

#: Border shown around a widget holding invalid input.
INVALID_CSS = "border: 2px solid #d03030; background: #fff0f0; color: #000000;"


def mark_invalid(widget: QtWidgets.QWidget, message: str | None) -> None:
    """Show (message given) or clear (None) the invalid-input style on a widget."""
    kinds = ("QLineEdit", "QAbstractSpinBox", "QComboBox")
    cls = next((k for k in kinds if isinstance(widget, getattr(QtWidgets, k))), "QWidget")
    widget.setStyleSheet(f"{cls} {{ {INVALID_CSS} }}" if message else "")
    widget.setProperty("invalid", bool(message))
    if message:
        widget.setToolTip(message)
    else:
        widget.setToolTip(widget.property("plain_tooltip") or "")


def is_marked_invalid(widget: QtWidgets.QWidget) -> bool:
    return bool(widget.property("invalid"))


class ParseValidator(QtGui.QValidator):
    """Acceptable when ``parse(text)`` succeeds, Intermediate (typing allowed) otherwise."""

    def __init__(self, parse: Callable[[str], object], parent=None):
        super().__init__(parent)
        self._parse = parse

    def validate(self, text: str, pos: int):
        try:
            self._parse(text)
        except ValueError:
            return QtGui.QValidator.State.Intermediate, text, pos
        return QtGui.QValidator.State.Acceptable, text, pos


class ValidatedLineEdit(QtWidgets.QLineEdit):
    """A line edit with a parser: red border while invalid, ``value_changed`` when valid.

    Signals
    -------
    value_changed(object)
        The text changed to one the parser accepts: its value.
    rejected(str)
        The text changed to one it does not: why.
    """

    value_changed = pyqtSignal(object)
    rejected = pyqtSignal(str)

    def __init__(
        self, parse: Callable[[str], object], text: str = "", *, tooltip: str = "", parent=None
    ):
        super().__init__(text, parent)
        self._parse = parse
        self.setValidator(ParseValidator(parse, self))
        self.setProperty("plain_tooltip", tooltip)
        self.setToolTip(tooltip)
        self.textChanged.connect(self._on_text)

    def value(self):
        """The parsed value (``ValueError`` with the reason when the text is invalid)."""
        return self._parse(self.text())

    def set_text_quietly(self, text: str) -> None:
        """Set the text without emitting ``value_changed`` (restyles)."""
        with QtCore.QSignalBlocker(self):
            self.setText(text)
        self._restyle()

    def _restyle(self) -> str | None:
        """Mark the field; returns why its text is invalid (None: valid)."""
        try:
            self._parse(self.text())
        except ValueError as exc:
            why = str(exc) or "invalid value"
            mark_invalid(self, why)
            return why
        mark_invalid(self, None)
        return None

    def _on_text(self, _text: str) -> None:
        why = self._restyle()
        if why is None:
            self.value_changed.emit(self.value())
        else:
            self.rejected.emit(why)


def parse_positive_or_auto(text: str) -> float | None:
    """``"auto"`` (or empty) → None; else a number > 0."""
    t = text.strip().lower()
    if t in ("", "auto"):
        return None
    value = float(t)
    if not value > 0 or value == float("inf"):
        raise ValueError(f"must be > 0 or 'auto', got {text!r}")
    return value


def parse_open_unit(text: str) -> float:
    """A number in (0, 1), e.g. ε = ``1e-5``."""
    value = float(text.strip())
    if not 0 < value < 1:
        raise ValueError(f"must lie in (0, 1), got {text!r}")
    return value


class SliderSpin(QtWidgets.QWidget):
    """A slider and a spin box showing one value in steps of ``step``.

    Signals
    -------
    value_changed(float)
    """

    value_changed = pyqtSignal(float)

    def __init__(
        self,
        lo: float,
        hi: float,
        step: float,
        value: float,
        *,
        decimals: int = 2,
        suffix: str = "",
        parent=None,
    ):
        super().__init__(parent)
        self.step = float(step)
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setRange(round(lo / step), round(hi / step))
        self.spin = QtWidgets.QDoubleSpinBox()
        self.spin.setRange(lo, hi)
        self.spin.setDecimals(decimals)
        self.spin.setSingleStep(step)
        self.spin.setSuffix(suffix)
        self.spin.setKeyboardTracking(False)
        self.spin.setMinimumWidth(90)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.slider, 1)
        lay.addWidget(self.spin)
        self.set_value(value)
        self.slider.valueChanged.connect(self._from_slider)
        self.spin.valueChanged.connect(self._from_spin)

    def value(self) -> float:
        return float(self.spin.value())

    def set_value(self, value: float) -> None:
        """Set without emitting ``value_changed``."""
        with QtCore.QSignalBlocker(self.spin), QtCore.QSignalBlocker(self.slider):
            self.spin.setValue(float(value))
            self.slider.setValue(round(float(value) / self.step))

    def _from_slider(self, k: int) -> None:
        with QtCore.QSignalBlocker(self.spin):
            self.spin.setValue(k * self.step)
        self.value_changed.emit(self.value())

    def _from_spin(self, v: float) -> None:
        with QtCore.QSignalBlocker(self.slider):
            self.slider.setValue(round(v / self.step))
        self.value_changed.emit(float(v))


def double_spin(
    lo: float,
    hi: float,
    decimals: int,
    *,
    step: float = 1.0,
    suffix: str = "",
    value: float | None = None,
    tip: str = "",
    tracking: bool = False,
) -> QtWidgets.QDoubleSpinBox:
    """A QDoubleSpinBox on [lo, hi] with ``decimals``, its step, suffix, value and tool tip;
    without keyboard tracking (``valueChanged`` on Enter or focus out, not every key) unless
    ``tracking``."""
    box = QtWidgets.QDoubleSpinBox()
    box.setDecimals(decimals)
    box.setRange(lo, hi)
    box.setSingleStep(step)
    box.setSuffix(suffix)
    if value is not None:
        box.setValue(value)
    if tip:
        box.setToolTip(tip)
    box.setKeyboardTracking(tracking)
    return box


#: The narrowest a spin box or combo box of the controls may become, in characters.
NARROW_CHARS = 8


def make_narrow(panel: QtWidgets.QWidget, chars: int = NARROW_CHARS) -> None:
    """Let a panel shrink to a laptop's dock: fields give up width, long rows wrap.

    A spin box's size hint is the width of its longest value (``86400.000 s``)
    and a combo box's that of its longest entry; here each may shrink to
    ``chars`` (default :data:`NARROW_CHARS`) characters (font-relative, so HiDPI scales it), and
    form rows put a field under its label when both do not fit side by side.
    """
    char = QtGui.QFontMetrics(panel.font()).averageCharWidth()
    for spin in panel.findChildren(QtWidgets.QAbstractSpinBox):
        spin.setMinimumWidth(chars * char)
    for combo in panel.findChildren(QtWidgets.QComboBox):
        combo.setSizeAdjustPolicy(
            QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        combo.setMinimumContentsLength(chars)
    for form in panel.findChildren(QtWidgets.QFormLayout):
        form.setRowWrapPolicy(QtWidgets.QFormLayout.RowWrapPolicy.WrapLongRows)
        form.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
