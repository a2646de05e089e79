"""Sky models for uvlab: components, file formats and demo skies.

- :mod:`~uvlab.app.skymodel.component`: :class:`Component`; :mod:`~uvlab.app.skymodel.sky_model`:
  :class:`SkyModel` (→ :class:`uvlab.gpu.sources.SourceArrays`,
  :mod:`~uvlab.app.skymodel.source_arrays`); :mod:`~uvlab.app.skymodel.checks`:
  :class:`SkyModelError` and the checks of single values;
- :mod:`~uvlab.app.skymodel.text_format`: uvlab's own text format (v1);
- :mod:`~uvlab.app.skymodel.wsclean`: WSClean / makesourcedb component lists;
- :mod:`~uvlab.app.skymodel.demo_skies`: built-in skies by name.

:func:`load_sky` takes a file (either format, detected from its header), a
demo name or the name of a sky bundled in ``uvlab.resources.skies``.
"""

from __future__ import annotations

import os
from pathlib import Path

from uvlab.app.skymodel.checks import SkyModelError
from uvlab.app.skymodel.component import Component
from uvlab.app.skymodel.demo_skies import DEFAULT_CENTRE_DEG, DEMO_SKIES, demo_sky
from uvlab.app.skymodel.sky_model import SkyModel
from uvlab.app.skymodel.text_format import (
    HEADER_RE,
    format_sky,
    parse_sky_text,
    read_sky,
    read_text_file,
    split_lines,
    write_sky,
)
from uvlab.app.skymodel.wsclean import find_format_line, parse_wsclean_text, read_wsclean

__all__ = [
    "DEMO_SKIES",
    "Component",
    "SkyModel",
    "SkyModelError",
    "bundled_skies",
    "demo_sky",
    "detect_format",
    "format_sky",
    "load_sky",
    "parse_sky_text",
    "read_sky",
    "read_wsclean",
    "write_sky",
]


def bundled_skies() -> dict[str, Path]:
    """Example sky files shipped in ``uvlab.resources.skies``: stem → path."""
    import uvlab.resources.skies as pkg

    folder = Path(pkg.__file__).parent
    return {p.stem: p for p in sorted(folder.glob("*.txt"))}


def detect_format(text: str) -> str:
    """``"uvlab"`` or ``"wsclean"`` from a file's header; ``""`` if neither.

    A uvlab file's first non-blank line is its version line; a WSClean file has
    a ``Format = ...`` line before its first component (comments allowed).
    """
    lines = split_lines(text)
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    if HEADER_RE.fullmatch(first):
        return "uvlab"
    if find_format_line(lines) is not None:
        return "wsclean"
    return ""


def _read_file(path: Path, strict: bool = False, report=None) -> SkyModel:
    from uvlab.app.skymodel.casa_cl import is_component_list, read_component_list

    if is_component_list(path):
        return read_component_list(path, strict=strict, report=report)
    if path.is_dir():
        raise SkyModelError("a folder that is not a casacore table (a CASA component list)", path)
    text = read_text_file(path)
    kind = detect_format(text)
    if kind == "uvlab":
        return parse_sky_text(text, source=path)
    if kind == "wsclean":
        return parse_wsclean_text(text, source=path, strict=strict, report=report)
    if not text.strip():
        raise SkyModelError("empty file", path)
    raise SkyModelError(
        "unrecognised sky file: expected a '# uvlab sky model v1' line or a WSClean "
        "'Format = ...' line",
        path,
    )


def load_sky(
    source: str | os.PathLike,
    *,
    ra0_deg: float | None = None,
    dec0_deg: float | None = None,
    strict: bool = False,
    report=None,
    **demo_kwargs,
) -> SkyModel:
    """A sky model from a file, a demo name or a bundled sky name.

    Parameters
    ----------
    source : str or path
        An existing file (uvlab v1 or WSClean, detected from the header) or a
        CASA component list (a ``.cl`` table folder:
        :mod:`~uvlab.app.skymodel.casa_cl`); else
        a name in :data:`DEMO_SKIES`; else a name from :func:`bundled_skies`.
    ra0_deg, dec0_deg : float, optional
        Phase centre for a demo sky (default :data:`DEFAULT_CENTRE_DEG`), which
        comes back relative to it (``centre_deg``); ignored for files, whose
        components carry their own positions (absolute, unless a uvlab file
        records the centre it was laid out about: ``# centre:``).
    strict : bool
        Refuse (SkyModelError) what a file reader would approximate or ignore.
    report : callable(str), optional
        Called with one line per approximation or ignored feature (without ``strict``).
    **demo_kwargs
        Passed to :func:`demo_sky` (``freq_hz``, ``fov_deg``, ``n``, ``seed``).
    """
    path = Path(source)
    if path.exists():
        return _read_file(path, strict, report)
    name = os.fspath(source).strip()
    if name.lower() in DEMO_SKIES:
        ra0 = DEFAULT_CENTRE_DEG[0] if ra0_deg is None else ra0_deg
        dec0 = DEFAULT_CENTRE_DEG[1] if dec0_deg is None else dec0_deg
        return demo_sky(name, ra0, dec0, **demo_kwargs)
    bundled = bundled_skies()
    if name in bundled:
        return _read_file(bundled[name], strict, report)
    known = ", ".join([*DEMO_SKIES, *bundled])
    raise SkyModelError(f"no such file, demo or bundled sky (known names: {known})", path)
