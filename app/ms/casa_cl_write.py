"""Write a sky model as a CASA component list (a ``.cl`` table ``componentlist`` opens).

The table has the columns, keywords and measure descriptions casacore's
``ComponentList::createTable`` gives one (components/ComponentModels/ComponentList.cc),
the error columns left out (``ComponentList::readTable`` treats them as optional):

- ``Shape`` ``Point`` or ``Gaussian``; ``Shape_Parameters`` empty for a point,
  (major FWHM, minor FWHM, position angle) in radians for a Gaussian;
- ``Reference_Direction`` (RA, Dec) in radians, a direction measure whose frame
  is the ``Direction_Frame`` column: ``J2000``, as uvlab's components are;
- ``Flux`` the four Stokes I, Q, U, V in ``Jy`` (``Flux_Polarisation`` ``Stokes``);
- ``Spectrum_Shape`` ``Constant`` (α = 0, no parameters) or ``Spectral Index``
  (``Spectral_Parameters`` = [α], applied by CASA to all four Stokes as by uvlab);
- ``Reference_Frequency`` in Hz, a frequency measure, frame ``LSRK`` (CASA's default);
- ``Label`` the component's name.

A curved spectrum (more than one spectral term) has no such form and is refused.

:func:`read_component_list` reads such a table back to the same components.
"""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path

from uvlab.app.skymodel.checks import SkyModelError
from uvlab.app.skymodel.sky_model import SkyModel


def table_desc():
    """The casacore table description of a component list (see the module docstring)."""
    from casacore import tables as t

    direction = {
        "QuantumUnits": ["rad", "rad"],
        "MEASINFO": {"type": "direction", "VarRefCol": "Direction_Frame"},
    }
    frequency = {
        "QuantumUnits": ["Hz"],
        "MEASINFO": {"type": "frequency", "VarRefCol": "Frequency_Frame"},
    }
    return t.maketabdesc([
        t.makearrcoldesc("Flux", 0j, shape=[4], valuetype="dcomplex"),
        t.makescacoldesc("Flux_Unit", "Jy"),
        t.makescacoldesc("Flux_Polarisation", "Stokes"),
        t.makescacoldesc("Shape", "Point"),
        t.makearrcoldesc("Reference_Direction", 0.0, shape=[2], valuetype="double",
                         keywords=direction),
        t.makescacoldesc("Direction_Frame", "J2000"),
        t.makearrcoldesc("Shape_Parameters", 0.0, ndim=1, valuetype="double"),
        t.makescacoldesc("Spectrum_Shape", "Constant"),
        t.makescacoldesc("Reference_Frequency", 0.0, valuetype="double", keywords=frequency),
        t.makescacoldesc("Frequency_Frame", "LSRK"),
        t.makearrcoldesc("Spectral_Parameters", 0.0, ndim=1, valuetype="double"),
        t.makescacoldesc("Label", ""),
    ])  # fmt: skip


def component_rows(model: SkyModel) -> list[dict]:
    """One dict of column values per component of ``model``, as :func:`write_casa_cl` writes."""
    rows = []
    for c in model:
        if len(c.spectral_terms) > 1:
            raise SkyModelError(
                f"component {c.name}: a curved spectrum ({len(c.spectral_terms)} terms) has no "
                "CASA component-list form (Constant or Spectral Index)"
            )
        gaussian = c.kind == "gaussian"
        rad = math.pi / 648000.0  # per arcsec
        rows.append({
            "Flux": [complex(s) for s in c.stokes], "Flux_Unit": "Jy",
            "Flux_Polarisation": "Stokes", "Shape": "Gaussian" if gaussian else "Point",
            "Reference_Direction": [math.radians(c.ra_deg), math.radians(c.dec_deg)],
            "Direction_Frame": "J2000",
            "Shape_Parameters": [c.major_arcsec * rad, c.minor_arcsec * rad,
                                 math.radians(c.pa_deg)] if gaussian else [],
            "Spectrum_Shape": "Spectral Index" if c.spectral_index else "Constant",
            "Spectral_Parameters": [c.spectral_index] if c.spectral_index else [],
            "Reference_Frequency": c.ref_freq_hz, "Frequency_Frame": "LSRK", "Label": c.name,
        })  # fmt: skip
    return rows


def fill_table(path: str | os.PathLike, rows: list[dict]) -> None:
    """Create the component-list table ``path`` (which must not exist) holding ``rows``."""
    import numpy as np
    from casacore import tables

    tab = tables.table(os.fspath(path), table_desc(), nrow=len(rows), ack=False)
    try:
        tab.putinfo({"type": "Component List", "subType": "",
                     "readme": "This is a ComponentList Table containing parameterised "
                     "representations\nof the sky brightness.\n"})  # fmt: skip
        for i, row in enumerate(rows):
            for col, value in row.items():
                if isinstance(value, list) and col != "Flux":
                    value = np.asarray(value, float)
                tab.putcell(col, i, value)
    finally:
        tab.close()


def write_casa_cl(model: SkyModel, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """Write ``model`` as the component list table ``path``: a complete table or none.

    The table is built in a locked folder beside ``path``
    (:func:`uvlab.app.ms.build_folder.open_build_folder`) and renamed into place;
    an existing table is replaced last, so an interrupted write leaves it as it was.

    Raises
    ------
    SkyModelError
        ``path`` exists and ``overwrite`` is False, or is a file rather than a table.
    """
    from uvlab.app.ms.build_folder import clean_build_folders, move_into_place, open_build_folder
    from uvlab.app.outputs.atomic import refuse_symlink
    from uvlab.app.runtime.signals import critical

    target = Path(path)
    refuse_symlink(target)
    if target.exists() and not overwrite:
        raise SkyModelError("already exists (use --force to overwrite)", target)
    if target.exists() and not (target / "table.dat").is_file():
        raise SkyModelError("exists and is not a casacore table; not replaced", target)
    rows = component_rows(model)
    clean_build_folders(target)
    folder, lock = open_build_folder(target)
    try:
        build = folder / "build.cl"
        fill_table(build, rows)
        with critical():
            move_into_place(build, target, folder)
    finally:
        with critical():
            shutil.rmtree(folder, ignore_errors=True)
            os.close(lock)
    return target
