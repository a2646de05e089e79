"""uvlab's own sky model text format (version 1): read and write.

A uvlab sky file is UTF-8 text, one component per line, fields separated by
whitespace::

    # uvlab sky model v1
    # name: two sources
    # name type  ra       dec       I   Q   U   V   spectral_index ref_freq_hz major_arcsec ...
    src1  point  15.0     -30.0     1.0 0.0 0.0 0.0 -0.7           1.4e9       0.0 0.0 0.0
    blob  gaussian 01:00:30 -30:05:00 0.5 0 0 0     0.0            1.4e9       40.0 20.0 30.0

The 13 columns are ``name type ra dec I Q U V spectral_index ref_freq_hz
major_arcsec minor_arcsec pa_deg``, in units ``- - deg|hms deg|dms Jy Jy Jy Jy
- Hz arcsec arcsec deg``.

Rules:

- The first non-blank line must be ``# uvlab sky model v1`` (the version
  line). Other versions are refused with a clear error.
- ``#`` starts a comment, anywhere on a line. Blank lines are ignored.
- ``# name: TEXT`` among the comment lines before the first component sets
  the model's name.
- ``# centre: RA DEC`` among those lines (RA and Dec as in a component line)
  makes the model *relative*: its components were laid out about that phase
  centre and keep their offsets (l, m) from whatever phase centre observes
  them (:meth:`~uvlab.app.skymodel.sky_model.SkyModel.moved_to`). uvlab
  writes it for a relative model (a demo sky); without it, as in every file
  written by hand or by other programs, positions are absolute. Delete the
  line to pin a saved demo sky to its RA/Dec. Readers before this line
  existed read such a file as absolute.
- An optional 14th column, ``spectrum``, holds WSClean-style spectral terms:
  ``log:c1,c2,…`` (``S0·exp(Σ c_k·(ln x)^k)``, x = ν/ν0) or ``lin:c1,c2,…``
  (``I0 + Σ c_k·(x − 1)^k``), or ``-`` for the power law of ``spectral_index``.
  uvlab writes it only when some component has such terms (and then the
  ``spectral_index`` column holds the slope at ν0, for reading by eye).
- Every component line has 13 fields (14 with ``spectrum``), in the order above. ``name`` is
  one token (no whitespace, no ``#``); ``type`` is ``point`` or ``gaussian``
  (any case).
- ``ra`` is decimal degrees, ``hh:mm:ss.s`` (hours) or ``12h34m56.7s``;
  ``dec`` is decimal degrees, ``dd:mm:ss.s`` or ``-30d12m00s``. A leading
  sign applies to the whole angle. RA is wrapped into [0, 360).
- Flux densities are Jy at ``ref_freq_hz``; S(ν) = S0·(ν/ν0)^α for all four
  Stokes. Sizes are FWHM in arcsec (0 for a point); ``pa_deg`` is the
  position angle of the major axis, degrees east of north.
- A file holding only the version line (and comments) is a valid empty model.
  A file with no version line at all, including an empty file, is an error.
- Every bad line raises :class:`SkyModelError` naming the file, the line and
  the fault (column count, not a number, unknown type, negative size, minor >
  major, Dec out of range, ...). Non-UTF-8 or binary files raise one too.

:func:`write_sky` writes decimal degrees and ``repr`` floats, so
``read_sky(write_sky(m))`` returns a model equal to ``m`` (its ``centre_deg``
too); it replaces a file atomically (a complete new file or the old one).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from uvlab.app.skymodel.angles import parse_angle
from uvlab.app.skymodel.checks import SkyModelError, check_centre
from uvlab.app.skymodel.component import Component
from uvlab.app.skymodel.sky_model import SkyModel

VERSION = 1
HEADER = f"# uvlab sky model v{VERSION}"
COLUMNS = (
    "name",
    "type",
    "ra",
    "dec",
    "I",
    "Q",
    "U",
    "V",
    "spectral_index",
    "ref_freq_hz",
    "major_arcsec",
    "minor_arcsec",
    "pa_deg",
)
UNITS = ("-", "-", "deg", "deg", "Jy", "Jy", "Jy", "Jy", "-", "Hz", "arcsec", "arcsec", "deg")

HEADER_RE = re.compile(r"#\s*uvlab\s+sky\s+model\s+v(\S*)\s*", re.IGNORECASE)
_NAME_RE = re.compile(r"#\s*name\s*:(.*)", re.IGNORECASE)
_CENTRE_RE = re.compile(r"#\s*centre\s*:\s*(\S+)\s+(\S+)\s*", re.IGNORECASE)
_SNIFF_BYTES = 65536


def check_regular(path: Path) -> None:
    """Refuse a FIFO, socket or device (reading one would block or never end)."""
    import stat

    try:
        mode = path.stat().st_mode
    except OSError:
        return  # missing or unreadable: the open says so
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise SkyModelError("not a regular file (a FIFO, socket or device)", path)


def read_text_file(path: str | os.PathLike) -> str:
    """The text of a sky file, or a :class:`SkyModelError` saying why not.

    Refuses missing files, directories, binary files (NUL bytes) and text that
    is not UTF-8 (reporting the line of the first bad byte). A UTF-8 byte-order
    mark is dropped.
    """
    p = Path(path)
    check_regular(p)
    try:
        with p.open("rb") as fh:
            head = fh.read(_SNIFF_BYTES)
            if b"\x00" in head:
                raise SkyModelError("binary file (contains NUL bytes), not a text sky model", p)
            data = head + fh.read()
    except FileNotFoundError:
        raise SkyModelError("no such file", p) from None
    except IsADirectoryError:
        raise SkyModelError("is a directory, not a sky model file", p) from None
    except OSError as exc:
        raise SkyModelError(f"cannot read file: {exc.strerror or exc}", p) from None
    if b"\x00" in data:
        raise SkyModelError("binary file (contains NUL bytes), not a text sky model", p)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        reason = f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        raise SkyModelError(reason, p, line) from None
    return text.removeprefix("\ufeff")


def split_lines(text: str) -> list[str]:
    """Lines split on LF / CRLF / CR only, so numbers match what editors show."""
    return re.split(r"\r\n|\r|\n", text.removeprefix("\ufeff"))


def _number(field: str, column: str) -> float:
    try:
        value = float(field)
    except ValueError:
        raise SkyModelError(f"{column}: {field!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise SkyModelError(f"{column}: {field!r} is not finite")
    return value


def _spectrum(text: str) -> tuple[tuple[float, ...], bool]:
    """(terms, logarithmic) of a ``spectrum`` field: ``-``, ``log:c1,…`` or ``lin:c1,…``."""
    if text == "-":
        return (), True
    kind, sep, body = text.partition(":")
    if not sep or kind.lower() not in ("log", "lin"):
        raise SkyModelError(f"spectrum: {text!r} is not '-', 'log:c1,c2,…' or 'lin:c1,c2,…'")
    terms = tuple(_number(t, "spectrum") for t in body.split(",") if t.strip())
    return terms, kind.lower() == "log"


def _parse_row(fields: list[str]) -> Component:
    if len(fields) not in (len(COLUMNS), len(COLUMNS) + 1):
        raise SkyModelError(
            f"expected {len(COLUMNS)} columns ({' '.join(COLUMNS)}; 14 with 'spectrum'), "
            f"got {len(fields)}"
        )
    terms, log_si = _spectrum(fields[13]) if len(fields) > len(COLUMNS) else ((), True)
    fields = fields[: len(COLUMNS)]
    name, kind, ra_text, dec_text = fields[:4]
    if kind.lower() not in ("point", "gaussian"):
        raise SkyModelError(f"unknown component type {kind!r} (expected point or gaussian)")
    try:
        ra = parse_angle(ra_text, hours=True)
    except ValueError as exc:
        raise SkyModelError(f"ra: {exc}") from None
    try:
        dec = parse_angle(dec_text, hours=False)
    except ValueError as exc:
        raise SkyModelError(f"dec: {exc}") from None
    nums = [_number(f, c) for f, c in zip(fields[4:], COLUMNS[4:])]
    return Component(
        name=name,
        kind=kind,
        ra_deg=ra,
        dec_deg=dec,
        stokes=tuple(nums[0:4]),
        spectral_index=nums[4],
        ref_freq_hz=nums[5],
        major_arcsec=nums[6],
        minor_arcsec=nums[7],
        pa_deg=nums[8],
        spectral_terms=terms,
        log_si=log_si,
    )


def parse_sky_text(text: str, source: str | os.PathLike = "<string>") -> SkyModel:
    """Parse uvlab v1 sky text (see the module docstring).

    Parameters
    ----------
    text : str
        The whole file.
    source : str or path
        Shown in error messages as the file name.
    """
    lines = split_lines(text)
    start = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if start is None:
        raise SkyModelError(f"empty file: a uvlab sky model starts with '{HEADER}'", source)
    m = HEADER_RE.fullmatch(lines[start].strip())
    if not m:
        shown = lines[start].strip()[:60]
        raise SkyModelError(
            f"not a uvlab sky model: expected '{HEADER}', got {shown!r}", source, start + 1
        )
    if m[1] != str(VERSION):
        raise SkyModelError(
            f"unsupported uvlab sky model version v{m[1]} (this uvlab reads v{VERSION})",
            source,
            start + 1,
        )
    name = ""
    centre = None
    components: list[Component] = []
    for number, raw in enumerate(lines[start + 1 :], start + 2):
        content, _, comment = raw.partition("#")
        fields = content.split()
        if not fields:
            header = not content.strip() and not components
            meta = _NAME_RE.fullmatch("#" + comment) if header else None
            if meta and not name:
                name = meta[1].strip()
            meta = _CENTRE_RE.fullmatch("#" + comment) if header else None
            if meta and centre is None:
                try:
                    centre = _centre(meta[1], meta[2])
                except SkyModelError as exc:
                    raise SkyModelError(exc.reason, source, number) from None
            continue
        try:
            components.append(_parse_row(fields))
        except SkyModelError as exc:
            raise SkyModelError(exc.reason, source, number) from None
    return SkyModel(tuple(components), name, centre)


def _centre(ra_text: str, dec_text: str) -> tuple[float, float]:
    try:
        ra = parse_angle(ra_text, hours=True)
        dec = parse_angle(dec_text, hours=False)
    except ValueError as exc:
        raise SkyModelError(f"centre: {exc}") from None
    return check_centre((ra, dec))


def read_sky(path: str | os.PathLike) -> SkyModel:
    """Read a uvlab v1 sky file; :class:`SkyModelError` on any fault."""
    return parse_sky_text(read_text_file(path), source=path)


def format_sky(model: SkyModel) -> str:
    """The uvlab v1 text of ``model`` (aligned columns, ``repr`` floats)."""
    rows = [
        [
            c.name,
            c.kind,
            repr(c.ra_deg),
            repr(c.dec_deg),
            *(repr(s) for s in c.stokes),
            repr(c.spectral_index),
            repr(c.ref_freq_hz),
            repr(c.major_arcsec),
            repr(c.minor_arcsec),
            repr(c.pa_deg),
        ]
        for c in model.components
    ]
    columns, units = list(COLUMNS), list(UNITS)
    if any(c.spectral_terms for c in model.components):  # the optional 14th column
        columns.append("spectrum")
        units.append("-")
        for row, c in zip(rows, model.components, strict=True):
            kind = "log" if c.log_si else "lin"
            terms = ",".join(repr(t) for t in c.spectral_terms)
            row.append(f"{kind}:{terms}" if c.spectral_terms else "-")
    table = [columns, units, *rows]
    widths = [max(len(r[k]) for r in table) for k in range(len(columns))]

    def line(cells: list[str], lead: str) -> str:
        return (lead + "  ".join(c.ljust(w) for c, w in zip(cells, widths))).rstrip()

    out = [HEADER]
    if model.name:
        out.append(f"# name: {model.name}")
    if model.centre_deg is not None:
        ra, dec = model.centre_deg
        out.append(f"# centre: {ra!r} {dec!r}")
    out.append(line(table[0], "# "))
    out.append(line(table[1], "# "))
    out.extend(line(r, "  ") for r in rows)
    return "\n".join(out) + "\n"


def write_sky(model: SkyModel, path: str | os.PathLike, *, overwrite: bool = True) -> None:
    """Write ``model`` to ``path`` in uvlab v1 format (UTF-8, LF line ends).

    The file is replaced atomically (:mod:`uvlab.app.outputs.atomic`): on any error an
    existing file is left as it was. With ``overwrite=False`` an existing file
    raises :class:`FileExistsError`; a disk without room for the text raises
    :class:`~uvlab.app.runtime.diskspace.InsufficientSpaceError` (before writing) or
    :class:`~uvlab.app.outputs.atomic.DiskFullError` (when it fills up meanwhile); other
    write errors raise :class:`SkyModelError`. Each message is one line naming
    the file.
    """
    from uvlab.app.outputs.atomic import write_text
    from uvlab.app.runtime.diskspace import InsufficientSpaceError

    text = format_sky(model)
    try:
        write_text(path, text, overwrite=overwrite, newline="\n", what="the sky model")
    except (InsufficientSpaceError, FileExistsError):
        raise
    except OSError as exc:
        raise SkyModelError(f"cannot write file: {exc.strerror or exc}", path) from None
