"""The main window's state in and out: the lab state, job requests, sessions, MeasurementSets.

The window's :class:`~uvlab.app.lab.state.LabModel` (``model``) holds the lab's
state: :meth:`SessionMixin.record_edit` makes the panels' state the model's (an undo
step); the window observes the model (:meth:`SessionMixin.follow_state`), so that Undo,
Redo and Reset show their state in the panels. :meth:`SessionMixin.freeze_request`
records the panels and makes the controller's :class:`~uvlab.app.lab.jobs.JobRequest`
from the model's state (:func:`~uvlab.app.lab.state.job_request`);
:meth:`SessionMixin.session_state` and :meth:`SessionMixin.apply_session` save
and restore the whole state; opening a MeasurementSet puts the previous data
source back if the open fails; a lesson loads its scene and says what to try.
"""

from __future__ import annotations

import os

from uvlab.app.lab.jobs import JobRequest
from uvlab.app.lab.session import SessionState
from uvlab.app.lab.state import LabState, job_request


class SessionMixin:
    """State methods of :class:`~uvlab.app.gui.main_window.MainWindow`.

    The window provides the panels, ``views``, ``compare``, ``controller``,
    ``panel_tabs``, ``settings``, ``tips``, ``set_playing``, ``show_tab``,
    ``report_error``, ``_show_layout`` and the state ``_pending_open``: (path,
    source, MS page) of an MS whose summary has not arrived yet.
    """

    def freeze_request(self, task: str = "image") -> JobRequest:
        """The JobRequest of the panels' state, recorded in the model (GUI thread; ValueError).

        The panels' state, not the model's: a state the panels follow is shown in
        their fields' steps (a rounded declination, the Compare tab's default entries).
        """
        state = self.lab_state()
        self.record_edit()
        return job_request(
            state, task, match=self.compare.match_index(task),
            image_sky=self.sky_panel.image_sky(),  # loaded already: not read again
        )  # fmt: skip

    def lab_state(self) -> LabState:
        """The panels' state as the lab's records (ValueError if a field is invalid)."""
        return LabState.from_session(self.session_state())

    def record_edit(self) -> None:
        """Make the panels' state the model's (an undo step when it changed).

        Invalid fields record nothing. Edits made while the panels follow the model
        (:meth:`follow_state`) are not recorded.
        """
        if self._following:
            return
        try:
            state = self.lab_state()
        except ValueError:
            return
        if state == self._shown:  # the panels show the model's state still (rounded)
            return
        self._shown = state
        self._recording = True
        try:
            self.model.apply(state)
        finally:
            self._recording = False

    def follow_state(self, state: LabState) -> None:
        """The model's observer: show a state the panels did not make (undo, redo, reset)."""
        if self._recording:
            return
        self._following = True
        try:
            self.apply_session(state.session(), run=False)
            self._shown = self._shown_state()
            self._on_edit()  # stale views, and a run when Run on every change is on
        finally:
            self._following = False

    def undo(self) -> None:
        """Edit → Undo: the state before the last edit (the panels follow)."""
        self.record_edit()  # an edit not recorded yet is the one to undo
        self.model.undo()

    def redo(self) -> None:
        """Edit → Redo: the last undone edit again."""
        self.model.redo()

    def reset(self) -> None:
        """Edit → Reset: the default scene (undoable); the Compare entries go back too."""
        self.record_edit()
        self.model.reset()

    def session_state(self) -> SessionState:
        """The whole state, for saving (ValueError if a field is invalid)."""
        enu = self.obs_panel.modified_enu()
        clean = self.views.deconv_view.record()
        return SessionState(
            observation=self.obs_panel.observation_spec(for_job=False),
            source=self.obs_panel.source(),
            modified_antennas_enu=None if enu is None else tuple(map(tuple, enu.tolist())),
            smearing=self.obs_panel.smearing(),
            sky=self.sky_panel.sky_model(),
            imaging=self.imaging_panel.options(),
            device=self.imaging_panel.device(),
            ms=self.obs_panel.ms_selection(),
            compare=self.compare.panel.entries(self.imaging_panel.options()),
            image_sky=self.sky_panel.image_source(),
            clean=clean.options,
            corruptions=self.instrument_panel.corruptions(),
            clean_fits_mask=clean.fits_mask,
        )

    def apply_session(self, state: SessionState, *, run: bool = True) -> None:
        """Show ``state`` in the panels; then run once (if ``run``)."""
        self.set_playing(False)
        self.obs_panel.set_observation(
            state.observation, state.modified_antennas_enu, state.smearing
        )
        self.sky_panel.set_image_sky(None)
        self.sky_panel.set_sky_model(state.sky)
        if state.image_sky is not None:  # read again from its file (or drawn): may fail
            self.sky_panel.load_image_source(state.image_sky, emit=False, replace_components=False)
        self.views.deconv_view.set_record(LabState.from_session(state).clean)
        self.imaging_panel.set_options(state.imaging)
        self.imaging_panel.set_device(state.device)
        self.instrument_panel.set_corruptions(state.corruptions)
        if state.ms is not None:
            self.obs_panel.set_ms_selection(state.ms)
        # a state without entries (the default scene) has the default ones, and the last
        # comparison is no longer that of the state shown
        self.compare.set_entries(state.compare)
        self.obs_panel.set_source(state.source)
        self._show_layout()
        if run:
            self.controller.submit()

    def select_ms(self, selection) -> None:
        """Show ``selection`` (an MSSelection) in the Observation panel and read it.

        :meth:`FileActions.open_ms` has checked that the path is a
        MeasurementSet and added it to the recent list, which the Observation
        panel shows again. Play stops and a job runs: the summary comes first,
        and with it the old data's views are cleared. If the job fails before
        the summary arrives (a corrupt MS), the previous data source and
        selection come back.
        """
        # the state to come back to, should this open fail (kept across a second open)
        before = self._pending_open[1:] if self._pending_open else None
        before = before or (self.obs_panel.source(), self.obs_panel.ms.snapshot())
        self._pending_open = (selection.path, *before)
        self.obs_panel.set_recent(self.settings.recent_ms())
        self.obs_panel.set_ms_selection(selection)
        self.panel_tabs.setCurrentIndex(0)
        self.set_playing(False)
        self.controller.submit()

    def _open_succeeded(self, info) -> None:
        """The summary of the MS being opened arrived: the old data's views go."""
        pending = self._pending_open
        if pending is not None and os.path.realpath(info.path) == os.path.realpath(pending[0]):
            self._pending_open = None
            self.views.clear_results()

    def _open_failed(self) -> None:
        """Put back the data source and MS selection shown before a failed open."""
        if self._pending_open is None:
            return
        _, source, snap = self._pending_open
        self._pending_open = None
        self.obs_panel.ms.restore(snap)
        self.obs_panel.set_source(source)
        self._show_layout()

    def load_lesson(self, lesson, scene) -> None:
        """Load a lesson's scene (Help → Lessons), run it, and say what to try."""
        try:
            state = scene.state()
        except (ValueError, OSError) as exc:
            self.report_error(f"cannot load lesson scene {scene.title!r}: {exc}")
            return
        self.apply_session(state)
        self.show_tab("overview")
        self.tips.show_tip(f"{lesson.title} — {scene.title}: {scene.try_this}", lesson.page_path())
        self.views.log_view.append("info", f"lesson: {lesson.title} — {scene.title}")
