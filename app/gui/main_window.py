"""The uvlab main window: control panels in a dock, result views in the centre.

The window owns the panels (the model), a :class:`~uvlab.app.gui.views.ViewTabs`
and a :class:`~uvlab.app.gui.controller.Controller`, and holds two helpers:
``files`` (:class:`~uvlab.app.gui.window_files.FileActions`: open and save) and
``compare`` (:class:`~uvlab.app.gui.compare_mode.CompareMode`). Every accepted edit
debounces a new job (when *Run on every change* is on); the controller shows
only the newest job's partial and final results, and errors go to the status
bar and the log while the last good result stays on screen.

The window's methods live beside it, one concern a module:
:mod:`~uvlab.app.gui.window_build` (the dock and menus),
:mod:`~uvlab.app.gui.window_session` (requests, sessions, MeasurementSets, lessons),
:mod:`~uvlab.app.gui.window_edits` (edits in the panels and on the views),
:mod:`~uvlab.app.gui.window_jobs` (the controller's job events) and
:mod:`~uvlab.app.gui.window_play` (the Play animation).
"""

from __future__ import annotations

from PyQt6 import QtCore, QtGui, QtWidgets

from uvlab.app.gui.compare_mode import CompareMode
from uvlab.app.gui.controller import Controller
from uvlab.app.gui.figure_actions import FigureActions
from uvlab.app.gui.job_clock import JobClock
from uvlab.app.gui.lessons_menu import TipBar
from uvlab.app.gui.panels import (
    ImagingPanel,
    InstrumentPanel,
    ObservationPanel,
    RunPanel,
    SkyPanel,
)
from uvlab.app.gui.pin_actions import PinActions
from uvlab.app.gui.screen_fit import dock_width, fit_window
from uvlab.app.gui.settings import AppSettings
from uvlab.app.gui.stale import StaleViews
from uvlab.app.gui.views import ViewTabs
from uvlab.app.gui.window_build import build_dock, build_menus
from uvlab.app.gui.window_edits import EditsMixin
from uvlab.app.gui.window_files import FileActions
from uvlab.app.gui.window_jobs import JobEventsMixin
from uvlab.app.gui.window_play import PLAY_PAUSE_MS, PlayMixin
from uvlab.app.gui.window_session import SessionMixin
from uvlab.app.lab.session import SessionState, default_session
from uvlab.app.lab.state import LabModel, LabState

__all__ = ["PLAY_PAUSE_MS", "TAB_TITLES", "MainWindow"]

#: Names accepted by :meth:`MainWindow.show_tab` → the view tab's title.
TAB_TITLES = {
    "overview": "Overview",
    "sky": "Sky model",
    "fourier": "Fourier plane",
    "beam": "Primary beam",
    "deconvolution": "Deconvolution",
    "aliasing": "Aliasing",
    "compare": "Compare",
    "pinned": "Pinned",
    "timing": "Timing",
    "log": "Log",
}


class MainWindow(SessionMixin, EditsMixin, JobEventsMixin, PlayMixin, QtWidgets.QMainWindow):
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
        from uvlab.app.outputs.atomic import save_qimage
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
        self.panel_tabs, self.dock = build_dock(self)
        self.controller = Controller(self.freeze_request, worker, parent=self)
        self.compare = CompareMode(self.controller, self.panel_tabs, self.views)
        self.stale = StaleViews(self.views, self.controller)  # old pictures marked as such
        self.files = FileActions(self)
        self.figures = FigureActions(self)  # Save figure…: captioned PNG/SVG/PDF
        self.pins = PinActions(self)  # Edit → Pin this state; the Pinned tab
        self.clock = JobClock(self.controller, self.run_panel, self.report_notice, self)
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
        state = state or default_session()
        self._following = True  # the panels are being filled: no edit to record
        self._recording = False
        self.run_action, self.lessons_menu = build_menus(self)
        self._connect()
        self.obs_panel.set_recent(self.settings.recent_ms())
        self.apply_session(state, run=False)
        self._shown = self._shown_state()
        #: The lab's state, its undo and redo: the panels' edits are recorded in it
        #: (:meth:`record_edit`), and the panels follow its undo, redo and reset.
        self.model = LabModel(self._shown or LabState.from_session(state))
        self.model.observe(self.follow_state)
        self._following = False
        fit_window(self, restored=self.settings.restore_window(self))
        tabs = self.panel_tabs.tabBar().sizeHint().width()  # the tab bar on the dock's left edge
        self.resizeDocks([self.dock], [dock_width(self) + tabs], QtCore.Qt.Orientation.Horizontal)
        from uvlab.app._version import __version__
        from uvlab.gpu.backend import device_info

        self.views.log_view.append("info", f"uvlab {__version__}; {device_info().describe()}")
        if run_on_start:
            QtCore.QTimer.singleShot(0, self.controller.submit)

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
        v.deconv_view.changed.connect(self.record_edit)
        self.compare.panel.changed.connect(self.record_edit)
        self.sky_panel.field_of_view = self._field_of_view
        c.submitted.connect(self._on_submitted)
        c.progress_changed.connect(self.run_panel.set_progress)
        c.partial_ready.connect(self._on_partial)
        c.result_ready.connect(self._on_result)
        c.job_failed.connect(self._on_failed)
        c.job_cancelled.connect(self._on_cancelled)
        c.busy_changed.connect(self.run_panel.set_busy)
        c.cancelling_changed.connect(self.run_panel.set_cancelling)

    def _shown_state(self) -> LabState | None:
        """The panels' state, or None while a field is invalid."""
        try:
            return self.lab_state()
        except ValueError:
            return None

    # ----------------------------------------------------------------- views
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

    def report_error(self, message: str) -> None:
        """Show a one-line problem in the status bar and the log (panels' ``error``)."""
        self.statusBar().showMessage(message)
        self.views.log_view.append("warning", message)

    def report_notice(self, message: str) -> None:
        """Say something the user should know now (a slow job starting): status bar and log."""
        self.statusBar().showMessage(message)
        self.views.log_view.append("info", message)

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        self._playing = False
        self.settings.save_window(self)
        if not self.controller.shutdown(10_000):  # a long call that cannot be interrupted
            self.statusBar().showMessage("Waiting for the running computation to stop …")
            self.controller.worker.thread.wait()  # never destroy a running QThread
        super().closeEvent(event)
