"""Session objects built from their JSON with their keys checked (one-line errors).

A session's ``ms``, ``image_sky``, ``clean`` and sky components are dataclasses;
:func:`record` names a wrong or missing key as the file's problem instead of
Python's ``__init__() got an unexpected keyword argument``.
"""

from __future__ import annotations

import dataclasses


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
    fields = dataclasses.fields(cls)
    names = [f.name for f in fields]
    unknown = [k for k in d if k not in names]
    if unknown:
        raise error(f"{key}: unknown key {unknown[0]!r} (expected {', '.join(names)})")
    missing = [
        f.name
        for f in fields
        if f.name not in d
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise error(f"{key}: missing {', '.join(missing)}")
    try:
        return cls(**{**d, **fixed})
    except error:
        raise
    except (TypeError, ValueError) as exc:
        raise error(f"{key}: {' '.join(str(exc).split())}") from None
