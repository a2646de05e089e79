"""A GUI session: the whole lab state as one frozen record and human-readable JSON.

A session holds the data source, the synthetic observation (with any antennas
moved by hand), the sky components, the imaging options, the device, the
opened MeasurementSet selection and compare mode's entries.
:func:`save_session` / :func:`load_session` write and read it;
:func:`from_scene` starts one from a ``uvlab demo`` scene.

Format (``"format": "uvlab session", "version": 1``)::

    {"format": "uvlab session", "version": 1, "source": "synthetic",
     "observation": {ObservationSpec fields, "layout" a name or file path},
     "modified_antennas_enu": null or [[east, north, up], ...] metres,
     "smearing": true,
     "sky": {"name": "...", "components": [{Component fields}, ...]},
     "imaging": {ImagingOptions fields}, "device": "auto",
     "ms": null or {"path": ..., "field": 0, "spw": 0, "column": "DATA", "stokes": "I"},
     "compare": null or [{ImagingOptions fields}, ...]}

``compare`` is optional (files written before it existed load unchanged).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np

from uvlab.app.gui.jobs import DEVICES, SOURCES, ImagingOptions, MSSelection
from uvlab.app.observation import ObservationSpec
from uvlab.app.skymodel import Component, SkyModel

FORMAT = "uvlab session"
VERSION = 1


class SessionError(ValueError):
    """A session file that cannot be read."""


@dataclass(frozen=True)
class SessionState:
    """Everything the GUI shows and computes from (see the module docstring)."""

    observation: ObservationSpec
    source: str = "synthetic"
    modified_antennas_enu: tuple[tuple[float, float, float], ...] | None = None
    smearing: bool = True
    sky: SkyModel = field(default_factory=SkyModel)
    imaging: ImagingOptions = field(default_factory=ImagingOptions)
    device: str = "auto"
    ms: MSSelection | None = None
    compare: tuple[ImagingOptions, ...] | None = None

    def __post_init__(self):
        if self.source not in SOURCES:
            raise SessionError(f"source must be one of {', '.join(SOURCES)}, got {self.source!r}")
        if self.device not in DEVICES:
            raise SessionError(f"device must be one of {', '.join(DEVICES)}, got {self.device!r}")
        if not isinstance(self.observation.layout, str):
            raise SessionError("a session's layout is a name or a file path")

    def to_dict(self) -> dict:
        obs = asdict(self.observation)
        return {
            "format": FORMAT,
            "version": VERSION,
            "source": self.source,
            "observation": obs,
            "modified_antennas_enu": (
                None
                if self.modified_antennas_enu is None
                else [list(map(float, row)) for row in self.modified_antennas_enu]
            ),
            "smearing": bool(self.smearing),
            "sky": {
                "name": self.sky.name,
                "components": [
                    {**asdict(c), "stokes": list(c.stokes)} for c in self.sky.components
                ],
            },
            "imaging": self.imaging.to_dict(),
            "device": self.device,
            "ms": None if self.ms is None else asdict(self.ms),
            "compare": (None if self.compare is None else [o.to_dict() for o in self.compare]),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: dict) -> SessionState:
        if not isinstance(d, dict):
            raise SessionError(f"not a uvlab session (a JSON {type(d).__name__}, not an object)")
        if d.get("format") != FORMAT:
            raise SessionError(f"not a uvlab session (format {d.get('format')!r})")
        if d.get("version") != VERSION:
            raise SessionError(f"unsupported session version {d.get('version')!r}")
        try:
            from uvlab.app.scene import build

            obs = d.get("observation")
            if not isinstance(obs, dict):
                raise SessionError("'observation' is missing or not a JSON object")
            obs_fields = {f.name for f in fields(ObservationSpec)}
            obs = {k: v for k, v in obs.items() if k in obs_fields}  # newer keys are skipped
            obs = build(ObservationSpec, obs, "observation")
            sky = d.get("sky") or {}
            comps = tuple(
                Component(**{**c, "stokes": tuple(c["stokes"])}) for c in sky.get("components", [])
            )
            enu = _antenna_offsets(d.get("modified_antennas_enu"))
            ms = d.get("ms")
            compare = d.get("compare")
            return cls(
                observation=obs,
                source=d.get("source", "synthetic"),
                modified_antennas_enu=None if enu is None else tuple(tuple(r) for r in enu),
                smearing=bool(d.get("smearing", True)),
                sky=SkyModel(comps, sky.get("name", "")),
                imaging=ImagingOptions.from_dict(d.get("imaging", {})),
                device=d.get("device", "auto"),
                ms=None if ms is None else MSSelection(**ms),
                compare=(
                    None if compare is None else tuple(ImagingOptions.from_dict(o) for o in compare)
                ),
            )
        except SessionError:
            raise
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise SessionError(f"bad session: {exc}") from None


def save_session(state: SessionState, path: str | os.PathLike) -> Path:
    """Write ``state`` as JSON, atomically (:mod:`uvlab.app.atomic`); returns the path."""
    from uvlab.app.atomic import write_text

    return write_text(path, state.to_json() + "\n", encoding="utf-8")


def _antenna_offsets(enu):
    """``modified_antennas_enu`` checked: None, or rows of 3 finite metres near the site."""
    if enu is None:
        return None
    from uvlab.app.sites import MAX_LOCAL_OFFSET_M

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


def load_session(path: str | os.PathLike) -> SessionState:
    """Read a session file (:class:`SessionError`, one line naming the file, on failure)."""
    try:
        d = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise SessionError(f"{path}: cannot read the session file: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise SessionError(f"{path}: not a session file (not UTF-8 text)") from None
    except json.JSONDecodeError as exc:
        raise SessionError(f"{path}: not valid JSON: {exc}") from None
    try:
        return SessionState.from_dict(d)
    except SessionError as exc:
        raise SessionError(f"{path}: {exc}") from None


def layout_with_enu(layout, enu):
    """A copy of an :class:`~uvlab.app.layouts.ArrayLayout` with new east/north/up positions.

    Parameters
    ----------
    layout : ArrayLayout
    enu : (nant, 3) float, metres about the layout's site
    """
    from uvlab.app.layouts import ArrayLayout
    from uvlab.app.sites import enu_matrix

    enu = np.asarray(enu, dtype=np.float64).reshape(-1, 3)
    if enu.shape[0] != layout.nant:
        raise ValueError(f"{enu.shape[0]} positions for {layout.nant} antennas")
    rot = enu_matrix(layout.site_lon_rad, layout.site_lat_rad)
    ecef = layout.site_ecef() + enu @ rot
    name = layout.name if layout.name.endswith("(modified)") else f"{layout.name} (modified)"
    return ArrayLayout(
        name,
        layout.antenna_names,
        ecef,
        layout.dish_diameter,
        layout.site_lon_rad,
        layout.site_lat_rad,
        layout.site_height_m,
        layout.source,
    )


def estimate_cell_rad(observation: ObservationSpec, imaging: ImagingOptions) -> float:
    """The pixel size before any uvw exist: the given one, else 1/(3·B_max/λ_min).

    Used to lay out demo skies over the field of view on the GUI thread; the
    job itself derives the cell from the projected uvw (slightly smaller u_max).
    """
    from uvlab.app.layouts import ArrayLayout, load_layout
    from uvlab.gpu.constants import C_LIGHT
    from uvlab.gpu.imaging.spec import ARCSEC, default_cell_rad

    if imaging.cell_arcsec:
        return imaging.cell_arcsec * ARCSEC
    lay = observation.layout
    lay = lay if isinstance(lay, ArrayLayout) else load_layout(lay)
    o = observation
    f_max = max(o.freq_hz, o.freq_hz + (o.nchan - 1) * o.chan_width_hz)
    return default_cell_rad(lay.max_baseline_m() * f_max / C_LIGHT)


def demo_sky_for(
    name: str, observation: ObservationSpec, imaging: ImagingOptions, fov_fraction: float = 0.6
) -> SkyModel:
    """A demo sky spread over ``fov_fraction`` of the image, as ``run_scene`` places it."""
    from uvlab.app.skymodel import load_sky

    fov_deg = math.degrees(imaging.npix * estimate_cell_rad(observation, imaging)) * fov_fraction
    return load_sky(
        name,
        ra0_deg=observation.ra_deg,
        dec0_deg=observation.dec_deg,
        freq_hz=observation.freq_hz,
        fov_deg=fov_deg,
    )


def from_scene(scene, device: str = "auto") -> SessionState:
    """A session from a :class:`~uvlab.app.scene.Scene` (its sky resolved to components)."""
    imaging = ImagingOptions.from_settings(scene.imaging)
    sky = demo_sky_for(scene.sky, scene.observation, imaging, scene.fov_fraction)
    return SessionState(
        observation=scene.observation,
        smearing=scene.smearing,
        sky=sky,
        imaging=imaging,
        device=device,
    )


def default_session() -> SessionState:
    """The GUI's starting state: the embedded ``DEFAULT_SCENE``."""
    from uvlab.app.scene import DEFAULT_SCENE

    return from_scene(DEFAULT_SCENE)
