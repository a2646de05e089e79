"""Read WSClean component lists (the makesourcedb / BBS sky model format).

WSClean's ``-save-source-list`` writes comma-separated text whose first line
names the columns, e.g.::

    Format = Name, Type, Ra, Dec, I, SpectralIndex, LogarithmicSI, ReferenceFrequency='1.4e9', MajorAxis, MinorAxis, Orientation
    s0c0,POINT,08:28:05.152,39.35.08.511,0.0123,[-0.7,0.01],false,1.4e9,,,
    s1c0,GAUSSIAN,08:31:10.37,41.47.17.131,0.0072,[-0.7],true,1.4e9,83.6,60.2,30

What is read (WSClean wiki "ComponentList"; LOFAR wiki "makesourcedb"):

- The format line is ``Format = ...`` (any case) or makesourcedb's
  ``# (...) = format``; its column order governs, and ``Col='value'`` gives a
  default for empty fields. It must come before the first component line;
  other ``#`` lines are comments. Fields are separated by commas (commas
  inside ``[...]`` do not split).
- Columns used: Name, Type (POINT or GAUSSIAN), Ra, Dec, I, Q, U, V (default
  0), SpectralIndex, LogarithmicSI (default true), ReferenceFrequency,
  MajorAxis, MinorAxis (arcsec FWHM), Orientation (degrees, east of north).
  RotationMeasure, PolarizationAngle, PolarizedFraction and the shapelet
  columns are refused when they hold a nonzero value; any other column (Patch,
  OrientationIsAbsolute, ...) is ignored. Lines with empty Name and Type
  (makesourcedb patch lines) are skipped. Whitespace in a name becomes ``_``.
- Ra is ``hh:mm:ss.s`` (a leading ``-`` is honoured: ``-00:36:28`` is
  23:23:32), Dec is ``dd.mm.ss.s`` with dots (or ``dd:mm:ss.s``); both also
  take ``12h34m56s`` / ``30d12m00s`` or a number with a unit (``123.4deg``,
  ``2.15rad``). A bare decimal is refused as ambiguous.
- A GAUSSIAN with minor > major is stored with the axes swapped and the
  position angle turned by 90° (the same Gaussian); one with both axes 0 is
  stored as a point.

Spectra. WSClean writes ``SpectralIndex = [c1, c2, ...]`` (x = ν/ν0):

- ``LogarithmicSI = true``: ``S(ν) = I·exp(Σ c_k·(ln x)^k)``;
- ``LogarithmicSI = false``: ``S(ν) = I + Σ c_k·(x − 1)^k``.

Every term is kept (:attr:`Component.spectral_terms
<uvlab.app.skymodel.component.Component.spectral_terms>`), and the prediction
evaluates them exactly (:func:`uvlab.gpu.predict.terms.spectral_flux`): 1 Jy
with an ordinary linear term −0.5 at 1.4 GHz is 1.1429 Jy at 1 GHz, as WSClean
has it. A single logarithmic term is the power law ``I·x^α``.

:func:`format_wsclean` / :func:`write_wsclean` write any sky model back as a
component list (``uvlab sky convert IN OUT --format wsclean``), exactly: RA and
Dec to 1e-9 arcsec, ``repr`` numbers, Q, U, V and every spectral term.
"""  # noqa: E501

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from uvlab.app.skymodel.angles import parse_angle
from uvlab.app.skymodel.checks import SkyModelError
from uvlab.app.skymodel.component import Component
from uvlab.app.skymodel.sky_model import SkyModel
from uvlab.app.skymodel.text_format import read_text_file, split_lines

_FORMAT_FIRST = re.compile(r"#?\s*format\s*=\s*(.*)", re.IGNORECASE)
_FORMAT_LAST = re.compile(r"#?\s*\((.*)\)\s*=\s*format", re.IGNORECASE)
_COLUMN_NAME = re.compile(r"[A-Za-z_][\w:]*")
_DOTTED = re.compile(r"([+-]?)(\d+)\.(\d+)\.(\d+(?:\.\d*)?)")
_WITH_UNIT = re.compile(r"([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(deg|rad)", re.I)
_USED = {
    k.lower(): k
    for k in (
        "Name Type Ra Dec I Q U V SpectralIndex LogarithmicSI ReferenceFrequency "
        "MajorAxis MinorAxis Orientation"
    ).split()
}
_UNSUPPORTED = {
    k.lower(): k
    for k in "RotationMeasure PolarizationAngle PolarizedFraction IShapelet QShapelet "
    "UShapelet VShapelet".split()
}


def find_format_line(lines: list[str]) -> tuple[int, str] | None:
    """(index, column spec) of the WSClean/makesourcedb format line, if any."""
    for i, raw in enumerate(lines):
        s = raw.strip()
        if not s:
            continue
        m = _FORMAT_FIRST.fullmatch(s) or _FORMAT_LAST.fullmatch(s)
        if m:
            return i, m[1]
        if not s.startswith("#"):
            return None
    return None


def split_fields(text: str) -> list[str]:
    """Split on commas outside ``[...]`` and quotes; fields are stripped."""
    out, cur, depth, quote = [], [], 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(depth - 1, 0)
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur).strip())
    return out


def _parse_columns(spec: str) -> list[tuple[str, str | None]]:
    columns: list[tuple[str, str | None]] = []
    for item in split_fields(spec):
        name, eq, default = (s.strip() for s in item.partition("="))
        if not _COLUMN_NAME.fullmatch(name):
            raise SkyModelError(f"bad column name {name!r} in the format line")
        if len(default) >= 2 and default[0] == default[-1] and default[0] in "'\"":
            default = default[1:-1]
        key = name.lower()
        if key in {c[0] for c in columns}:
            raise SkyModelError(f"column {name!r} appears twice in the format line")
        columns.append((key, default.strip() if eq else None))
    for need in ("ra", "dec", "i"):
        if need not in {c[0] for c in columns}:
            raise SkyModelError(f"the format line has no {_USED[need]} column")
    return columns


def _angle(text: str, *, hours: bool) -> float:
    t = text.strip()
    m = _DOTTED.fullmatch(t)
    if m:
        value = float(m[2]) + float(m[3]) / 60.0 + float(m[4]) / 3600.0
        if float(m[3]) >= 60 or float(m[4]) >= 60:
            raise ValueError(f"minutes/seconds must be < 60 in {text!r}")
        return -value if m[1] == "-" else value
    m = _WITH_UNIT.fullmatch(t)
    if m:
        value = float(m[1])
        return math.degrees(value) if m[2].lower() == "rad" else value
    if re.fullmatch(r"[+-]?[\d.eE+-]+", t):
        raise ValueError(f"{text!r} is ambiguous: give a unit (123.4deg) or sexagesimal")
    return parse_angle(t, hours=hours)


def _float(text: str, column: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise SkyModelError(f"{column}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise SkyModelError(f"{column}: {text!r} is not finite")
    return value


def _terms(text: str) -> list[float]:
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    return [_float(t, "SpectralIndex") for t in body.split(",") if t.strip()]


def _bool(text: str) -> bool:
    t = text.strip().lower()
    if t in ("true", "t", "1", "yes"):
        return True
    if t in ("false", "f", "0", "no"):
        return False
    raise SkyModelError(f"LogarithmicSI: {text!r} is not true or false")


def _row(values: dict[str, str]) -> Component | None:
    name, kind = values.get("name", ""), values.get("type", "") or "POINT"
    if not name:
        if not values.get("type"):
            return None  # a makesourcedb patch line
        raise SkyModelError("empty Name")
    kind = kind.upper()
    if kind == "SHAPELET":
        raise SkyModelError("shapelet components are not supported")
    if kind not in ("POINT", "GAUSSIAN"):
        raise SkyModelError(f"unknown Type {kind!r} (expected POINT or GAUSSIAN)")
    for key, label in _UNSUPPORTED.items():
        text = values.get(key, "")
        if text and text.strip("[] ") and not _is_zero(text):
            raise SkyModelError(f"column {label} is not supported (value {text!r})")
    try:
        ra, dec = _angle(values["ra"], hours=True), _angle(values["dec"], hours=False)
    except ValueError as exc:
        raise SkyModelError(f"Ra/Dec: {exc}") from None
    if not values.get("i"):
        raise SkyModelError("empty I")
    stokes = [_float(values.get(k, "") or "0", k.upper()) for k in ("i", "q", "u", "v")]
    if not values.get("referencefrequency"):
        raise SkyModelError("no ReferenceFrequency")
    nu0 = _float(values["referencefrequency"], "ReferenceFrequency")
    log_si = _bool(values.get("logarithmicsi", "") or "true")
    terms = _terms(values.get("spectralindex", ""))
    major, minor, pa = (
        _float(values.get(k, "") or "0", _USED[k])
        for k in ("majoraxis", "minoraxis", "orientation")
    )
    if kind == "POINT" or (major == 0.0 and minor == 0.0):
        kind, major, minor, pa = "point", 0.0, 0.0, 0.0
    elif minor > major >= 0.0:
        major, minor, pa = minor, major, pa + 90.0
    return Component(
        name=re.sub(r"\s+", "_", name),
        kind=kind.lower(),
        ra_deg=ra,
        dec_deg=dec,
        stokes=tuple(stokes),
        ref_freq_hz=nu0,
        major_arcsec=major,
        minor_arcsec=minor,
        pa_deg=pa,
        spectral_terms=tuple(terms),
        log_si=log_si,
    )


def _is_zero(text: str) -> bool:
    try:
        return all(float(t) == 0.0 for t in text.strip("[] ").split(",") if t.strip())
    except ValueError:
        return False


def parse_wsclean_text(
    text: str, source: str | os.PathLike = "<string>", *, strict: bool = False, report=None
) -> SkyModel:
    """Parse WSClean component-list text (see the module docstring).

    Every spectrum is read exactly. Columns uvlab does not know (other than
    makesourcedb's ``Patch``) are ignored and reported through ``report``; with
    ``strict`` they are an error.
    """
    lines = split_lines(text)
    found = find_format_line(lines)
    if found is None:
        raise SkyModelError("no WSClean 'Format = ...' line before the first component", source)
    start, spec = found
    try:
        columns = _parse_columns(spec)
    except SkyModelError as exc:
        raise SkyModelError(exc.reason, source, start + 1) from None
    unknown = [k for k, _ in columns if k not in _USED and k not in _UNSUPPORTED and k != "patch"]
    if unknown:
        what = f"column{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} not known: ignored"
        if strict:
            raise SkyModelError(f"{what} (refused with --strict)", source, start + 1)
        if report is not None:
            report(f"{Path(source).name}, line {start + 1}: {what}")
    components: list[Component] = []
    for number, raw in enumerate(lines[start + 1 :], start + 2):
        content = raw.partition("#")[0]
        if not content.strip():
            continue
        try:
            fields = split_fields(content)
            if len(fields) > len(columns):
                raise SkyModelError(f"expected {len(columns)} fields, got {len(fields)}")
            fields += [""] * (len(columns) - len(fields))
            values = {key: (f or (default or "")) for (key, default), f in zip(columns, fields)}
            comp = _row(values)
        except SkyModelError as exc:
            raise SkyModelError(exc.reason, source, number) from None
        if comp is not None:
            components.append(comp)
    name = Path(source).name if source != "<string>" else ""
    return SkyModel(tuple(components), name)


def read_wsclean(path: str | os.PathLike, *, strict: bool = False, report=None) -> SkyModel:
    """Read a WSClean component list; :class:`SkyModelError` on any fault.

    Parameters
    ----------
    path : str or path
    strict : bool
        Refuse columns uvlab does not know instead of ignoring them.
    report : callable(str), optional
        Called with one line for ignored columns.
    """
    return parse_wsclean_text(read_text_file(path), source=path, strict=strict, report=report)


#: The columns :func:`format_wsclean` writes.
WRITE_COLUMNS = (
    "Name, Type, Ra, Dec, I, Q, U, V, SpectralIndex, LogarithmicSI, ReferenceFrequency, "
    "MajorAxis, MinorAxis, Orientation"
)


def _wsclean_ra(ra_deg: float) -> str:
    from uvlab.app.skymodel.angles import format_ra

    return format_ra(ra_deg, decimals=10)


def _wsclean_dec(dec_deg: float) -> str:
    from uvlab.app.skymodel.angles import format_dec

    return format_dec(dec_deg, decimals=9).replace(":", ".")


def format_wsclean(model: SkyModel) -> str:
    """``model`` as a WSClean component list (exact; see the module docstring).

    A relative model (a demo sky) is written where it lies about its own centre.
    """
    lines = [f"Format = {WRITE_COLUMNS}"]
    if model.name:
        lines.insert(0, f"# {model.name}")
    for c in model.components:
        terms = c.spectral_terms or (c.spectral_index,)
        size = (
            (repr(c.major_arcsec), repr(c.minor_arcsec), repr(c.pa_deg))
            if c.kind == "gaussian"
            else ("", "", "")
        )
        fields = [
            c.name,
            c.kind.upper(),
            _wsclean_ra(c.ra_deg),
            _wsclean_dec(c.dec_deg),
            *(repr(float(v)) for v in c.stokes),
            "[" + ",".join(repr(float(t)) for t in terms) + "]",
            "true" if c.log_si else "false",
            repr(c.ref_freq_hz),
            *size,
        ]
        lines.append(",".join(fields))
    return "\n".join(lines) + "\n"


def write_wsclean(model: SkyModel, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """Write :func:`format_wsclean` of ``model`` atomically (a complete file or none)."""
    from uvlab.app.outputs.atomic import write_text

    path = Path(path)
    if path.exists() and not overwrite:
        raise SkyModelError("already exists (use --force to overwrite)", path)
    write_text(path, format_wsclean(model))
    return path
