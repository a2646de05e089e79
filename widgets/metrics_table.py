"""MetricsTable: per-algorithm aliasing errors, times and rates in a sortable table.

Each column header says in a tooltip what its numbers measure and in which units
(:data:`TOOLTIPS`). The columns always fit the table's width (no horizontal
scroll bar): given less room than they need, the widest give way first, the text
columns (the entry's name, the backend) before the numbers, and a cell's text is
then elided; every cell's tooltip holds its whole text (:func:`fit_widths`).
"""

from __future__ import annotations

import math

from PyQt6 import QtCore, QtGui, QtWidgets

#: Known metric keys → column header, in display order (DESIGN §3 and §4).
COLUMNS = {
    "backend": "backend",
    "rms_central": "RMS error\n(centre)",
    "rms_full": "RMS error\n(full)",
    "max_error": "max\nerror",
    "time_ms": "time (ms)\nmedian (range)",
    "rate_vis_per_s": "rate\n(vis/s)",
}  # two short lines each (the tooltips say more): six entries' table fits beside two plots
#: Header of column 0, the entry (an algorithm with its parameters).
FIRST_COLUMN = "entry"

#: What each column measures, and in which units: its header's tooltip.
TOOLTIPS = {
    "algorithm": "The entry: an algorithm with its parameters (a cell's tooltip: its whole name).",
    "backend": (
        "What computed the image: numba or NumPy (uvlab's chain of the stated kernel on "
        "the CPU: compiled loops where numba is installed, else NumPy), "
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
        "range from the fastest to the slowest run, milliseconds: how much the time varies between "
        "identical runs. An untimed warm-up comes first (one-time work lands there; "
        "in the window's Compare it images every k-th row only). Each entry is timed "
        "up to Timed runs times, fewer when slow (at least "
        "twice: the runs stop where another would pass the entry's time budget). Sorts "
        "by the median."
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


#: The table's font against the window's, and its smallest point size.
TABLE_FONT_SCALE = 0.9
TABLE_MIN_PT = 8.0
#: Columns of text (not numbers): the first to be narrowed, down to TEXT_MIN_CHARS.
TEXT_COLUMNS = ("algorithm", "backend")
#: The narrowest a text column is made before the numbers give way, in characters.
TEXT_MIN_CHARS = 5


def fit_widths(want: list[int], floor: list[int], room: int) -> list[int]:
    """Column widths that fill ``room`` pixels: ``want`` each, or narrower where it must be.

    The surplus of a roomy table goes to the last column. A cramped one caps the
    widest columns at one width (water-filling), none below its ``floor``; when the
    floors alone do not fit, every column is scaled from its floor.
    """
    want = [max(1, int(w)) for w in want]
    floor = [max(1, min(int(f), w)) for f, w in zip(floor, want)]
    room = max(len(want), int(room))
    if sum(want) <= room:
        return [*want[:-1], want[-1] + room - sum(want)]
    if sum(floor) >= room:
        scaled = [max(1, f * room // sum(floor)) for f in floor]
        return [*scaled[:-1], max(1, scaled[-1] + room - sum(scaled))]
    lo, hi = 0, max(want)  # the cap: the widest columns are cut down to it
    while lo < hi:
        cap = (lo + hi + 1) // 2
        if sum(min(w, max(f, cap)) for w, f in zip(want, floor)) <= room:
            lo = cap
        else:
            hi = cap - 1
    return [min(w, max(f, lo)) for w, f in zip(want, floor)]


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
        font = self.font()  # a little smaller than the window's: six entries beside two plots
        font.setPointSizeF(max(TABLE_MIN_PT, TABLE_FONT_SCALE * font.pointSizeF()))
        self.setFont(font)
        self.horizontalHeader().setFont(font)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)  # compact rows
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        # not bold for the selected row (every column is in it): narrower headers
        self.horizontalHeader().setHighlightSections(False)
        self._keys: list[str] = []

    def set_metrics(self, metrics: dict[str, dict[str, float]]) -> None:
        """Show ``{algorithm: {metric: value}}``; missing metrics stay blank."""
        self.setSortingEnabled(False)
        keys = [k for k in COLUMNS if any(k in m for m in metrics.values())]
        keys += list(dict.fromkeys(k for m in metrics.values() for k in m if k not in COLUMNS))
        self.clear()
        self.setRowCount(len(metrics))
        self.setColumnCount(len(keys) + 1)
        self.setHorizontalHeaderLabels([FIRST_COLUMN] + [COLUMNS.get(k, k) for k in keys])
        for c, key in enumerate(["algorithm", *keys]):
            if key in TOOLTIPS:
                self.horizontalHeaderItem(c).setToolTip(TOOLTIPS[key])
        self.verticalHeader().setVisible(False)
        self._keys = keys
        right = QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter
        for r, (algo, values) in enumerate(metrics.items()):
            name = QtWidgets.QTableWidgetItem(str(algo))
            name.setToolTip(str(algo))
            self.setItem(r, 0, name)
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
                if isinstance(value, (float, tuple)):  # the text, and the value unrounded
                    item.setToolTip(f"{item.text()}  ({value!r})")
                elif item.text():
                    item.setToolTip(item.text())
                self.setItem(r, c, item)
        self.fit_columns()
        self.horizontalHeader().setSortIndicator(-1, QtCore.Qt.SortOrder.AscendingOrder)
        self.setSortingEnabled(True)

    def metric_keys(self) -> list[str]:
        """The metric key shown in columns 1, 2, ..."""
        return list(self._keys)

    # ------------------------------------------------------------ widths
    def header_width(self, column: int) -> int:
        """The width of a column's header text whole (its longest line), pixels.

        Not the header's own size hint, which keeps room for a sort arrow beside the
        text of every column (the height of the two-line header again); the arrow is
        drawn above the text.
        """
        header = self.horizontalHeader()
        item = self.horizontalHeaderItem(column)
        lines = item.text().split("\n") if item is not None else [""]
        metrics = QtGui.QFontMetrics(header.font())
        margin = header.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_HeaderMargin)
        return max(metrics.horizontalAdvance(line) for line in lines) + 2 * margin + 4

    def natural_widths(self) -> list[int]:
        """Each column's width with its header and every cell whole, pixels."""
        return [
            max(self.sizeHintForColumn(c), self.header_width(c)) for c in range(self.columnCount())
        ]

    def natural_width(self) -> int:
        """The table's width with every column whole (frame included), pixels."""
        return sum(self.natural_widths()) + 2 * self.frameWidth()

    def fit_columns(self) -> None:
        """Size the columns to fill the table's width (:func:`fit_widths`)."""
        if not self.columnCount():
            return
        self.horizontalHeader().setStretchLastSection(False)
        char = self.fontMetrics().averageCharWidth()
        want, floors = self.natural_widths(), []
        for c, key in enumerate(["algorithm", *self._keys]):  # headers and numbers whole,
            if key in TEXT_COLUMNS:  # text elided down to a few characters
                cells = min(self.sizeHintForColumn(c), (TEXT_MIN_CHARS + 2) * char)
                floors.append(max(cells, self.header_width(c)))
            else:
                floors.append(want[c])
        widths = fit_widths(want, floors, self.viewport().width())
        for c, w in enumerate(widths):
            self.setColumnWidth(c, w)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit_columns()
