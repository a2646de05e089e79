"""The uvlab main window: control panels in a dock, result views in the centre.

The window owns the panels (the model), a :class:`~uvlab.app.gui.views.ViewTabs`
and a :class:`~uvlab.app.gui.controller.Controller`, and holds two helpers:
``files`` (:class:`~uvlab.app.gui.window_files.FileActions`: open and save) and
``compare`` (:class:`~uvlab.app.gui.compare_mode.CompareMode`). Every accepted edit
debounces a new job (when *Run on every change* is on); the controller shows
only the newest job's partial and final results, and errors go to the status
bar and the log while the last good result stays on screen.
"""

from __future__ import annotations

import math
import os

from PyQt6 import QtCore, QtGui, QtWidgets

from uvlab.app.gui.compare_mode import CompareMode
from uvlab.app.gui.controller import Controller
from uvlab.app.gui.lessons_menu import TipBar, add_lessons_menu
from uvlab.app.gui.panels import (
    ImagingPanel,
    InstrumentPanel,
    ObservationPanel,
    RunPanel,
    SkyPanel,
)
from uvlab.app.gui.panels.fields import make_narrow
from uvlab.app.gui.screen_fit import dock_width, fit_window, min_dock_width
from uvlab.app.gui.settings import AppSettings
from uvlab.app.gui.views import ViewTabs
from uvlab.app.gui.window_files import FileActions
from uvlab.app.lab.clean_task import CleanState
from uvlab.app.lab.compare_task import CompareOutput
from uvlab.app.lab.jobs import ImageOutput, JobRequest, JobResult
from uvlab.app.lab.placement import demo_sky_for
from uvlab.app.lab.session import SessionState, default_session

#: Pause between the frames of the Play animation, ms.
PLAY_PAUSE_MS = 400

#: Names accepted by :meth:`MainWindow.show_tab` → the view tab's title.
TAB_TITLES = {
    "overview": "Overview",
    "sky": "Sky model",
    "fourier": "Fourier plane",
    "beam": "Primary beam",
    "deconvolution": "Deconvolution",
    "aliasing": "Aliasing",
    "compare": "Compare",
    "timing": "Timing",
    "log": "Log",
}


class MainWindow(QtWidgets.QMainWindow):
    """The desktop lab.

    Parameters
    ----------
    state : SessionState, optional
        What to start from (default :func:`~uvlab.app.lab.session.default_session`).
    settings : AppSettings, optional
        Geometry and recent files (default: the user's QSettings).
    worker : Worker, optional
        Passed to the :class:`Controller` (tests inject one).
    run_on_start : bool
        Submit a job as soon as the event loop runs.

    Attributes
    ----------
    files : FileActions
        Open and save: MeasurementSets, sessions, FITS and PNG (the File menu).
    compare : CompareMode
        The Compare panel and view, and the ``compare`` jobs.
    """

    def __init__(
        self,
        state: SessionState | None = None,
        *,
        settings: AppSettings | None = None,
        worker=None,
        run_on_start: bool = True,
    ):
        super().__init__()
        from uvlab.app.atomic import save_qimage
        from uvlab.widgets import set_image_saver

        set_image_saver(save_qimage)  # the views' PNG exports: atomic, after a space check
        self.setWindowTitle("uvlab — radio interferometry lab")
        self.settings = settings or AppSettings()
        self.views = ViewTabs()
        self.tips = TipBar()
        centre = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(centre)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.tips)
        lay.addWidget(self.views, 1)
        self.setCentralWidget(centre)
        self.statusBar()  # made now: made on the first message, it delayed the first result
        self.obs_panel = ObservationPanel()
        self.instrument_panel = InstrumentPanel()
        self.sky_panel = SkyPanel()
        self.imaging_panel = ImagingPanel()
        self.run_panel = RunPanel()
        self._build_dock()
        self.controller = Controller(self.freeze_request, worker, parent=self)
        self.compare = CompareMode(self.controller, self.panel_tabs, self.views)
        self.files = FileActions(self)
        self._playing = False
        self._play_target = 0.0
        self._last_warning: str | None = None  # a job's warning is logged once, not per job
        # (path, source, MS page) of an MS whose summary has not arrived yet: what a
        # failed open restores
        self._pending_open: tuple[str, str, tuple] | None = None
        #: Seconds from the process's start to the first image on screen (any preview)
        #: and to the first complete image; None until then (logged once each).
        self.first_image_s: float | None = None
        self.first_result_s: float | None = None
        self._build_menus()
        self._connect()
        self.obs_panel.set_recent(self.settings.recent_ms())
        self.apply_session(state or default_session(), run=False)
        fit_window(self, restored=self.settings.restore_window(self))
        tabs = self.panel_tabs.tabBar().sizeHint().width()  # the tab bar on the dock's left edge
        self.resizeDocks([self.dock], [dock_width(self) + tabs], QtCore.Qt.Orientation.Horizontal)
        from uvlab.app._version import __version__
        from uvlab.gpu.backend import device_info

        self.views.log_view.append("info", f"uvlab {__version__}; {device_info().describe()}")
        if run_on_start:
            QtCore.QTimer.singleShot(0, self.controller.submit)

    # -------------------------------------------------------------- building
    def _build_dock(self) -> None:
        self.panel_tabs = QtWidgets.QTabWidget()
        # five titles do not fit across a laptop's narrow dock: the tabs stand on its left edge,
        # where the dock's height holds them whole
        self.panel_tabs.setTabPosition(QtWidgets.QTabWidget.TabPosition.West)
        self.panel_tabs.setUsesScrollButtons(False)
        self.panel_tabs.tabBar().setElideMode(QtCore.Qt.TextElideMode.ElideRight)
        for panel, title in (
            (self.obs_panel, "Observation"),
            (self.instrument_panel, "Instrument"),  # beam, gains, noise
            (self.sky_panel, "Sky model"),
            (self.imaging_panel, "Imaging"),
        ):
            make_narrow(panel)  # the Compare panel's entries narrow themselves
            scroll = QtWidgets.QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
            scroll.setWidget(panel)
            self.panel_tabs.addTab(scroll, title)
            # a narrow dock elides the titles: the whole one on hover
            self.panel_tabs.setTabToolTip(self.panel_tabs.count() - 1, title)
        box = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(box)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.panel_tabs, 1)
        lay.addWidget(self.run_panel)
        self.dock = QtWidgets.QDockWidget("Controls")
        self.dock.setObjectName("controls")
        self.dock.setWidget(box)
        self.dock.setFeatures(
            QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetFloatable
            | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        box.setMinimumWidth(min_dock_width(box) + self.panel_tabs.tabBar().sizeHint().width())
        self.addDockWidget(QtCore.Qt.DockWidgetArea.LeftDockWidgetArea, self.dock)

    def _action(self, menu, text, slot, shortcut=None) -> QtGui.QAction:
        action = menu.addAction(text)
        action.triggered.connect(slot)
        if shortcut:
            action.setShortcut(QtGui.QKeySequence(shortcut))
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        f = bar.addMenu("&File")
        files = self.files
        self._action(f, "Open MeasurementSet…", files.ask_open_ms, "Ctrl+O")
        files.add_recent_menu(f)
        f.addSeparator()
        self._action(f, "Load sky model…", self.sky_panel._ask_load)
        self._action(f, "Save sky model…", self.sky_panel._ask_save)
        f.addSeparator()
        self._action(f, "Open session…", files.ask_load_session)
        self._action(f, "Save session…", files.ask_save_session, "Ctrl+S")
        f.addSeparator()
        self._action(f, "Save dirty image as FITS…", lambda: files.ask_export_fits())
        self._action(f, "Save window as PNG…", files.ask_screenshot)
        f.addSeparator()
        self._action(f, "Quit", self.close, "Ctrl+Q")
        r = bar.addMenu("&Run")
        # lambdas: triggered(bool) must not reach submit()'s ``task`` argument
        self.run_action = self._action(r, "Run", lambda: self.controller.submit(), "Ctrl+R")
        self._action(r, "Cancel", lambda: self.controller.cancel(), "Esc")
        self._action(r, "Compute aliasing maps", lambda: self.controller.submit("aliasing"))
        self._action(r, "Compare algorithms", lambda: self.controller.submit("compare"))
        self._action(r, "Clean", lambda: self.controller.submit("clean"), "Ctrl+L")
        v = bar.addMenu("&View")
        toggle = self.dock.toggleViewAction()
        toggle.setText("Controls")
        toggle.setShortcut(QtGui.QKeySequence("F9"))
        toggle.setToolTip("Show or hide the controls (F9): more room for the images")
        v.addAction(toggle)
        h = bar.addMenu("&Help")
        self.lessons_menu = add_lessons_menu(h, self.load_lesson)
        self._action(h, "Show hints", self.tips.show)

    def _connect(self) -> None:
        c, v = self.controller, self.views
        # connected first: Qt calls slots in connection order, so the sky has
        # moved before _on_edit schedules the run
        self.obs_panel.changed.connect(self._on_observation_edit)
        for panel in (self.obs_panel, self.instrument_panel, self.sky_panel, self.imaging_panel):
            panel.changed.connect(self._on_edit)
            panel.error.connect(self.report_error)
        self.obs_panel.layout_changed.connect(self._show_layout)
        self.obs_panel.array_chosen.connect(self._on_array_chosen)
        self.obs_panel.open_ms_requested.connect(self.files.ask_open_ms)
        self.obs_panel.recent_ms_chosen.connect(self.files.open_ms)
        self.sky_panel.demo_requested.connect(self.use_demo_sky)
        self.sky_panel.placement = self._placement
        self.run_panel.run_clicked.connect(lambda: c.submit())
        self.run_panel.cancel_clicked.connect(c.cancel)
        self.run_panel.play_toggled.connect(self.set_playing)
        v.array_view.antenna_dragged.connect(self._on_antenna_moved)
        v.array_view.antenna_moved.connect(self._on_antenna_moved)
        v.dirty_view.clicked.connect(self._on_image_clicked)
        v.sky_view.clicked.connect(self._on_image_clicked)
        for name, view in (
            ("dirty", v.dirty_view),
            ("psf", v.psf_view),
            ("sky-model", v.sky_view),
            ("aliasing-error", v.aliasing_view.error_view),
            ("aliasing-analytic", v.aliasing_view.analytic_view),
        ):
            view.export_fits_requested.connect(
                lambda view=view, name=name: self.files.ask_export_fits(view, name)
            )
        v.aliasing_view.compute_requested.connect(lambda: c.submit("aliasing"))
        v.deconv_view.clean_requested.connect(lambda: c.submit("clean"))
        self.sky_panel.field_of_view = self._field_of_view
        c.submitted.connect(self._on_submitted)
        c.progress_changed.connect(self.run_panel.set_progress)
        c.partial_ready.connect(self._on_partial)
        c.result_ready.connect(self._on_result)
        c.job_failed.connect(self._on_failed)
        c.job_cancelled.connect(self._on_cancelled)
        c.busy_changed.connect(self.run_panel.set_busy)

    # ----------------------------------------------------------------- model
    def freeze_request(self, task: str = "image") -> JobRequest:
        """Freeze the panels into a JobRequest (GUI thread; ValueError if invalid)."""
        imaging = self.imaging_panel.options()
        device = self.imaging_panel.device()
        sky = self.sky_panel.sky_model()
        compare = self.compare.entries(task, imaging)
        match = self.compare.match_index(task)
        extra = {
            "clean": self.views.deconv_view.options() if task == "clean" else None,
            "image_sky": self.sky_panel.image_sky(),
        }
        if self.obs_panel.source() == "synthetic":
            return JobRequest(
                "synthetic",
                imaging,
                device,
                self.obs_panel.observation_spec(),
                sky,
                self.obs_panel.smearing(),
                task=task,
                compare=compare,
                match=match,
                corruptions=self.instrument_panel.corruptions(),
                **extra,
            )
        sel = self.obs_panel.ms_selection()
        if sel is None:
            raise ValueError("no MeasurementSet opened: use File → Open MeasurementSet…")
        return JobRequest(
            "ms", imaging, device, sky=sky, ms=sel, task=task, compare=compare, match=match,
            **extra,
        )  # fmt: skip

    def session_state(self) -> SessionState:
        """The whole state, for saving (ValueError if a field is invalid)."""
        enu = self.obs_panel.modified_enu()
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
            clean=self.views.deconv_view.options(),
            corruptions=self.instrument_panel.corruptions(),
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
        if state.clean is not None:
            self.views.deconv_view.set_options(state.clean)
        self.imaging_panel.set_options(state.imaging)
        self.imaging_panel.set_device(state.device)
        self.instrument_panel.set_corruptions(state.corruptions)
        if state.ms is not None:
            self.obs_panel.set_ms_selection(state.ms)
        if state.compare is not None:
            self.compare.panel.set_entries(state.compare)
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

    def show_tab(self, name: str) -> None:
        """Bring a view tab to the front by its short name (see :data:`TAB_TITLES`)."""
        if name not in TAB_TITLES:
            raise ValueError(f"unknown tab {name!r}; choose from {', '.join(TAB_TITLES)}")
        if name == "compare":
            self.compare.show()  # its panel too
            return
        if name == "beam":  # its controls too (the panel sits in a scroll area's viewport)
            self.panel_tabs.setCurrentWidget(self.instrument_panel.parentWidget().parentWidget())
        for k in range(self.views.count()):
            if self.views.tabText(k) == TAB_TITLES[name]:
                self.views.setCurrentIndex(k)

    def _placement(self) -> tuple[float, float, float]:
        out = self.views.last_image
        if self.obs_panel.source() == "ms" and out is not None and out.source == "ms":
            return math.degrees(out.ra0_rad), math.degrees(out.dec0_rad), float(out.freq_hz[0])
        spec = self.obs_panel.observation_spec(for_job=False)
        return spec.ra_deg, spec.dec_deg, spec.freq_hz

    # ----------------------------------------------------------------- edits
    def _on_edit(self) -> None:
        if self._playing:  # the animation's own steps do not emit changed
            self.set_playing(False)
        self.views.aliasing_view.mark_stale()
        self.views.deconv_view.mark_stale()
        self.compare.mark_stale()
        if self.run_panel.autorun():
            self.controller.schedule()

    def _on_observation_edit(self) -> None:
        """For each edit of the observation, before :meth:`_on_edit` schedules the run.

        A sky laid out about the phase centre (a demo sky) moves with it, files
        stay put; a field below the elevation limit gets a one-click declination.
        """
        if self.obs_panel.source() != "synthetic":
            self.tips.clear_fix()
            return
        try:
            spec = self.obs_panel.observation_spec(for_job=False)
        except ValueError:
            return
        sky = self.sky_panel.sky_model()
        moved = sky.moved_to(spec.ra_deg, spec.dec_deg)  # itself when absolute or unmoved
        if moved is not sky:
            # no emit: this edit already schedules a run
            self.sky_panel.set_sky_model(moved, keep_image=True)
        self._check_field_visible(spec)

    def _on_array_chosen(self, _name: str) -> None:
        """Another array: when its site cannot see the field, point where it can, and say so."""
        from uvlab.app.elevation import with_visible_declination

        try:
            spec = self.obs_panel.observation_spec(for_job=False)
            moved, note = with_visible_declination(spec)
        except ValueError:
            return
        if moved.dec_deg != spec.dec_deg:
            self.obs_panel.set_declination(moved.dec_deg)  # the array's own edit runs it
        if note:
            self.statusBar().showMessage(note)
            self.views.log_view.append("warning", note)
            self.tips.show_tip(note)

    def _check_field_visible(self, spec) -> None:
        """Offer a one-click declination when the field is below the elevation limit."""
        from uvlab.app.elevation import field_visibility, visible_declination_for

        try:
            problem = field_visibility(spec)
            dec = visible_declination_for(spec) if problem else None
        except ValueError:
            return
        if problem is None or dec is None or dec == spec.dec_deg:
            self.tips.clear_fix()
            return
        self.tips.show_fix(
            f"{problem}.",
            f"Use Dec {dec:+g}°",
            lambda: self.obs_panel.set_declination(dec, emit=True),
        )
        self.statusBar().showMessage(problem)

    def report_error(self, message: str) -> None:
        """Show a one-line problem in the status bar and the log (panels' ``error``)."""
        self.statusBar().showMessage(message)
        self.views.log_view.append("warning", message)

    def _show_layout(self) -> None:
        if self.obs_panel.source() == "synthetic" and self.obs_panel.layout() is not None:
            self.views.set_antennas(self.obs_panel.layout())

    def _on_antenna_moved(self, index: int, east: float, north: float) -> None:
        if self.obs_panel.source() == "synthetic":
            self.obs_panel.move_antenna(index, east, north)
            return
        out = self.views.last_image  # a MeasurementSet's antennas stay where they are
        if out is not None and out.antennas is not None:
            self.views.set_antennas(out.antennas)
        self.statusBar().showMessage("The antennas of a MeasurementSet cannot be moved")

    def _on_image_clicked(self, l: float, m: float) -> None:
        out = self.views.last_image
        if out is None:
            return
        centre = self.sky_panel.sky_model().centre_deg  # a relative sky: about its own centre
        ra0, dec0 = (out.ra0_rad, out.dec0_rad) if centre is None else map(math.radians, centre)
        comp = self.sky_panel.add_point_at(l, m, ra0, dec0)
        if comp is not None:
            self.views.log_view.append(
                "info",
                f"added {comp.name} ({comp.stokes[0]:g} Jy) "
                f"at RA {comp.ra_deg:.5f}°, Dec {comp.dec_deg:.5f}°",
            )

    def _field_of_view(self) -> float | None:
        """The last image's width, radians (None before the first image)."""
        out = self.views.last_image
        return None if out is None else out.spec.npix * out.spec.cell_rad

    def use_demo_sky(self, name: str) -> None:
        """Replace the sky by a demo sky spread over the field of view."""
        try:
            out = self.views.last_image
            if self.obs_panel.source() == "ms" and out is not None and out.source == "ms":
                from uvlab.app.skymodel import load_sky

                fov = math.degrees(out.spec.npix * out.spec.cell_rad) * 0.6
                ra, dec, f = self._placement()
                sky = load_sky(name, ra0_deg=ra, dec0_deg=dec, freq_hz=f, fov_deg=fov)
            else:
                sky = demo_sky_for(
                    name, self.obs_panel.observation_spec(), self.imaging_panel.options()
                )
        except ValueError as exc:
            self.report_error(f"cannot make demo sky {name!r}: {exc}")
            return
        self.sky_panel.set_sky_model(sky, emit=True)

    # ------------------------------------------------------------ job events
    def _on_submitted(self, request: JobRequest) -> None:
        if request.task == "aliasing":
            self.views.aliasing_view.set_running(True)
            self.views.setCurrentWidget(self.views.aliasing_tab)
        deconv = self.views.deconv_view
        if request.task == "clean":
            deconv.set_running(True)
            self.views.setCurrentWidget(self.views.deconv_tab)
        elif deconv.is_running():  # superseded by another job
            deconv.set_cancelled()

    def _on_partial(self, partial) -> None:
        if partial.info is not None:
            self._open_succeeded(partial.info)
            self.obs_panel.set_ms_info(partial.info)
        if partial.warning and partial.warning != self._last_warning:
            self._last_warning = partial.warning
            self.statusBar().showMessage(partial.warning)
            self.views.log_view.append("warning", partial.warning)
        if partial.clean is not None:
            self.views.deconv_view.show_state(partial.clean)
        self.views.show_partial(partial, self.obs_panel.source())
        if partial.dirty is not None:
            self._note_first_image()

    def _note_first_image(self, complete: bool = False) -> None:
        from uvlab.app.process_clock import process_age_s

        if self.first_image_s is None:
            self.first_image_s = process_age_s()
            self.views.log_view.append(
                "info", f"first image on screen {self.first_image_s:.2f} s after uvlab started"
            )
        if complete and self.first_result_s is None:
            self.first_result_s = process_age_s()

    def _on_result(self, result: JobResult) -> None:
        elapsed_draw = self.views.show_result(result)
        out = result.output
        if isinstance(out, CompareOutput):
            elapsed_draw, text = self.compare.show_result(result)
        elif isinstance(out, CleanState):
            self.views.deconv_view.show_state(out)
            text = f"CLEAN done in {result.elapsed_s:.2f} s: {out.describe()}"
        elif isinstance(out, ImageOutput):
            self._note_first_image(complete=True)
            if out.info is not None:
                self.obs_panel.set_ms_info(out.info)
            text = (
                f"Done in {result.elapsed_s:.2f} s on the {out.device.upper()}: "
                f"{out.description}; {out.algorithm} {out.spec.npix}², "
                f"peak {out.dirty.max():.4g} Jy/beam"
            )
            self.instrument_panel.set_noise_report("")  # a MeasurementSet's: none
            if out.noise is not None:
                noise = out.noise.describe()
                self.instrument_panel.set_noise_report(noise[0].upper() + noise[1:])
                if out.noise.expected_jy is not None:  # thermal noise on: say what it gives
                    text += f"; {noise}"
        else:
            text = f"Aliasing maps computed in {result.elapsed_s:.2f} s"
        self.statusBar().showMessage(text)
        self.run_panel.set_status(text)
        self.views.log_view.append(
            "info",
            f"job {result.job_id}: {text} (handed to the views in {1e3 * elapsed_draw:.0f} ms; "
            "each view draws in its own event-loop turn: the Timing tab's display stage)",
        )
        if self._playing:
            QtCore.QTimer.singleShot(PLAY_PAUSE_MS, self._play_step)

    def _on_failed(self, message: str) -> None:
        first = message.splitlines()[0] if message else "error"
        self.statusBar().showMessage(f"Error: {first}")
        self.run_panel.set_status(f"Error: {first}")
        self.views.log_view.append("error", message)
        self._open_failed()
        if self.views.aliasing_view.is_computed() is False:
            self.views.aliasing_view.mark_stale()
        if self.views.deconv_view.is_running():
            self.views.deconv_view.set_failed(first)
        self.set_playing(False)

    def _on_cancelled(self, job_id: int) -> None:
        if self.views.deconv_view.is_running():
            self.views.deconv_view.set_cancelled()  # the last complete cycle stays
        self.run_panel.set_status("Cancelled")
        self.views.log_view.append("info", f"job {job_id} cancelled")

    # ------------------------------------------------------------------ play
    def set_playing(self, on: bool) -> None:
        """Start or stop the hour-by-hour synthesis animation (synthetic data only)."""
        if on and not self._playing:
            if self.obs_panel.source() != "synthetic":
                self.report_error("Play animates a synthetic observation")
                self.run_panel.set_playing(False)
                return
            start, stop = self.obs_panel.ha_range()
            self._play_target = stop
            self._playing = True
            self.obs_panel.set_ha_range(start, min(start + 1.0, stop))
            self.controller.submit()
        elif not on and self._playing:
            self._playing = False
        self.run_panel.set_playing(self._playing)

    def is_playing(self) -> bool:
        return self._playing

    def _play_step(self) -> None:
        if not self._playing:
            return
        start, stop = self.obs_panel.ha_range()
        if stop >= self._play_target - 1e-9:
            self.set_playing(False)
            return
        self.obs_panel.set_ha_range(start, min(stop + 1.0, self._play_target))
        self.controller.submit()

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        self._playing = False
        self.settings.save_window(self)
        if not self.controller.shutdown(10_000):  # a long call that cannot be interrupted
            self.statusBar().showMessage("Waiting for the running computation to stop …")
            self.controller.worker.thread.wait()  # never destroy a running QThread
        super().closeEvent(event)
