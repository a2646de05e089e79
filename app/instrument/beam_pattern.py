"""Polarised primary beams: one FITS beam cube per Jones element and real/imaginary part.

The convention of Montblanc's ``FitsBeamSourceProvider``, codex-africanus
(``africanus/util/beams.py``, used by ``africanus/rime/examples/predict.py`` with
``beam_cube_dde``) and MeqTrees: a filename pattern with two placeholders,

- ``$(corr)``: the Jones element, ``xx``, ``xy``, ``yx``, ``yy`` for linear feeds or
  ``rr``, ``rl``, ``lr``, ``ll`` for circular ones (``$(CORR)``: upper case, ``XX``);
- ``$(reim)``: ``re`` or ``im``, the real or imaginary part (``$(REIM)``: ``RE``, ``IM``);

so that ``beam_$(corr)_$(reim).fits`` names ``beam_xx_re.fits``, ``beam_xx_im.fits``, …,
``beam_yy_im.fits``; ``$$`` is a literal ``$``. Each file is a beam cube of
:mod:`uvlab.app.instrument.beam_cube` (axes L/M[/FREQ]). They are stacked, as africanus' example
reshapes its (…, 4) correlations to (…, 2, 2), into ``E[ν, m, l, 2, 2]`` with
``E = [[xx, xy], [yx, yy]]`` (``[[rr, rl], [lr, ll]]``), ``E_ij = re + i·im``.

Missing files: as in Montblanc, a file that is not there is 0 for its element and part
(only the diagonal files: no leakage; only ``re`` files: a real pattern). The real parts
of both diagonal elements are required (a beam without one would see nothing in that
feed); the basis is the one whose files are there (files of both bases are refused).
Every file present must lie on the same grid as the first: the same (start, step, count)
on the l, m and frequency axes, as africanus demands of all its headers. A missing
required file, a file on another grid, a non-finite value or a bad WCS is a
:class:`~uvlab.app.instrument.beam_cube.BeamCubeError`: one line naming the file and the problem.
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import numpy as np

from uvlab.app.instrument.beam_cube import (
    BeamCube,
    BeamCubeError,
    check_not_zero,
    read_cube_file,
    write_beam_cube,
)

#: Jones elements by feed basis, in the order of E's (2, 2) axes: [[0, 1], [2, 3]].
CORRELATIONS = {"linear": ("xx", "xy", "yx", "yy"), "circular": ("rr", "rl", "lr", "ll")}
REIM = ("re", "im")
_PLACEHOLDERS = {"corr", "CORR", "reim", "REIM"}


class _Template(string.Template):
    """``$(name)`` placeholders (string.Template's are ``${name}``), as Montblanc's."""

    pattern = r"""
    \$(?:
      (?P<escaped>\$) |
      (?P<named>(?!))  |
      \((?P<braced>[_a-zA-Z][_a-zA-Z0-9]*)\) |
      (?P<invalid>)
    )
    """


def is_pattern(text: str) -> bool:
    """True when ``text`` names a pattern set (it has a ``$(…)`` placeholder)."""
    return re.search(r"\$\([A-Za-z_]\w*\)", str(text)) is not None


_MEMBER = re.compile(r"^(.*)(xx|xy|yx|yy|rr|rl|lr|ll)(.*?)(re|im)(.*)$", re.IGNORECASE)


def pattern_of(path: str) -> str | None:
    """The pattern set a picked file belongs to, or None.

    ``/b/beam_xx_re.fits`` → ``/b/beam_$(corr)_$(reim).fits`` (``$(CORR)``/``$(REIM)`` for
    upper-case names) when the set's two required files (the real parts of the diagonal,
    ``xx`` and ``yy`` or ``rr`` and ``ll``) are there; None for a file of no such set (a
    scalar beam cube). What a file dialog returns, turned into what ``--primary-beam`` takes.
    """
    p = Path(path)
    match = _MEMBER.match(p.name)
    if match is None:
        return None
    head, corr, mid, reim, tail = match.groups()
    corr_ph = "$(CORR)" if corr.isupper() else "$(corr)"
    reim_ph = "$(REIM)" if reim.isupper() else "$(reim)"

    def esc(text: str) -> str:
        return text.replace("$", "$$")

    pattern = str(p.with_name(f"{esc(head)}{corr_ph}{esc(mid)}{reim_ph}{esc(tail)}"))
    for feeds, corrs in CORRELATIONS.items():
        names = pattern_filenames(pattern, feeds)
        if all(Path(names[c, "re"]).is_file() for c in (corrs[0], corrs[3])):
            return pattern
    return None


def pattern_filenames(pattern: str, feeds: str) -> dict[tuple[str, str], str]:
    """``{(corr, reim): file name}`` of ``pattern`` for the four elements of ``feeds``.

    A pattern needs a corr and a reim placeholder (either case) and no other.
    """
    pattern = str(pattern)
    template = _Template(pattern)
    names = set(re.findall(r"\$\(([A-Za-z_]\w*)\)", pattern.replace("$$", "")))
    unknown = sorted(names - _PLACEHOLDERS)
    if unknown:
        raise BeamCubeError(
            f"{pattern}: unknown placeholder $({unknown[0]}) (use $(corr) and $(reim))"
        )
    if not names & {"corr", "CORR"} or not names & {"reim", "REIM"}:
        raise BeamCubeError(
            f"{pattern}: a beam pattern needs both $(corr) and $(reim), e.g. "
            "beam_$(corr)_$(reim).fits"
        )
    out = {}
    for corr in CORRELATIONS[feeds]:
        for part in REIM:
            try:
                out[corr, part] = template.substitute(
                    corr=corr, CORR=corr.upper(), reim=part, REIM=part.upper()
                )
            except ValueError:
                raise BeamCubeError(f"{pattern}: a '$' that is not $(…) or $$") from None
    return out


def load_beam_pattern(pattern: str) -> BeamCube:
    """Read a pattern set into a Jones :class:`BeamCube` (the module docstring: the rules)."""
    pattern = str(pattern)
    found = {}
    for feeds in CORRELATIONS:
        names = pattern_filenames(pattern, feeds)
        found[feeds] = {k: v for k, v in names.items() if Path(v).is_file()}
    if found["linear"] and found["circular"]:
        a, b = next(iter(found["linear"].values())), next(iter(found["circular"].values()))
        raise BeamCubeError(f"{pattern}: files of linear ({a}) and circular ({b}) feeds")
    if not found["linear"] and not found["circular"]:
        example = pattern_filenames(pattern, "linear")["xx", "re"]
        raise BeamCubeError(f"{pattern}: no beam file matches (no {example}, nor rr, …)")
    feeds = "linear" if found["linear"] else "circular"
    names = pattern_filenames(pattern, feeds)
    corrs = CORRELATIONS[feeds]
    for corr in (corrs[0], corrs[3]):
        if (corr, "re") not in found[feeds]:
            raise BeamCubeError(
                f"{names[corr, 're']}: no such file (the real parts of {corrs[0]} and "
                f"{corrs[3]} are required; other missing elements are 0)"
            )
    ref_name = names[corrs[0], "re"]
    ref = read_cube_file(ref_name)
    data = np.zeros((*ref[0].shape, 2, 2), dtype=np.complex128)
    for k, corr in enumerate(corrs):
        for part in REIM:
            name = found[feeds].get((corr, part))
            if name is None:
                continue
            plane, *axes = ref if name == ref_name else read_cube_file(name)
            _check_grid(name, axes, ref_name, ref[1:])
            if part == "re":
                data[..., k // 2, k % 2].real = plane
            else:
                data[..., k // 2, k % 2].imag = plane
    check_not_zero(data, pattern)
    return BeamCube(data, *ref[1:], source=pattern, feeds=feeds)


def _check_grid(name: str, axes, ref_name: str, ref_axes) -> None:
    """``name``'s (l, m, freq) axes must be ``ref_name``'s (to 1e-9 of a step)."""
    for label, got, want in zip(("l", "m", "frequency"), axes, ref_axes, strict=True):
        g0, gd, gn = got
        w0, wd, wn = want
        tol = 1e-9 * abs(wd) if wn > 1 else 1e-9 * max(abs(w0), 1.0)
        same = gn == wn and abs(g0 - w0) <= tol and (wn == 1 or abs(gd - wd) <= tol)
        if not same:
            raise BeamCubeError(
                f"{name}: its {label} axis ({_describe(got)}) is not that of {ref_name} "
                f"({_describe(want)}); every file of a beam pattern needs the same grid"
            )


def _describe(axis) -> str:
    start, step, n = axis
    return f"{n} from {start:.9g} by {step:.9g}"


def write_beam_pattern(
    pattern: str, data, l_axis, m_axis, freq_axis, feeds: str = "linear"
) -> list[str]:
    """Write ``data[ν, m, l, 2, 2]`` (complex Jones matrices) as the eight files of ``pattern``.

    Axes as :func:`~uvlab.app.instrument.beam_cube.write_beam_cube` (l, m in radians); returns the
    file names, in the order xx re, xx im, xy re, …, yy im.
    """
    data = np.asarray(data)
    if data.ndim != 5 or data.shape[-2:] != (2, 2):
        raise ValueError(f"a beam pattern's data is (freq, m, l, 2, 2), got {data.shape}")
    if feeds not in CORRELATIONS:
        raise ValueError(f"feeds must be linear or circular, got {feeds!r}")
    names = pattern_filenames(pattern, feeds)
    written = []
    for k, corr in enumerate(CORRELATIONS[feeds]):
        element = data[..., k // 2, k % 2]
        for part, values in (("re", element.real), ("im", element.imag)):
            write_beam_cube(names[corr, part], values, l_axis, m_axis, freq_axis)
            written.append(names[corr, part])
    return written
