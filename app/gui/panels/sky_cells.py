"""The sky panel's table: its columns, and a component to and from the cells' texts.

Each row is one :class:`~uvlab.app.skymodel.Component`; the headers carry the units, and a
row's texts are rebuilt into a Component (:func:`component_from_cells`), failing with a
:class:`~uvlab.app.skymodel.SkyModelError` that names the bad column.
"""

from __future__ import annotations

from PyQt6 import QtGui

from uvlab.app.skymodel import Component, SkyModelError

#: (Component field, header with units, scale from the shown number to the field).
COLUMNS = (
    ("name", "Name", None),
    ("kind", "Type", None),
    ("ra_deg", "RA (°)", 1.0),
    ("dec_deg", "Dec (°)", 1.0),
    ("I", "I (Jy)", 1.0),
    ("Q", "Q (Jy)", 1.0),
    ("U", "U (Jy)", 1.0),
    ("V", "V (Jy)", 1.0),
    ("spectral_index", "α", 1.0),
    ("ref_freq_hz", "ν₀ (MHz)", 1e6),
    ("major_arcsec", "Major (″)", 1.0),
    ("minor_arcsec", "Minor (″)", 1.0),
    ("pa_deg", "PA (°)", 1.0),
)
BAD_ROW = QtGui.QColor("#ffb0b0")
#: Columns shown until *All columns* is ticked: what a narrow dock has room for.
BRIEF_COLUMNS = ("name", "kind", "ra_deg", "dec_deg", "I")


def component_cells(c: Component) -> list[str]:
    """The table texts of one component."""
    values = {"name": c.name, "kind": c.kind, **dict(zip("IQUV", c.stokes))}
    cells = []
    for key, _header, scale in COLUMNS:
        v = values[key] if key in values else getattr(c, key)
        cells.append(str(v) if scale is None else f"{v / scale:.10g}")
    return cells


def component_from_cells(cells: list[str]) -> Component:
    """Build a Component from table texts (:class:`SkyModelError` naming the bad column)."""
    values = {}
    for (key, header, scale), text in zip(COLUMNS, cells):
        if scale is None:
            values[key] = text.strip()
            continue
        try:
            values[key] = float(text) * scale
        except ValueError:
            raise SkyModelError(f"{header}: {text!r} is not a number") from None
    stokes = tuple(values.pop(k) for k in "IQUV")
    return Component(stokes=stokes, **values)
