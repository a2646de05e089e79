"""The main window's sessions, MeasurementSets and lessons.

:class:`SessionActions` is an object the :class:`~uvlab.app.gui.main_window.MainWindow`
holds (``window.session``); what it uses of the window is :class:`SessionHost`.
Loading a session or a lesson's scene is a change of the lab's model (undoable, like
any edit: :meth:`~uvlab.app.gui.window_model.ModelBinding.load`), which the panels
show; saving one writes the model's state. Opening a MeasurementSet puts the previous
data source back if the open fails; a lesson loads its scene and says what to try.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Protocol

from uvlab.app.gui.lessons_menu import lesson_tip
from uvlab.app.lab.state import LabState

if TYPE_CHECKING:
    from PyQt6 import QtWidgets

    from uvlab.app.gui.controller import Controller
    from uvlab.app.gui.lessons_menu import TipBar
    from uvlab.app.gui.panels import ObservationPanel
    from uvlab.app.gui.settings import AppSettings
    from uvlab.app.gui.views import ViewTabs
    from uvlab.app.gui.window_edits import EditActions
    from uvlab.app.gui.window_model import ModelBinding
    from uvlab.app.gui.window_play import PlayActions
    from uvlab.app.lab.jobs import MSSelection
    from uvlab.app.lab.session import SessionState


class SessionHost(Protocol):
    """What :class:`SessionActions` uses of the window that holds it."""

    obs_panel: ObservationPanel  # the MS page
    panel_tabs: QtWidgets.QTabWidget
    views: ViewTabs
    settings: AppSettings  # the recent MeasurementSets
    tips: TipBar  # a lesson's "try this"
    controller: Controller
    binding: ModelBinding
    play: PlayActions
    edits: EditActions  # the array redrawn

    def show_tab(self, name: str) -> None: ...

    def report_error(self, message: str) -> None: ...


class SessionActions:
    """Sessions in, MeasurementSets opened (a failed open undone), lessons loaded.

    Parameters
    ----------
    window : SessionHost
        The main window.
    """

    def __init__(self, window: SessionHost) -> None:
        self._window = window
        # (path, source, MS page) of an MS whose summary has not arrived yet: what a
        # failed open restores
        self._pending_open: tuple[str, str, tuple] | None = None

    def apply_session(self, state: SessionState, *, run: bool = True) -> None:
        """Make ``state`` the lab's (undoable) and show it in the panels; then run (if ``run``)."""
        w = self._window
        w.play.set_playing(False)
        w.binding.load(LabState.from_session(state))
        if run:
            w.controller.submit()

    def select_ms(self, selection: MSSelection) -> None:
        """Show ``selection`` (an MSSelection) in the Observation panel and read it.

        :meth:`FileActions.open_ms` has checked that the path is a
        MeasurementSet and added it to the recent list, which the Observation
        panel shows again. Play stops and a job runs: the summary comes first,
        and with it the old data's views are cleared. If the job fails before
        the summary arrives (a corrupt MS), the previous data source and
        selection come back.
        """
        w = self._window
        # the state to come back to, should this open fail (kept across a second open)
        before = self._pending_open[1:] if self._pending_open else None
        before = before or (w.obs_panel.source(), w.obs_panel.ms.snapshot())
        self._pending_open = (selection.path, *before)
        w.obs_panel.set_recent(w.settings.recent_ms())
        w.obs_panel.set_ms_selection(selection)
        w.binding.commit("observation")  # an edit: Undo goes back to the data before
        w.panel_tabs.setCurrentIndex(0)
        w.play.set_playing(False)
        w.controller.submit()

    def open_succeeded(self, info) -> None:
        """The summary of the MS being opened arrived: the old data's views go."""
        pending = self._pending_open
        if pending is not None and os.path.realpath(info.path) == os.path.realpath(pending[0]):
            self._pending_open = None
            self._window.views.clear_results()

    def open_failed(self) -> None:
        """Put back the data source and MS selection shown before a failed open."""
        if self._pending_open is None:
            return
        w = self._window
        _, source, snap = self._pending_open
        self._pending_open = None
        w.obs_panel.ms.restore(snap)
        w.obs_panel.set_source(source)
        w.binding.settle("observation")
        w.edits.show_layout()

    def load_lesson(self, lesson, scene) -> None:
        """Load a lesson's scene (Help → Lessons), run it, and say what to try."""
        w = self._window
        try:
            state = scene.state()
        except (ValueError, OSError) as exc:
            w.report_error(f"cannot load lesson scene {scene.title!r}: {exc}")
            return
        self.apply_session(state)
        w.show_tab("overview")
        w.tips.show_tip(lesson_tip(lesson, scene), lesson.page_path())
        w.views.log_view.append("info", f"lesson: {lesson.title} — {scene.title}")
