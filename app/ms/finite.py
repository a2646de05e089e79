"""No non-finite visibility is ever written: every predicted chunk is checked first.

The sky-file readers cap what they accept at physical values
(:mod:`uvlab.app.skymodel.limits`), but values within the caps can still
overflow together (a steep spectrum far from its reference frequency, a huge
gain on a bright source). :func:`check_chunk` is the last line: a chunk
holding NaN or ±inf refuses the whole write with one line (exit 1) naming the
rows and what made them (:func:`likely_cause`: the first sky component that
gives non-finite values on its own, else the options that scale the
visibilities). The write then rolls back through the commit protocol
(:func:`uvlab.app.ms.column_writer.write_column` for ``uvlab predict``, the
build folder of :func:`uvlab.app.ms.writer.write_ms` for ``uvlab simulate``):
the MeasurementSet is left as it was, and nothing is flagged in its place.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from uvlab.app.ms.errors import MSError

#: Rows of a chunk predicted again, source by source, to find which one overflows.
_PROBE_ROWS = 64
#: Sources tried one by one before giving up on naming one.
_PROBE_SOURCES = 4096


class NonFiniteError(MSError):
    """A predicted chunk holds NaN or ±inf: refused before it is written (exit 1)."""


def count_nonfinite(values) -> int:
    """How many entries of ``values`` (NumPy or CuPy) are NaN or ±inf."""
    ok = np.isfinite(values)
    return int(ok.size - int(ok.sum()))


def check_chunk(values, where: str, cause: Callable[[], str]) -> None:
    """Raise :class:`NonFiniteError` when ``values`` holds NaN or ±inf.

    Parameters
    ----------
    values : array
        The predicted chunk about to be written.
    where : str
        What it is, e.g. ``"ms.ms: MODEL_DATA of rows 0–99"``.
    cause : callable() -> str
        Called only on failure: what made the values (:func:`likely_cause`).
    """
    bad = count_nonfinite(values)
    if bad:
        raise NonFiniteError(
            f"{where}: {bad} of {int(np.size(values))} predicted values are NaN or inf, "
            f"refused: nothing was written; {cause()}"
        )


def likely_cause(
    uvw,
    freq_hz,
    sources,
    *,
    mode: str,
    names=None,
    options: dict | None = None,
    image: bool = False,
) -> str:
    """One phrase naming what most likely made a chunk non-finite.

    Each source is predicted alone (no smearing, no beam) on the chunk's first
    rows: the first that overflows is named, with its flux. Otherwise the
    options that scale the visibilities (``options``: flag → value, those set
    listed), or the image sky.
    """
    from uvlab.gpu.predict import predict_rows

    uvw = np.nan_to_num(np.asarray(uvw, dtype=np.float64)[:_PROBE_ROWS])
    freq = np.asarray(freq_hz, dtype=np.float64)
    nsrc = int(getattr(sources, "nsrc", 0) or 0)
    with np.errstate(all="ignore"):
        for k in range(min(nsrc, _PROBE_SOURCES)):
            b = predict_rows(uvw, freq, sources.select([k]), mode=mode, device="cpu")
            if count_nonfinite(b):
                name = names[k] if names is not None and k < len(names) else f"#{k + 1}"
                iquv = ", ".join(f"{p} = {s:g}" for p, s in zip("IQUV", sources.stokes[k]) if s)
                return (
                    f"sky component {name} ({iquv or 'no flux'} Jy) alone gives them: check its "
                    "flux, size and spectral terms"
                )
    given = [
        f"{flag} {value:g}" if isinstance(value, (int, float)) else f"{flag} {value}"
        for flag, value in (options or {}).items()
        if value
    ]
    what = []
    if given:
        what.append(", ".join(given))
    if image:
        what.append("the image sky")
    if what:
        return f"every sky component is finite alone: check {' and '.join(what)}"
    return "check the sky model's fluxes, sizes and spectral terms"
