"""Session objects built from their JSON with their keys checked (one-line errors).

A session's ``observation``, ``ms``, ``image_sky``, ``clean`` and sky components are
dataclasses; :func:`build` and :func:`record` name a wrong or missing key as the file's
problem instead of Python's ``__init__() got an unexpected keyword argument``.
:func:`optional_path` and :func:`antenna_offsets` check the session's other values.
"""

from __future__ import annotations

import dataclasses

import numpy as np


class SessionError(ValueError):
    """A session (or scene) file that cannot be read; the message names the problem."""


def _keys(cls, d) -> tuple[list[str], list[str], list[str]]:
    """(the field names of ``cls``, the keys of ``d`` not among them, those missing)."""
    fields = dataclasses.fields(cls)
    names = [f.name for f in fields]
    unknown = [k for k in d if k not in names]
    missing = [
        f.name
        for f in fields
        if f.name not in d
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    return names, unknown, missing


def build(cls, d, what: str):
    """``cls(**d)`` for a dataclass, with one-line ValueErrors naming ``what``.

    Refuses a ``d`` that is not a dict, unknown or missing keys, and bad values;
    ``what`` names the part of the file (``observation``, ``imaging``).
    """
    if not isinstance(d, dict):
        raise ValueError(f"{what} must be a JSON object, got {type(d).__name__}")
    known, unknown, missing = _keys(cls, d)
    if unknown:
        raise ValueError(
            f"{what}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(str, unknown))}"
            f" (known: {', '.join(known)})"
        )
    if missing:
        raise ValueError(f"{what}: missing {', '.join(missing)}")
    try:
        return cls(**d)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what}: {exc}") from None


def record(cls, d, key: str, error: type[Exception], **fixed):
    """``cls(**d, **fixed)`` for a session's ``key`` object; ``error(reason)`` when it can't be.

    Parameters
    ----------
    cls : dataclass type
    d : object
        What the JSON holds there (must be an object).
    key : str
        Where it is, for the message (``"image_sky"``, ``"sky: component 2"``).
    error : exception type
        Raised with a one-line reason (the session's ``SessionError``).
    **fixed
        Values replacing those of ``d`` (converted ones).
    """
    if not isinstance(d, dict):
        raise error(f"{key} must be a JSON object, got {type(d).__name__}")
    names, unknown, missing = _keys(cls, d)
    if unknown:
        raise error(f"{key}: unknown key {unknown[0]!r} (expected {', '.join(names)})")
    if missing:
        raise error(f"{key}: missing {', '.join(missing)}")
    try:
        return cls(**{**d, **fixed})
    except error:
        raise
    except (TypeError, ValueError) as exc:
        raise error(f"{key}: {' '.join(str(exc).split())}") from None


def optional_path(value, key: str) -> str | None:
    """A session's optional file path (None, or a non-empty string)."""
    if value is None or (isinstance(value, str) and value):
        return value
    raise SessionError(f"{key} must be a file path or null, got {value!r}")


def antenna_offsets(enu):
    """``modified_antennas_enu`` checked: None, or rows of 3 finite metres near the site."""
    if enu is None:
        return None
    from uvlab.app.observing.sites import MAX_LOCAL_OFFSET_M

    if isinstance(enu, list) and not enu:
        return ()
    try:
        arr = np.asarray(enu, dtype=np.float64)
    except (TypeError, ValueError):
        arr = np.zeros(0)
    if not isinstance(enu, list) or arr.ndim != 2 or arr.shape[1:] != (3,):
        raise SessionError("modified_antennas_enu must be a list of [east, north, up] metres")
    with np.errstate(over="ignore", invalid="ignore"):
        reach = np.hypot(np.hypot(arr[:, 0], arr[:, 1]), arr[:, 2])
    bad = np.flatnonzero(~np.isfinite(reach) | (reach > MAX_LOCAL_OFFSET_M))
    if bad.size:
        raise SessionError(
            f"modified_antennas_enu: antenna {int(bad[0])} at {enu[int(bad[0])]} is not a "
            f"position within {MAX_LOCAL_OFFSET_M / 1e3:.0f} km of the site"
        )
    return tuple(tuple(float(v) for v in row) for row in arr)
