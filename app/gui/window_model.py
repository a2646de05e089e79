"""The panels and the lab's model: each accepted edit applied, each model change shown.

:class:`ModelBinding` is an object the :class:`~uvlab.app.gui.main_window.MainWindow`
holds (``window.binding``); what it uses of the window is :class:`ModelHost`.

- **Edits in.** A panel's accepted edit (its ``changed``) becomes
  ``model.apply(...)`` of that panel's record (:meth:`ModelBinding.commit`): the
  Observation panel's :class:`~uvlab.app.lab.state.ObservationRecord` (with the sky,
  which a demo sky moves with the phase centre), the Sky panel's, the Instrument
  panel's, the Imaging panel's with the Compare panel's entries, the Deconvolution
  tab's :class:`~uvlab.app.lab.state.CleanRecord`. An edit whose record cannot be
  made (a field not accepted: the panel's ``error``, or a ValueError reading it) is
  refused in the model's requests, so that a run says why until it is put right.
- **States out.** The binding observes the model: a state the panels did not make
  (Undo, Redo, Reset, a restored pin, a loaded session or lesson) is shown in the
  panels, and what they show in their own steps (a rounded declination, the default
  Compare entries) becomes the model's state without an undo step
  (:meth:`~uvlab.app.lab.state.LabModel.amend`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from uvlab.app.lab.state import LabState

if TYPE_CHECKING:
    from uvlab.app.gui.compare_mode import CompareMode
    from uvlab.app.gui.panels import ImagingPanel, InstrumentPanel, ObservationPanel, SkyPanel
    from uvlab.app.gui.views import ViewTabs
    from uvlab.app.gui.window_edits import EditActions
    from uvlab.app.gui.window_play import PlayActions
    from uvlab.app.lab.model_requests import ModelRequests
    from uvlab.app.lab.state import LabModel

#: The records of a LabState, in the order the panels stand.
PARTS = ("observation", "sky", "instrument", "imaging", "clean")


class ModelHost(Protocol):
    """What :class:`ModelBinding` uses of the window that holds it."""

    obs_panel: ObservationPanel
    sky_panel: SkyPanel
    instrument_panel: InstrumentPanel
    imaging_panel: ImagingPanel
    views: ViewTabs  # the Deconvolution tab's CLEAN controls
    compare: CompareMode  # the Compare panel's entries
    model: LabModel
    requests: ModelRequests
    play: PlayActions  # stopped when another state is shown
    edits: EditActions  # the array redrawn; stale views and a run after Undo, Redo, Reset


class ModelBinding:
    """The panels' edits applied to ``window.model``; the model's other changes shown.

    Parameters
    ----------
    window : ModelHost
        The main window.
    """

    def __init__(self, window: ModelHost) -> None:
        self._window = window
        self._following = False  # the panels are being filled: their edits are not recorded
        self._recording = False  # the model changes by the panels' hand: nothing to show
        self._running = True  # a shown state runs (when Run on every change is on)
        window.model.observe(self._follow)

    def connect_panels(self) -> None:
        """Apply each panel's accepted edits (connect before the slots that run a job)."""
        w = self._window
        for part, signal in (
            (("observation", "sky"), w.obs_panel.changed),  # a demo sky moves with the field
            (("sky",), w.sky_panel.changed),
            (("instrument",), w.instrument_panel.changed),
            (("imaging",), w.imaging_panel.changed),
            (("imaging",), w.compare.panel.changed),
            (("clean",), w.views.deconv_view.changed),
        ):
            signal.connect(lambda *_, part=part: self.commit(*part))
        for part, panel in (
            ("observation", w.obs_panel),
            ("sky", w.sky_panel),
            ("instrument", w.instrument_panel),
            ("imaging", w.imaging_panel),
            ("imaging", w.compare.panel),  # an entry's field
        ):  # a field not accepted: until it is put right, a run says so
            panel.error.connect(lambda message, part=part: self._check(part, message))

    # ------------------------------------------------------------ records
    def record(self, part: str):
        """The record the panels show for ``part`` (one of :data:`PARTS`; ValueError)."""
        w = self._window
        if part == "observation":
            return w.obs_panel.record()
        if part == "sky":
            return w.sky_panel.record()
        if part == "instrument":
            return w.instrument_panel.record()
        if part == "imaging":
            options = w.imaging_panel.options()
            panel = w.compare.panel
            return w.imaging_panel.record(panel.entries(options), panel.repeats())
        if part == "clean":
            return w.views.deconv_view.record()
        raise ValueError(f"unknown part {part!r}; choose from {', '.join(PARTS)}")

    def shown_state(self) -> LabState:
        """The whole state the panels show (ValueError if a field is invalid)."""
        return LabState(**{part: self.record(part) for part in PARTS})

    def commit(self, *parts: str) -> bool:
        """Apply the panels' records of ``parts`` to the model: one undo step when they changed.

        An invalid field is refused (the model's requests raise its message until it
        is put right); returns False then, and while the panels follow the model.
        """
        if self._following:
            return False
        w, records = self._window, {}
        for part in parts:
            try:
                records[part] = self.record(part)
            except ValueError as exc:
                w.requests.refuse(part, str(exc))
                return False
            w.requests.accept(part)
        if "sky" in records:  # read once already: a job does not read its file again
            w.requests.keep_image_sky(records["sky"].image_sky, w.sky_panel.image_sky())
        self._apply(lambda state: state.with_(**records))
        return True

    def _check(self, part: str, message: str) -> None:
        """A panel's ``error``: refuse its edit when its record cannot be made now.

        Other errors (a file not read, an antenna not moved) leave the panel's state
        as it was, and nothing is refused.
        """
        if self._following:
            return
        try:
            self.record(part)
        except ValueError:
            self._window.requests.refuse(part, message)

    def settle(self, *parts: str) -> None:
        """Make what the panels show of ``parts`` the model's, without an undo step.

        For changes that are not edits: a Play frame, an MS's default Stokes once
        its summary arrived, a failed open put back.
        """
        try:
            records = {part: self.record(part) for part in parts}
        except ValueError:
            return
        self._recording = True
        try:
            self._window.model.amend(self._window.model.state.with_(**records))
        finally:
            self._recording = False

    def _apply(self, change: Callable[[LabState], LabState] | LabState) -> None:
        self._recording = True
        try:
            self._window.model.apply(change)
        finally:
            self._recording = False

    # -------------------------------------------------------------- states
    def load(self, state: LabState) -> None:
        """Make ``state`` the model's (undoable) and show it, without a run of its own."""
        self._running = False
        try:
            self._window.model.apply(state)
        finally:
            self._running = True

    def show(self, state: LabState) -> None:
        """Show ``state`` in the panels; the model takes what they show (no undo step)."""
        w = self._window
        self._following = True
        try:
            _show_in_panels(w, state)
            w.requests.accept()  # the panels show the model: nothing refused
            w.requests.keep_image_sky(w.sky_panel.image_source(), w.sky_panel.image_sky())
            try:
                shown = self.shown_state()
            except ValueError:
                shown = None
            if shown is not None and shown != w.model.state:
                self._recording = True
                try:
                    w.model.amend(shown)
                finally:
                    self._recording = False
        finally:
            self._following = False

    def _follow(self, state: LabState) -> None:
        """The model's observer: show a state the panels did not make."""
        self._window.views.deconv_view.clean_controls.set_channels(observation_channels(state))
        if self._recording:
            return
        self.show(state)
        if self._running:
            self._window.edits.on_edit()  # stale views, and a run when Run on every change is on

    # ------------------------------------------------------------- actions
    def undo(self) -> None:
        """Edit → Undo: the state before the last edit (the panels follow)."""
        self._window.model.undo()

    def redo(self) -> None:
        """Edit → Redo: the last undone edit again."""
        self._window.model.redo()

    def reset(self) -> None:
        """Edit → Reset: the default scene (undoable); the Compare entries go back too."""
        self._window.model.reset()


def observation_channels(state: LabState) -> int | None:
    """The channels of ``state``'s observation: the synthetic one's, an MS selection's
    range (None: all of an MS's, not known here)."""
    obs = state.observation
    if obs.source != "ms":
        return int(obs.spec.nchan)
    chans = None if obs.ms is None else obs.ms.channels
    return None if chans is None or chans[1] is None else int(chans[1] - chans[0])


def _show_in_panels(w: ModelHost, state: LabState) -> None:
    """Fill the panels with ``state`` (their ``changed`` is not recorded meanwhile)."""
    s = state.session()
    w.play.set_playing(False)
    w.obs_panel.set_observation(s.observation, s.modified_antennas_enu, s.smearing)
    w.sky_panel.set_image_sky(None)
    w.sky_panel.set_sky_model(s.sky)
    if s.image_sky is not None:  # read again from its file (or drawn): may fail
        w.sky_panel.load_image_source(s.image_sky, emit=False, replace_components=False)
    w.views.deconv_view.clean_controls.set_channels(observation_channels(state))
    w.views.deconv_view.set_record(state.clean)
    w.imaging_panel.set_options(s.imaging)
    w.imaging_panel.set_device(s.device)
    w.instrument_panel.set_corruptions(s.corruptions)
    if s.ms is not None:
        w.obs_panel.set_ms_selection(s.ms)
    # a state without entries (the default scene) has the default ones, and the last
    # comparison is no longer that of the state shown
    w.compare.set_entries(s.compare, s.compare_repeats)
    w.obs_panel.set_source(s.source)
    w.edits.show_layout()
