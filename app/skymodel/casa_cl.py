"""CASA component lists (``.cl`` tables, as ``componentlist`` writes them), read with casacore.

One row per component, in casacore's ``ComponentList`` table layout:

- ``Shape``: ``Point`` and ``Gaussian`` exactly; ``Disk`` approximated by the
  Gaussian of the same second moments (FWHM = √(ln 2 / 2)·diameter ≈ 0.589 ×
  diameter, per axis; the visibilities agree only inside the disk's first null);
  any other shape is an error.
- ``Reference_Direction`` (longitude, latitude; units from the column's
  ``QuantumUnits``, radians by default) in the frame of ``MEASINFO`` or of the
  ``Direction_Frame`` column: J2000 as it is; ICRS, B1950 and GALACTIC converted
  to J2000 with astropy; any other frame is an error.
- ``Shape_Parameters``: major and minor axis and position angle (radians, CASA's
  units for every shape), the axes FWHMs of a Gaussian and diameters of a disk.
- ``Flux`` (four complex numbers) in ``Flux_Unit`` (Jy, mJy, µJy, uJy, nJy, kJy)
  with ``Flux_Polarisation`` ``Stokes``: I, Q, U, V kept; a non-zero imaginary part is
  dropped (approximated). Linear or circular fluxes are errors (convert them to
  Stokes in CASA: ``cl.convertfluxpol``).
- ``Spectrum_Shape``: ``Constant`` (α = 0) and ``Spectral Index`` (the first of
  ``Spectral_Parameters`` is α, applied to all four Stokes; non-zero further
  parameters, CASA's separate Q/U/V indices, are dropped: approximated); any
  other spectrum (tabular, logarithmic polynomial) is an error.
- ``Reference_Frequency`` (units from ``QuantumUnits``, Hz by default). Its frame
  (``Frequency_Frame``: LSRK, TOPO, ...) is not applied: the shift is below 1e-4
  of ν, a relative flux change of ~1e-4·α.
- ``Label`` names the component (``cl<row>`` when empty; whitespace → ``_``).

Whatever is approximated is reported through ``report`` (one line each; a
``UserWarning`` without one), or raised as :class:`SkyModelError` with ``strict``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from uvlab.app.skymodel.checks import SkyModelError
from uvlab.app.skymodel.component import Component
from uvlab.app.skymodel.sky_model import SkyModel

#: Jy per unit of ``Flux_Unit``.
FLUX_UNITS = {"jy": 1.0, "mjy": 1e-3, "ujy": 1e-6, "µjy": 1e-6, "μjy": 1e-6, "njy": 1e-9,
              "kjy": 1e3}  # fmt: skip
_ANGLE_UNITS = {"rad": 1.0, "deg": math.pi / 180, "arcmin": math.pi / 10800,
                "arcsec": math.pi / 648000}  # fmt: skip
_FREQ_UNITS = {"hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9}
#: Gaussian FWHM per diameter of the uniform disk with the same second moments.
DISK_FWHM_PER_DIAMETER = math.sqrt(math.log(2.0) / 2.0)
_ASTROPY_FRAMES = {"ICRS": "icrs", "B1950": "fk4", "GALACTIC": "galactic"}


def is_component_list(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a casacore table folder (``table.dat``) that may be a component list."""
    p = Path(path)
    return p.is_dir() and (p / "table.dat").is_file()


def _units(tab, column: str, table: dict[str, float], default: str) -> list[float]:
    kw = tab.getcolkeywords(column)
    names = kw.get("QuantumUnits", [default])
    names = [names] if isinstance(names, str) else list(names)
    out = []
    for name in names:
        key = str(name).strip().lower()
        if key not in table:
            raise SkyModelError(f"column {column}: unit {name!r} not understood")
        out.append(table[key])
    return out


def _frames(tab, n: int) -> list[str]:
    info = tab.getcolkeywords("Reference_Direction").get("MEASINFO", {})
    if "VarRefCol" in info and info["VarRefCol"] in tab.colnames():
        return [str(f).upper() for f in tab.getcol(info["VarRefCol"])]
    if "Direction_Frame" in tab.colnames() and "Ref" not in info:
        return [str(f).upper() for f in tab.getcol("Direction_Frame")]
    return [str(info.get("Ref", "J2000")).upper()] * n


def _to_j2000(lon: float, lat: float, frame: str) -> tuple[float, float]:
    """(RA, Dec) degrees, J2000 (FK5), of a direction in radians in ``frame``."""
    if frame == "J2000":
        return math.degrees(lon) % 360.0, math.degrees(lat)
    if frame not in _ASTROPY_FRAMES:
        raise SkyModelError(
            f"direction frame {frame!r} is not supported (J2000, ICRS, B1950, GALACTIC)"
        )
    import astropy.units as u
    from astropy.coordinates import FK5, SkyCoord

    c = SkyCoord(lon * u.rad, lat * u.rad, frame=_ASTROPY_FRAMES[frame])
    j = c.transform_to(FK5(equinox="J2000"))
    return float(j.ra.deg) % 360.0, float(j.dec.deg)


def read_component_list(
    path: str | os.PathLike,
    *,
    strict: bool = False,
    report: Callable[[str], None] | None = None,
) -> SkyModel:
    """A :class:`SkyModel` from a CASA component list table (see the module docstring).

    Raises
    ------
    SkyModelError
        Not a component list, an unsupported shape, spectrum, frame, unit or
        polarisation, a bad value (naming the row), or with ``strict`` anything
        that would be approximated.
    """
    from casacore import tables

    path = Path(path)
    lock = path / "table.lock"
    had_lock = lock.exists()  # casacore leaves a lock file even read-only: remove only ours
    try:
        tab = tables.table(os.fspath(path), readonly=True, ack=False)
    except RuntimeError as exc:
        first = (str(exc).splitlines() or [""])[0]
        raise SkyModelError(f"cannot open as a casacore table: {first}", path) from None
    try:
        return _read(tab, path, strict, report)
    finally:
        tab.close()
        if not had_lock:
            lock.unlink(missing_ok=True)


def _read(tab, path: Path, strict: bool, report) -> SkyModel:
    need = ("Flux", "Flux_Unit", "Flux_Polarisation", "Shape", "Reference_Direction",
            "Shape_Parameters", "Spectrum_Shape", "Reference_Frequency")  # fmt: skip
    missing = [c for c in need if c not in tab.colnames()]
    if missing:
        kind = tab.info().get("type", "") or "a table"
        what = f"not a CASA component list ({kind}; no {', '.join(missing)} column)"
        raise SkyModelError(what, path)
    n = tab.nrows()
    approximated: list[str] = []

    def approx(row: int, text: str) -> None:
        line = f"row {row}: {text}"
        if strict:
            raise SkyModelError(f"{line} (an approximation; refused with --strict)", path)
        approximated.append(line)

    try:
        dir_scale = _units(tab, "Reference_Direction", _ANGLE_UNITS, "rad")
        freq_scale = _units(tab, "Reference_Frequency", _FREQ_UNITS, "Hz")[0]
        frames = _frames(tab, n)
    except SkyModelError as exc:
        raise SkyModelError(exc.reason, path) from None
    labels = tab.getcol("Label") if "Label" in tab.colnames() else [""] * n
    comps = []
    for row in range(n):
        try:
            comp = _component(tab, row, frames[row], dir_scale, freq_scale, labels[row], approx)
            comps.append(comp)
        except SkyModelError as exc:
            if exc.path is not None:
                raise
            raise SkyModelError(f"row {row}: {exc.reason}", path) from None
    for line in approximated:
        if report is not None:
            report(f"{path.name}: {line}")
        else:  # never silently: a Python warning for callers that give no report
            import warnings

            warnings.warn(f"{path.name}: {line}", UserWarning, stacklevel=3)
    return SkyModel(tuple(comps), path.name)


def _component(tab, row, frame, dir_scale, freq_scale, label, approx) -> Component:
    shape = str(tab.getcell("Shape", row)).strip().lower()
    if shape not in ("point", "gaussian", "disk"):
        raise SkyModelError(f"shape {shape!r} is not supported (Point, Gaussian, Disk)")
    value = np.asarray(tab.getcell("Reference_Direction", row), float).ravel()
    if value.size != 2 or not np.isfinite(value).all():
        raise SkyModelError(f"Reference_Direction {value.tolist()} is not two finite angles")
    lon, lat = value * np.resize(dir_scale, 2)
    ra, dec = _to_j2000(float(lon), float(lat), frame)
    pol = str(tab.getcell("Flux_Polarisation", row)).strip().lower()
    if pol != "stokes":
        raise SkyModelError(f"flux polarisation {pol!r}: only Stokes is read (cl.convertfluxpol)")
    unit = str(tab.getcell("Flux_Unit", row)).strip().lower()
    if unit not in FLUX_UNITS:
        raise SkyModelError(f"flux unit {unit!r} is not supported (Jy, mJy, uJy, nJy, kJy)")
    flux = np.asarray(tab.getcell("Flux", row), complex).ravel() * FLUX_UNITS[unit]
    if flux.size != 4:
        raise SkyModelError(f"Flux has {flux.size} values, expected 4 (I, Q, U, V)")
    if np.any(flux.imag != 0):
        approx(row, f"imaginary flux parts {flux.imag.tolist()} dropped")
    spectrum = str(tab.getcell("Spectrum_Shape", row)).strip().lower()
    params = (
        np.asarray(tab.getcell("Spectral_Parameters", row), float).ravel()
        if "Spectral_Parameters" in tab.colnames() and tab.iscelldefined("Spectral_Parameters", row)
        else np.zeros(0)
    )
    if spectrum == "constant":
        alpha = 0.0
    elif spectrum == "spectral index":
        if params.size == 0:
            raise SkyModelError("a Spectral Index spectrum with no Spectral_Parameters")
        alpha = float(params[0])
        if np.any(params[1:] != 0):
            approx(row, f"spectral parameters {params[1:].tolist()} after the index dropped "
                   "(uvlab applies I's index to Q, U and V)")  # fmt: skip
    else:
        raise SkyModelError(f"spectrum {spectrum!r} is not supported (Constant, Spectral Index)")
    nu0 = float(tab.getcell("Reference_Frequency", row)) * freq_scale
    if not nu0 > 0:
        if spectrum != "constant":
            raise SkyModelError(f"reference frequency {nu0!r} Hz must be > 0")
        nu0 = 1.4e9  # a constant spectrum does not depend on it
    major = minor = pa = 0.0
    if shape != "point":
        sp = np.asarray(tab.getcell("Shape_Parameters", row), float).ravel()
        if sp.size < 3:
            raise SkyModelError(f"{shape} with {sp.size} Shape_Parameters, expected 3")
        major, minor = (math.degrees(x) * 3600.0 for x in sp[:2])
        pa = math.degrees(sp[2])
        if shape == "disk":
            approx(row, f'disk {major:.4g}" x {minor:.4g}" approximated by a Gaussian of '
                   f"FWHM {DISK_FWHM_PER_DIAMETER:.3f} x its diameters")  # fmt: skip
            major, minor = major * DISK_FWHM_PER_DIAMETER, minor * DISK_FWHM_PER_DIAMETER
        if minor > major:
            major, minor, pa = minor, major, pa + 90.0
        shape = "gaussian" if major > 0 else "point"
        if shape == "point":
            major = minor = pa = 0.0
    name = re.sub(r"[\s#]+", "_", str(label).strip()) or f"cl{row}"
    return Component(
        name=name,
        kind=shape,
        ra_deg=ra,
        dec_deg=dec,
        stokes=tuple(float(x) for x in flux.real),
        ref_freq_hz=nu0,
        spectral_index=alpha,
        major_arcsec=major,
        minor_arcsec=minor,
        pa_deg=pa,
    )
