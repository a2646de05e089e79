"""MetricsTable: per-algorithm aliasing errors, times and rates in a sortable table.

Each column header says in a tooltip what its numbers measure and in which units
(:data:`TOOLTIPS`).
"""

from __future__ import annotations

import math

from PyQt6 import QtCore, QtWidgets

#: Known metric keys → column header, in display order (DESIGN §3 and §4).
COLUMNS = {
    "backend": "backend",
    "rms_central": "RMS error\n(central half)",
    "rms_full": "RMS error\n(full)",
    "max_error": "max\nerror",
    "time_ms": "time (ms): median\n(fastest–slowest)",
    "rate_vis_per_s": "rate\n(vis/s)",
}  # two lines each: narrow columns, so that six entries' table fits beside two plots

#: What each column measures, and in which units: its header's tooltip.
TOOLTIPS = {
    "algorithm": "The entry: an algorithm with its parameters.",
    "backend": (
        "What computed the image: NumPy (uvlab's chain of the stated kernel on the CPU), "
        "CUDA or CuPy (the same on the GPU, with uvlab's CUDA kernels or array code), or "
        "ducc0 (on the host cores; it chooses its own kernel and support from ε)."
    ),
    "rms_central": (
        "RMS of |I − I_DFT| over the central half of the image (each axis), as a "
        "fraction of the DFT image's peak (dimensionless). Aliasing grows toward the edges."
    ),
    "rms_full": (
        "RMS of |I − I_DFT| over the whole image, as a fraction of the DFT image's peak "
        "(dimensionless)."
    ),
    "max_error": (
        "Largest |I − I_DFT| anywhere in the image, as a fraction of the DFT image's peak "
        "(dimensionless)."
    ),
    "time_ms": (
        "Median over the timed runs of the total time to make the dirty image (every "
        "stage: selection, weighting, gridding, FFT, correction), and in brackets the "
        "fastest and slowest run, milliseconds: how much the time varies between "
        "identical runs. An untimed warm-up run comes first (one-time work lands "
        "there). Sorts by the median."
    ),
    "rate_vis_per_s": (
        "Gridding rate: samples with nonzero weight per second of the grid stage, in the "
        "run of median time (visibilities per second; k, M, G = 10³, 10⁶, 10⁹)."
    ),
}


def format_metric(key: str, value) -> str:
    """Text for one cell: errors as ``1.23e-05``, rates with SI prefixes."""
    if value is None:
        return ""
    if isinstance(value, tuple):  # (middle, low, high): "m (lo–hi)"
        mid, lo, hi = (format_metric(key, v) for v in value)
        return f"{mid} ({lo}–{hi})"
    if not isinstance(value, (int, float)):
        return str(value)
    if not math.isfinite(value):
        return "—"
    if key.endswith("_ms"):  # milliseconds: 3 figures, whole ones past a second
        return f"{value:.3g}" if abs(value) < 999.5 else f"{value:.0f}"
    if key.startswith("rate"):
        for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
            if abs(value) >= factor:
                return f"{value / factor:.3g} {prefix}"
        return f"{value:.3g}"
    return f"{value:.3g}" if 1e-3 <= abs(value) < 1e4 or value == 0 else f"{value:.2e}"


class _NumericItem(QtWidgets.QTableWidgetItem):
    """A cell that sorts by its number, not its text."""

    def __lt__(self, other):
        a = self.data(QtCore.Qt.ItemDataRole.UserRole)
        b = other.data(QtCore.Qt.ItemDataRole.UserRole)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return a < b
        return super().__lt__(other)


class MetricsTable(QtWidgets.QTableWidget):
    """Column 0 is the algorithm, then metrics (known ones first, then extras).

    Rows keep the order given until the user clicks a header to sort.
    """

    def __init__(self, parent=None):
        super().__init__(0, 0, parent)
        self.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.horizontalHeader().setStretchLastSection(True)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)  # compact rows

    def set_metrics(self, metrics: dict[str, dict[str, float]]) -> None:
        """Show ``{algorithm: {metric: value}}``; missing metrics stay blank."""
        self.setSortingEnabled(False)
        keys = [k for k in COLUMNS if any(k in m for m in metrics.values())]
        keys += list(dict.fromkeys(k for m in metrics.values() for k in m if k not in COLUMNS))
        self.clear()
        self.setRowCount(len(metrics))
        self.setColumnCount(len(keys) + 1)
        self.setHorizontalHeaderLabels(["algorithm"] + [COLUMNS.get(k, k) for k in keys])
        for c, key in enumerate(["algorithm", *keys]):
            if key in TOOLTIPS:
                self.horizontalHeaderItem(c).setToolTip(TOOLTIPS[key])
        self.verticalHeader().setVisible(False)
        self._keys = keys
        right = QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter
        for r, (algo, values) in enumerate(metrics.items()):
            self.setItem(r, 0, QtWidgets.QTableWidgetItem(str(algo)))
            for c, key in enumerate(keys, start=1):
                value = values.get(key)
                if isinstance(value, tuple):  # (middle, low, high) sorts by its middle
                    value = tuple(float(v) for v in value)
                    rank = value[0]
                elif value is not None and not isinstance(value, str):
                    value = rank = float(value)
                else:
                    rank = value
                item = _NumericItem(format_metric(key, value))
                item.setData(QtCore.Qt.ItemDataRole.UserRole, rank)
                if not isinstance(value, str):
                    item.setTextAlignment(right)
                if isinstance(value, (float, tuple)):
                    item.setToolTip(repr(value))
                self.setItem(r, c, item)
        self.resizeColumnsToContents()
        self.horizontalHeader().setSortIndicator(-1, QtCore.Qt.SortOrder.AscendingOrder)
        self.setSortingEnabled(True)

    def metric_keys(self) -> list[str]:
        """The metric key shown in columns 1, 2, ..."""
        return list(getattr(self, "_keys", []))
