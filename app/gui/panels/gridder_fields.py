"""The algorithm and the gridder parameters it reads: the fields the Imaging panel and a
compare entry share (:class:`~uvlab.app.gui.panels.imaging_panel.ImagingPanel`,
:class:`~uvlab.app.gui.compare_entry.EntryEditor`).

Only the parameters the chosen algorithm reads are enabled (DESIGN §2), as its record in
the algorithm catalogue (:mod:`uvlab.gpu.gridders.registry`) lists them
(:func:`enabled_params`, :func:`lookup_enabled`). Each owner builds and lays out its own
widgets (:func:`algorithm_combo`, :func:`kernel_size_combo`, :func:`lookup_combo`), named
for the :class:`~uvlab.app.lab.imaging.ImagingOptions` fields they show
(:class:`GridderWidgets`); :func:`gridder_values`, :func:`show_gridder` and
:func:`enable_gridder` read, show and enable them, the same way for both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PyQt6 import QtCore, QtWidgets

from uvlab.app.lab.imaging import TABLE_LOOKUPS, ImagingOptions
from uvlab.gpu.gridders.registry import CATALOGUE, NAMES

if TYPE_CHECKING:
    from uvlab.app.gui.panels.fields import ValidatedLineEdit

#: The ImagingOptions fields of the algorithm and its gridder parameters.
GRIDDER_FIELDS = (
    "algorithm",
    "kernel",
    "kernel_size",
    "eps",
    "support",
    "oversample",
    "sigma",
    "lookup",
)

#: Parameter widget, by the ImagingOptions field it shows → the GridParams field it sets
#: (looked up in a record's ``uses``). The widgets are named for those fields too
#: (``kernel_size_combo``, ``sigma_spin``).
WIDGET_FIELDS = {
    "kernel": "kernel",
    "kernel_size": "support",
    "oversample": "oversample",
    "sigma": "sigma",
}


def enabled_params(name: str, by_eps: bool) -> set[str]:
    """The parameter widgets (keys of :data:`WIDGET_FIELDS`) algorithm ``name`` reads.

    ``by_eps``: the kernel size is chosen from ε, which evaluates the kernel
    exactly, so β then counts only where it also sets a grid (the record's
    ``fine_grid``). An unknown name reads nothing.
    """
    record = CATALOGUE.get(name)
    if record is None:
        return set()
    keys = {key for key, field in WIDGET_FIELDS.items() if field in record.uses}
    if by_eps and "kernel_size" in keys and not record.fine_grid:
        keys.discard("oversample")
    return keys


def lookup_enabled(name: str, by_eps: bool) -> bool:
    """Whether algorithm ``name`` reads a kernel table whose lookup can be chosen.

    Only with a given support (``by_eps`` evaluates the kernel exactly).
    """
    record = CATALOGUE.get(name)
    return record is not None and "lookup" in record.uses and not by_eps


def algorithm_combo(names=NAMES) -> QtWidgets.QComboBox:
    """A combo box of algorithms (default: the whole catalogue), tooltips their summaries."""
    combo = QtWidgets.QComboBox()
    for name in names:
        combo.addItem(name, name)
        combo.setItemData(
            combo.count() - 1, CATALOGUE[name].summary, QtCore.Qt.ItemDataRole.ToolTipRole
        )
    return combo


def lookup_combo(note: str = "") -> QtWidgets.QComboBox:
    """How a kernel table is read (:data:`TABLE_LOOKUPS`), the tooltip ending in ``note``."""
    combo = QtWidgets.QComboBox()
    combo.addItems(TABLE_LOOKUPS)
    combo.setToolTip(
        "how the kernel table is read: its nearest entry, or linear interpolation "
        "between two (error ~1/β² instead of ~1/β)" + note
    )
    return combo


def kernel_size_combo() -> QtWidgets.QComboBox:
    """How the GCF's size is set: from an accuracy ε, or as a support S."""
    combo = QtWidgets.QComboBox()
    combo.addItem("from ε", "eps")
    combo.addItem("support S", "support")
    return combo


class GridderWidgets(Protocol):
    """What owns the gridder fields: a widget per :data:`GRIDDER_FIELDS` entry."""

    algorithm_combo: QtWidgets.QComboBox
    kernel_combo: QtWidgets.QComboBox
    kernel_size_combo: QtWidgets.QComboBox
    eps_edit: ValidatedLineEdit
    support_spin: QtWidgets.QSpinBox
    oversample_spin: QtWidgets.QSpinBox
    sigma_spin: QtWidgets.QDoubleSpinBox
    lookup_combo: QtWidgets.QComboBox


def gridder_widgets(w: GridderWidgets) -> tuple:
    """The widgets whose signals :func:`show_gridder` would emit (to block them)."""
    return (
        w.algorithm_combo,
        w.kernel_combo,
        w.kernel_size_combo,
        w.support_spin,
        w.oversample_spin,
        w.sigma_spin,
        w.lookup_combo,
    )


def gridder_values(w: GridderWidgets) -> dict:
    """The :data:`GRIDDER_FIELDS` values shown (ValueError for an ε not accepted)."""
    return dict(
        algorithm=w.algorithm_combo.currentData(),
        kernel=w.kernel_combo.currentText(),
        kernel_size=w.kernel_size_combo.currentData(),
        eps=w.eps_edit.value(),
        support=int(w.support_spin.value()),
        oversample=int(w.oversample_spin.value()),
        sigma=float(w.sigma_spin.value()),
        lookup=w.lookup_combo.currentText(),
    )


def show_gridder(w: GridderWidgets, o: ImagingOptions) -> None:
    """Show ``o``'s algorithm and parameters (the caller blocks :func:`gridder_widgets`)."""
    w.algorithm_combo.setCurrentIndex(w.algorithm_combo.findData(o.algorithm))
    w.kernel_combo.setCurrentText(o.kernel)
    w.kernel_size_combo.setCurrentIndex(w.kernel_size_combo.findData(o.kernel_size))
    w.eps_edit.set_text_quietly(f"{o.eps:g}")
    w.support_spin.setValue(int(o.support))
    w.oversample_spin.setValue(int(o.oversample))
    w.sigma_spin.setValue(float(o.sigma))
    w.lookup_combo.setCurrentText(o.lookup)


def enable_gridder(w: GridderWidgets) -> None:
    """Enable the parameters the algorithm shown reads (:func:`enabled_params`)."""
    name = w.algorithm_combo.currentData()
    by_eps = w.kernel_size_combo.currentData() == "eps"
    enabled = enabled_params(name, by_eps)
    w.kernel_combo.setEnabled("kernel" in enabled)
    w.kernel_size_combo.setEnabled("kernel_size" in enabled)
    w.oversample_spin.setEnabled("oversample" in enabled)
    w.sigma_spin.setEnabled("sigma" in enabled)
    w.lookup_combo.setEnabled(lookup_enabled(name, by_eps))
    sized = "kernel_size" in enabled
    w.eps_edit.setEnabled(sized and by_eps)
    w.support_spin.setEnabled(sized and not by_eps)
