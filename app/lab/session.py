"""The saved state: the whole lab as one frozen record and human-readable JSON.

A session holds the data source, the synthetic observation (with any antennas
moved by hand), the sky, the imaging options, the device, the opened
MeasurementSet selection and compare mode's entries. It is the one saved-state
format: the window saves and opens it, ``uvlab demo`` writes the one it ran as
``scene.json`` and reads one with ``--scene``, ``uvlab gui`` opens one with
``--session`` or ``--scene``. :func:`save_session` / :func:`load_session`
write and read it; :data:`DEFAULT_SESSION` is where the window and the demo start.

Format (``"format": "uvlab session", "version": 2``)::

    {"format": "uvlab session", "version": 2, "source": "synthetic",
     "observation": {ObservationSpec fields, "layout" a name or file path},
     "modified_antennas_enu": null or [[east, north, up], ...] metres,
     "smearing": true,
     "sky": {"name": "...", "components": [{Component fields}, ...],
             "centre_deg": [ra, dec] (only for a relative sky)}
            or {"demo": "teaching", "fov_fraction": 0.6},
     "imaging": {ImagingOptions fields}, "device": "auto",
     "ms": null or {"path": ..., "field": 0, "spw": 0, "column": "DATA", "stokes": "I"},
     "compare": null or [{ImagingOptions fields}, ...], "compare_repeats": 3,
     "image_sky": null or {"source": "picture:spiral" or a file path,
                           "width_arcmin": 8.1 or null, "flux_jy": 1.0},
     "clean": null or {CleanOptions fields},
     "clean_fits_mask": null or a FITS mask file's path,
     "corruptions": null or {"jones": {JonesOptions fields}, "sefd_jy": 0.0,
                             "noise_seed": 1}}

``compare_repeats`` (the Compare panel's timed runs of each entry, 1 …
:data:`~uvlab.app.lab.imaging.MAX_REPEATS`; default 3) is optional too.
``image_sky``, ``clean``, ``clean_fits_mask`` and ``corruptions`` (the Instrument tab:
primary beam, gain errors, thermal noise) are optional (files without them load as before):
the image sky is read again from its source when the session is opened
(:meth:`ImageSkySource.load`), and ``clean`` holds the Deconvolution tab's
controls (``clean_fits_mask`` its mask file).

A sky given by name (:class:`NamedSky`: a demo sky, a bundled sky or a sky
file) is spread over ``fov_fraction`` of the image when the session is
resolved (:meth:`SessionState.resolved`), so a change of image size moves its
components with it. A sky of components with ``"centre_deg"`` is relative
(a demo sky, perhaps edited): its components keep their offsets (l, m) from
the observation's phase centre, so changing the observation's RA/Dec moves
them (:meth:`~uvlab.app.skymodel.SkyModel.moved_to`); without the key its
components are absolute. The key is optional, so version 2 did not change:
files without it load as before, and a reader that predates it reads the
sky as absolute.

Older files load unchanged: version 1 sessions (whose imaging says
``padding`` for σ and ``accuracy`` for the choice of ``kernel_size``, and
which may lack ``compare``), and the scene files of ``uvlab demo`` before
version 2 (no ``"format"``; ``"sky"`` a name, ``"fov_fraction"``, and an
``imaging`` object of the fields ``npix``, ``cell_arcsec``, ``weighting``,
``robust``, ``taper_arcsec``, ``algorithm``, ``kernel``, ``eps`` and
``precision``). Scene files are read strictly, as they always were: an
unknown key in ``observation`` or ``imaging`` is an error.

The session's sky (:class:`NamedSky`, :class:`ImageSkySource` and the ``"sky"`` object)
is :mod:`~uvlab.app.lab.session_sky`'s; its parts are checked as they are read by
:mod:`~uvlab.app.lab.session_records`.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from uvlab.app.lab.clean_task import CleanOptions
from uvlab.app.lab.corruptions import Corruptions
from uvlab.app.lab.imaging import COMPARE_REPEATS, DEVICES, MAX_REPEATS, ImagingOptions
from uvlab.app.lab.jobs import SOURCES, JobRequest, MSSelection
from uvlab.app.lab.placement import demo_sky_for, layout_with_enu
from uvlab.app.lab.session_records import (
    SessionError,
    antenna_offsets,
    build,
    optional_path,
    record,
)
from uvlab.app.lab.session_sky import ImageSkySource, NamedSky, sky_from_dict, sky_to_dict
from uvlab.app.observing.observation import ObservationSpec
from uvlab.app.skymodel import SkyModel

FORMAT = "uvlab session"
#: The version written; every version up to it is read.
VERSION = 2


@dataclass(frozen=True)
class SessionState:
    """Everything the lab shows and computes from (see the module docstring).

    ``sky`` is a :class:`~uvlab.app.skymodel.SkyModel`, or a :class:`NamedSky`
    until :meth:`resolved`.
    """

    observation: ObservationSpec
    source: str = "synthetic"
    modified_antennas_enu: tuple[tuple[float, float, float], ...] | None = None
    smearing: bool = True
    sky: SkyModel | NamedSky = field(default_factory=SkyModel)
    imaging: ImagingOptions = field(default_factory=ImagingOptions)
    device: str = "auto"
    ms: MSSelection | None = None
    compare: tuple[ImagingOptions, ...] | None = None
    image_sky: ImageSkySource | None = None
    clean: CleanOptions | None = None
    compare_repeats: int = COMPARE_REPEATS
    corruptions: Corruptions | None = None
    clean_fits_mask: str | None = None

    def __post_init__(self):
        if self.source not in SOURCES:
            raise SessionError(f"source must be one of {', '.join(SOURCES)}, got {self.source!r}")
        if self.device not in DEVICES:
            raise SessionError(f"device must be one of {', '.join(DEVICES)}, got {self.device!r}")
        if not isinstance(self.observation.layout, str):
            raise SessionError("a session's layout is a name or a file path")
        if (
            isinstance(self.compare_repeats, bool)
            or not isinstance(self.compare_repeats, int)
            or not 1 <= self.compare_repeats <= MAX_REPEATS
        ):
            raise SessionError(
                f"compare_repeats must be a whole number 1–{MAX_REPEATS}, "
                f"got {self.compare_repeats!r}"
            )

    def resolved(self) -> SessionState:
        """This state with a :class:`NamedSky` made into components (:func:`demo_sky_for`)."""
        if not isinstance(self.sky, NamedSky):
            return self
        sky = demo_sky_for(self.sky.name, self.observation, self.imaging, self.sky.fov_fraction)
        return replace(self, sky=sky)

    def observation_for_job(self) -> ObservationSpec:
        """The observation, its layout moved where the antennas were dragged (if they were)."""
        if self.modified_antennas_enu is None:
            return self.observation
        from uvlab.app.observing.layouts import load_layout

        layout = layout_with_enu(load_layout(self.observation.layout), self.modified_antennas_enu)
        return replace(self.observation, layout=layout)

    def job_request(self, task: str = "image", **changes) -> JobRequest:
        """The :class:`~uvlab.app.lab.jobs.JobRequest` of this state (its sky resolved).

        ``changes`` set other request fields (``preview``, ``threads``, ``device`` …).
        """
        state = self.resolved()
        fields_ = dict(
            source=state.source,
            imaging=state.imaging,
            device=state.device,
            observation=state.observation_for_job(),
            sky=state.sky,
            smearing=state.smearing,
            ms=state.ms,
            task=task,
            compare=state.compare or (),
            repeats=state.compare_repeats,
            image_sky=None if state.image_sky is None else state.image_sky.load(),
            clean=state.clean,
            corruptions=state.corruptions if state.source == "synthetic" else None,
        )
        return JobRequest(**{**fields_, **changes})

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
            "sky": sky_to_dict(self.sky),
            "imaging": self.imaging.to_dict(),
            "device": self.device,
            "ms": None if self.ms is None else asdict(self.ms),
            "compare": (None if self.compare is None else [o.to_dict() for o in self.compare]),
            "compare_repeats": self.compare_repeats,
            "image_sky": None if self.image_sky is None else asdict(self.image_sky),
            "clean": None if self.clean is None else asdict(self.clean),
            "corruptions": None if self.corruptions is None else self.corruptions.to_dict(),
            "clean_fits_mask": self.clean_fits_mask,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: dict, what: str = "session") -> SessionState:
        """A state from a session's JSON object, or from an older scene file's.

        ``what`` ("session" or "scene") words the error for a file that is no
        JSON object at all.
        """
        if not isinstance(d, dict):
            if what == "scene":
                raise SessionError(f"a scene is a JSON object, got {type(d).__name__}")
            raise SessionError(f"not a uvlab session (a JSON {type(d).__name__}, not an object)")
        if "format" not in d:
            return _from_scene(d)
        if d.get("format") != FORMAT:
            raise SessionError(f"not a uvlab session (format {d.get('format')!r})")
        if d.get("version") not in range(1, VERSION + 1):
            raise SessionError(f"unsupported session version {d.get('version')!r}")
        try:
            obs = d.get("observation")
            if not isinstance(obs, dict):
                raise SessionError("'observation' is missing or not a JSON object")
            obs_fields = {f.name for f in fields(ObservationSpec)}
            obs = {k: v for k, v in obs.items() if k in obs_fields}  # newer keys are skipped
            obs = build(ObservationSpec, obs, "observation")
            enu = antenna_offsets(d.get("modified_antennas_enu"))
            ms = d.get("ms")
            compare = d.get("compare")
            image_sky, clean = d.get("image_sky"), d.get("clean")
            corruptions = d.get("corruptions")
            return cls(
                observation=obs,
                source=d.get("source", "synthetic"),
                modified_antennas_enu=None if enu is None else tuple(tuple(r) for r in enu),
                smearing=bool(d.get("smearing", True)),
                sky=sky_from_dict(d.get("sky") or {}),
                imaging=ImagingOptions.from_dict(d.get("imaging", {})),
                device=d.get("device", "auto"),
                ms=None if ms is None else record(MSSelection, ms, "ms", SessionError),
                compare=(
                    None if compare is None else tuple(ImagingOptions.from_dict(o) for o in compare)
                ),
                image_sky=None
                if image_sky is None
                else record(ImageSkySource, image_sky, "image_sky", SessionError),
                clean=None if clean is None else record(CleanOptions, clean, "clean", SessionError),
                corruptions=None if corruptions is None else Corruptions.from_dict(corruptions),
                clean_fits_mask=optional_path(d.get("clean_fits_mask"), "clean_fits_mask"),
                compare_repeats=d.get("compare_repeats", COMPARE_REPEATS),
            )
        except SessionError:
            raise
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise SessionError(f"bad session: {exc}") from None


def _from_scene(d: dict) -> SessionState:
    """A state from a scene file written before version 2 (strict, as scenes were read)."""
    if "observation" not in d:
        raise SessionError("missing 'observation'")
    try:
        observation = build(ObservationSpec, d["observation"], "observation")
        imaging = d.get("imaging", {})
        try:
            imaging = ImagingOptions.from_dict(imaging, strict=True)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"imaging: {exc}") from None
        return SessionState(
            observation=observation,
            smearing=d.get("smearing", True),
            sky=NamedSky(d.get("sky", "teaching"), d.get("fov_fraction", 0.6)),
            imaging=imaging,
        )
    except SessionError:
        raise
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise SessionError(str(exc)) from None


def save_session(state: SessionState, path: str | os.PathLike) -> Path:
    """Write ``state`` as JSON, atomically (:mod:`uvlab.app.outputs.atomic`); returns the path."""
    from uvlab.app.outputs.atomic import write_text

    return write_text(path, state.to_json() + "\n", encoding="utf-8")


def load_session(
    path: str | os.PathLike, *, what: str = "session", resolve: bool = True
) -> SessionState:
    """Read a session file, or an older scene file (one loader for both).

    Parameters
    ----------
    path : path
    what : {"session", "scene"}
        What the caller asked for, to word the errors (``uvlab demo --scene``
        says "scene").
    resolve : bool
        Make a sky given by name into components (:meth:`SessionState.resolved`);
        ``uvlab demo`` resolves it itself, after its ``--npix``.

    Raises
    ------
    SessionError
        One line naming the file and the problem.
    """
    try:
        d = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise SessionError(f"{path}: cannot read the {what} file: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise SessionError(f"{path}: not a {what} file (not UTF-8 text)") from None
    except json.JSONDecodeError as exc:
        raise SessionError(f"{path}: not valid JSON: {exc}") from None
    try:
        state = SessionState.from_dict(d, what)
        return state.resolved() if resolve else state
    except (SessionError, ValueError) as exc:
        raise SessionError(f"{path}: {exc}") from None


#: The observation the window and ``uvlab demo`` start from: MeerKAT observing at
#: 1.4 GHz for six hours around transit, 2-minute integrations, 4 channels.
DEFAULT_OBSERVATION = ObservationSpec(
    layout="meerkat",
    ra_deg=201.365,
    dec_deg=-43.019,
    ha_start_h=-3.0,
    ha_stop_h=3.0,
    int_s=120.0,
    freq_hz=1.4e9,
    chan_width_hz=2.0e6,
    nchan=4,
)
#: The embedded default state: the "teaching" sky over 0.6 of a DEFAULT_NPIX² image.
DEFAULT_SESSION = SessionState(observation=DEFAULT_OBSERVATION, sky=NamedSky("teaching", 0.6))


def default_session() -> SessionState:
    """The window's starting state: :data:`DEFAULT_SESSION`, its sky resolved."""
    return DEFAULT_SESSION.resolved()
