"""The sky of a session: given by name, as components, or as an image, and its JSON.

A sky given by name (:class:`NamedSky`: a demo sky, a bundled sky or a sky file) is
spread over ``fov_fraction`` of the image when the session is resolved
(:meth:`~uvlab.app.lab.session.SessionState.resolved`); a sky of components is a
:class:`~uvlab.app.skymodel.SkyModel`, relative with ``"centre_deg"``; an image sky is
kept as where it is read from (:class:`ImageSkySource`). :func:`sky_to_dict` and
:func:`sky_from_dict` write and read a session's ``"sky"`` object
(:mod:`uvlab.app.lab.session` describes the format).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from uvlab.app.lab.session_records import SessionError, record
from uvlab.app.skymodel import Component, SkyModel


@dataclass(frozen=True)
class NamedSky:
    """A sky given by name, resolved to components for an observation and an image.

    Attributes
    ----------
    name : str
        A demo sky (``"teaching"``, ``"point"`` …), a bundled sky or a sky file,
        as :func:`uvlab.app.skymodel.load_sky` reads it.
    fov_fraction : float
        A demo sky is spread over this fraction of the image's field of view.
    """

    name: str = "teaching"
    fov_fraction: float = 0.6

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"sky must be a name, got {self.name!r}")
        f = self.fov_fraction
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not 0 < f < math.inf:
            raise ValueError(f"fov_fraction must be a number > 0, got {f!r}")


@dataclass(frozen=True)
class ImageSkySource:
    """Where an image sky comes from: enough to read it again.

    ``source`` is a file path (a picture or a FITS image) or ``picture:NAME``
    (a drawn picture); ``width_arcmin`` a picture's width (None for FITS);
    ``flux_jy`` a picture's total flux.
    """

    source: str
    width_arcmin: float | None = None
    flux_jy: float = 1.0

    def load(self):
        """The :class:`~uvlab.app.skymodel.image_sky.ImageSky` (SkyModelError if unreadable)."""
        from uvlab.app.skymodel.image_sky_files import load_image_sky

        return load_image_sky(self.source, width_arcmin=self.width_arcmin, flux_jy=self.flux_jy)


def sky_to_dict(sky: SkyModel | NamedSky) -> dict:
    """A session's ``sky`` object: a sky by name (``"demo"``), or components."""
    if isinstance(sky, NamedSky):
        return {"demo": sky.name, "fov_fraction": sky.fov_fraction}
    out = {
        "name": sky.name,
        "components": [{**asdict(c), "stokes": list(c.stokes)} for c in sky.components],
    }
    if sky.centre_deg is not None:
        out["centre_deg"] = list(sky.centre_deg)
    return out


def sky_from_dict(sky: dict) -> SkyModel | NamedSky:
    """A session's ``sky`` object: components, or a sky by name (``"demo"``)."""
    if "demo" in sky:
        return NamedSky(sky["demo"], sky.get("fov_fraction", NamedSky.fov_fraction))
    comps = []
    for k, c in enumerate(sky.get("components", [])):
        where = f"sky: component {k}"
        if not isinstance(c, dict):
            raise SessionError(f"{where} must be a JSON object")
        comps.append(record(Component, c, where, SessionError, stokes=tuple(c.get("stokes", ()))))
    comps = tuple(comps)
    centre = sky.get("centre_deg")
    return SkyModel(comps, sky.get("name", ""), None if centre is None else tuple(centre))
