"""The lab state: one frozen record per task, and the model that holds it (issue 26; no Qt).

napari's ``ViewerModel`` is the example (STYLE §8): a :class:`LabState` holds the
whole lab as frozen records, one per task —

- :class:`ObservationRecord`: the data source, the synthetic observation (with any
  antennas moved by hand), smearing, and the MeasurementSet selection;
- :class:`SkyRecord`: the sky's components (or a sky by name) and an image sky;
- :class:`InstrumentRecord`: the primary beam, gain errors and thermal noise;
- :class:`ImagingRecord`: the imaging options with their full
  :class:`~uvlab.gpu.gridders.params.GridParams` (held whole), the device and
  the compare entries and their timed runs;
- :class:`CleanRecord`: the engine's :class:`~uvlab.gpu.deconvolution.options.CleanOptions`
  (held whole: niter, gain, mgain, thresholds, deconvolver, mask boxes, auto-mask,
  sub-minor loop) and a FITS mask file.

A :class:`LabModel` holds the current state, its undo and redo stacks and plain
callbacks that observe it: the window's panels edit it (:meth:`LabModel.apply`), the
window follows it, Undo, Redo and Reset are :meth:`LabModel.undo`, :meth:`LabModel.redo`
and :meth:`LabModel.reset`. :func:`job_request` makes the
:class:`~uvlab.app.lab.jobs.JobRequest` of a state (a pure function; the window's
controller takes its requests from the model through
:class:`~uvlab.app.lab.model_requests.ModelRequests`); sessions
serialise it (:func:`save_lab`, :func:`load_lab`, in the session format of
:mod:`uvlab.app.lab.session`, whose files of every version still load).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from uvlab.app.lab.imaging import COMPARE_REPEATS, DEVICES, MAX_REPEATS, ImagingOptions
from uvlab.app.lab.session import (
    DEFAULT_SESSION,
    ImageSkySource,
    NamedSky,
    SessionState,
    load_session,
    save_session,
)
from uvlab.app.observing.observation import ObservationSpec
from uvlab.app.skymodel import SkyModel
from uvlab.gpu.deconvolution.options import CleanOptions

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np

    from uvlab.app.lab.corruptions import Corruptions
    from uvlab.app.lab.jobs import JobRequest, MSSelection
    from uvlab.gpu.gridders.params import GridParams

#: Undo steps kept (the oldest go first).
UNDO_DEPTH = 200


@dataclass(frozen=True)
class ObservationRecord:
    """Where the data come from.

    Attributes
    ----------
    spec : ObservationSpec
        The synthetic observation; its layout a name or a file path.
    source : {"synthetic", "ms"}
    modified_antennas_enu : tuple of (east, north, up) metres, or None
        The antennas where they were dragged (None: the layout's own).
    smearing : bool
        Time and bandwidth smearing in the prediction.
    ms : MSSelection or None
        The opened MeasurementSet's selection.
    """

    spec: ObservationSpec
    source: str = "synthetic"
    modified_antennas_enu: tuple[tuple[float, float, float], ...] | None = None
    smearing: bool = True
    ms: MSSelection | None = None


@dataclass(frozen=True)
class SkyRecord:
    """The sky: components (or a sky by name, until resolved) and an image sky's source."""

    sky: SkyModel | NamedSky = field(default_factory=SkyModel)
    image_sky: ImageSkySource | None = None


@dataclass(frozen=True)
class InstrumentRecord:
    """The Instrument tab: primary beam, gain errors, thermal noise (None: all off)."""

    corruptions: Corruptions | None = None


@dataclass(frozen=True)
class ImagingRecord:
    """How to image.

    Attributes
    ----------
    options : ImagingOptions
    params : GridParams or None
        The gridder's parameters, whole and exactly as given (``uvlab image``'s
        ``--kernel``, ``--eps``, ``--support``, ``--oversample``, ``--precision``);
        None: those ``options`` give (:meth:`ImagingOptions.grid_params`).
    device : {"auto", "cpu", "gpu"}
    compare : tuple of ImagingOptions, or None
        The Compare panel's entries (None: its default ones).
    compare_repeats : int
        The Compare panel's timed runs of each entry (1 … MAX_REPEATS): a ``compare``
        job's ``repeats``.
    """

    options: ImagingOptions = field(default_factory=ImagingOptions)
    params: GridParams | None = None
    device: str = "auto"
    compare: tuple[ImagingOptions, ...] | None = None
    compare_repeats: int = COMPARE_REPEATS

    def __post_init__(self):
        if self.device not in DEVICES:
            raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {self.device!r}")
        n = self.compare_repeats
        if isinstance(n, bool) or int(n) != n or not 1 <= n <= MAX_REPEATS:
            raise ValueError(
                f"timed runs per entry must be 1–{MAX_REPEATS}, got {self.compare_repeats}"
            )


@dataclass(frozen=True)
class CleanRecord:
    """How to CLEAN: the engine's options whole, and a FITS mask file.

    Attributes
    ----------
    options : CleanOptions
        Deconvolver, niter, gain, mgain, thresholds, auto-mask, mask boxes, the
        sub-minor loop (:mod:`uvlab.gpu.deconvolution.options`).
    fits_mask : str or None
        A FITS image of the image's shape: components only where it is non-zero
        (``uvlab image --fits-mask``; :func:`uvlab.app.lab.clean_mask.read_mask`).
    """

    options: CleanOptions = field(default_factory=CleanOptions)
    fits_mask: str | None = None

    def mask(self, npix: int) -> np.ndarray | None:
        """The (npix, npix) bool mask of ``fits_mask`` in the engine's pixels, or None.

        Raises :class:`~uvlab.app.lab.clean_mask.MaskError` naming the file.
        """
        if self.fits_mask is None:
            return None
        from uvlab.app.lab.clean_mask import read_mask

        return read_mask(self.fits_mask, npix, npix)


@dataclass(frozen=True)
class LabState:
    """The whole lab, one record per task (see the module docstring)."""

    observation: ObservationRecord
    sky: SkyRecord = field(default_factory=SkyRecord)
    instrument: InstrumentRecord = field(default_factory=InstrumentRecord)
    imaging: ImagingRecord = field(default_factory=ImagingRecord)
    clean: CleanRecord = field(default_factory=CleanRecord)

    def with_(self, **records) -> LabState:
        """This state with some records replaced (``state.with_(clean=CleanRecord(...))``)."""
        return replace(self, **records)

    # ------------------------------------------------------------ sessions
    @classmethod
    def from_session(cls, s: SessionState) -> LabState:
        """The records of a session's state (:mod:`uvlab.app.lab.session`)."""
        return cls(
            ObservationRecord(s.observation, s.source, s.modified_antennas_enu, s.smearing, s.ms),
            SkyRecord(s.sky, s.image_sky),
            InstrumentRecord(s.corruptions),
            ImagingRecord(s.imaging, None, s.device, s.compare, s.compare_repeats),
            CleanRecord(s.clean or CleanOptions(), s.clean_fits_mask),
        )

    def session(self) -> SessionState:
        """This state as a session's (what a session file holds; ``params`` is not saved)."""
        o, im = self.observation, self.imaging
        return SessionState(
            observation=o.spec, source=o.source, modified_antennas_enu=o.modified_antennas_enu,
            smearing=o.smearing, sky=self.sky.sky, imaging=im.options, device=im.device,
            ms=o.ms, compare=im.compare, image_sky=self.sky.image_sky,
            clean=self.clean.options, corruptions=self.instrument.corruptions,
            clean_fits_mask=self.clean.fits_mask, compare_repeats=im.compare_repeats,
        )  # fmt: skip

    def resolved(self) -> LabState:
        """This state with a sky given by name made into components."""
        if not isinstance(self.sky.sky, NamedSky):
            return self
        return LabState.from_session(self.session().resolved()).with_(imaging=self.imaging)


def default_state() -> LabState:
    """The state the window and Reset start from: the default scene, its sky resolved."""
    return LabState.from_session(DEFAULT_SESSION.resolved())


def save_lab(state: LabState, path: str | os.PathLike) -> Path:
    """Write ``state`` as a session file (atomically); returns the path."""
    return save_session(state.session(), path)


def load_lab(path: str | os.PathLike) -> LabState:
    """Read a session file of any version, or an older scene file (SessionError naming it)."""
    return LabState.from_session(load_session(path))


def job_request(state: LabState, task: str = "image", **changes) -> JobRequest:
    """The :class:`~uvlab.app.lab.jobs.JobRequest` of ``state`` (a pure function).

    ``changes`` set other request fields (``preview``, ``threads``, ``match`` …). The
    compare entries travel only in a ``compare`` job, the CLEAN record only in a
    ``clean`` job (its FITS mask read here: MaskError naming the file).
    """
    from uvlab.app.lab.jobs import JobRequest

    s = state.resolved()
    o, im, clean = s.observation, s.imaging, s.clean
    fields_ = dict(
        source=o.source, imaging=im.options, device=im.device, sky=s.sky.sky,
        smearing=o.smearing, ms=o.ms, task=task, params=im.params,
        compare=(im.compare or ()) if task == "compare" else (),
        image_sky=None if s.sky.image_sky is None else s.sky.image_sky.load(),
        corruptions=s.instrument.corruptions if o.source == "synthetic" else None,
    )  # fmt: skip
    if o.source == "synthetic":
        fields_["observation"] = s.session().observation_for_job()
    if task == "compare":
        fields_["repeats"] = im.compare_repeats
    if task == "clean":
        fields_["clean"] = clean.options
        fields_["clean_mask"] = clean.mask(im.options.npix)
    return JobRequest(**{**fields_, **changes})


Change = Callable[[LabState], LabState]


class LabModel:
    """The current :class:`LabState`, its undo and redo stacks, and its observers.

    Parameters
    ----------
    state : LabState, optional
        Where to start (default :func:`default_state`); not undoable.
    default : callable() -> LabState, optional
        What :meth:`reset` goes back to (default :func:`default_state`).

    Observers are plain callables ``observer(state)``, called after every change of
    the current state (apply, undo, redo, reset), in the order they were added.
    """

    def __init__(
        self, state: LabState | None = None, *, default: Callable[[], LabState] = default_state
    ) -> None:
        self._default = default
        self._state = state if state is not None else default()
        self._undo: list[LabState] = []
        self._redo: list[LabState] = []
        self._observers: list[Callable[[LabState], None]] = []

    @property
    def state(self) -> LabState:
        return self._state

    def observe(self, observer: Callable[[LabState], None]) -> None:
        """Call ``observer(state)`` after each change of the state."""
        self._observers.append(observer)

    def apply(self, change: Change | LabState) -> LabState:
        """Make ``change`` (a new state, or a function of the current one) the state.

        Undoable; the redo stack is emptied. A change that leaves the state equal
        records nothing and tells no observer. Returns the new state.
        """
        new = change(self._state) if callable(change) else change
        if not isinstance(new, LabState):
            raise TypeError(f"a change must give a LabState, got {type(new).__name__}")
        if new == self._state:
            return new
        self._undo.append(self._state)
        del self._undo[:-UNDO_DEPTH]
        self._redo.clear()
        self._set(new)
        return new

    def amend(self, state: LabState) -> LabState:
        """Make ``state`` the current one without an undo step (observers are told).

        For a state a front end shows in its own steps (a rounded declination, an
        MS's default Stokes once its summary arrived): the same state, as shown.
        """
        if not isinstance(state, LabState):
            raise TypeError(f"a change must give a LabState, got {type(state).__name__}")
        if state != self._state:
            self._set(state)
        return state

    def can_undo(self) -> bool:
        return bool(self._undo)

    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo(self) -> bool:
        """Go back one change; False when there is none."""
        if not self._undo:
            return False
        self._redo.append(self._state)
        self._set(self._undo.pop())
        return True

    def redo(self) -> bool:
        """Make the last undone change again; False when there is none."""
        if not self._redo:
            return False
        self._undo.append(self._state)
        self._set(self._redo.pop())
        return True

    def reset(self) -> LabState:
        """Go to the default scene (undoable, as any change)."""
        return self.apply(self._default())

    def _set(self, state: LabState) -> None:
        self._state = state
        for observer in tuple(self._observers):
            observer(state)
