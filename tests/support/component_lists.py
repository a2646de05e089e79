"""CASA component-list tables written with python-casacore, in casacore's ComponentList layout.

The columns, keywords and measure descriptions are those ``ComponentList::createTable``
gives a table (casacore components/ComponentModels/ComponentList.cc): Flux (4 complex),
Flux_Unit, Flux_Polarisation, Shape, Reference_Direction (a direction measure whose
frame is the Direction_Frame column), Shape_Parameters (radians), Spectrum_Shape,
Reference_Frequency (a frequency measure, frame in Frequency_Frame), Spectral_Parameters
and Label.
"""

from __future__ import annotations

from pathlib import Path

#: What ComponentList writes for a point of 0 Jy with a constant spectrum.
DEFAULTS = {
    "Flux": [0j, 0j, 0j, 0j], "Flux_Unit": "Jy", "Flux_Polarisation": "Stokes",
    "Flux_Error": [0j, 0j, 0j, 0j], "Shape": "Point", "Direction_Frame": "J2000",
    "Shape_Parameters": [0.0], "Spectrum_Shape": "Constant", "Frequency_Frame": "LSRK",
    "Spectral_Parameters": [0.0], "Label": "",
}  # fmt: skip


def write_component_list(path: Path, rows: list[dict]) -> Path:
    """Write ``rows`` (dicts of the columns above; missing ones get CASA's defaults)."""
    from casacore import tables as t

    desc = t.maketabdesc([
        t.makearrcoldesc("Flux", 0j, shape=[4], valuetype="dcomplex"),
        t.makescacoldesc("Flux_Unit", "Jy"),
        t.makescacoldesc("Flux_Polarisation", "Stokes"),
        t.makearrcoldesc("Flux_Error", 0j, shape=[4], valuetype="dcomplex"),
        t.makescacoldesc("Shape", "Point"),
        t.makearrcoldesc("Reference_Direction", 0.0, shape=[2], valuetype="double",
                         keywords={"QuantumUnits": ["rad", "rad"],
                                   "MEASINFO": {"type": "direction",
                                                "VarRefCol": "Direction_Frame",
                                                "TabRefTypes": ["J2000", "B1950", "GALACTIC",
                                                                "ICRS"],
                                                "TabRefCodes": [0, 1, 4, 21]}}),
        t.makescacoldesc("Direction_Frame", "J2000"),
        t.makearrcoldesc("Shape_Parameters", 0.0, ndim=1, valuetype="double"),
        t.makescacoldesc("Spectrum_Shape", "Constant"),
        t.makescacoldesc("Reference_Frequency", 0.0, valuetype="double",
                         keywords={"QuantumUnits": ["Hz"],
                                   "MEASINFO": {"type": "frequency",
                                                "VarRefCol": "Frequency_Frame",
                                                "TabRefTypes": ["REST", "LSRK", "TOPO"],
                                                "TabRefCodes": [0, 1, 5]}}),
        t.makescacoldesc("Frequency_Frame", "LSRK"),
        t.makearrcoldesc("Spectral_Parameters", 0.0, ndim=1, valuetype="double"),
        t.makescacoldesc("Label", ""),
    ])  # fmt: skip
    tab = t.table(str(path), desc, nrow=len(rows), ack=False)
    try:
        tab.putinfo({"type": "Component List", "subType": "", "readme": ""})
        for i, row in enumerate(rows):
            for col, value in {**DEFAULTS, **row}.items():
                tab.putcell(col, i, value)
    finally:
        tab.close()
    return path
