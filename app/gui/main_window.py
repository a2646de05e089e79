"""The uvlab main window: control panels in a dock, result views in the centre.

The window is a ``QMainWindow`` composed of helpers, each in its own module with a
small Protocol of what it uses of the window:

- ``model`` (:class:`~uvlab.app.lab.state.LabModel`, no Qt): the lab's state, its
  undo and redo; ``requests`` (:class:`~uvlab.app.lab.model_requests.ModelRequests`):
  the controller's job requests, made from the model's state;
- ``binding`` (:class:`~uvlab.app.gui.window_model.ModelBinding`): each panel's
  accepted edit applied to the model, and the model's other changes shown;
- ``edits`` (:class:`~uvlab.app.gui.window_edits.EditActions`): what an edit does
  next (a run), and edits made on the views;
- ``jobs`` (:class:`~uvlab.app.gui.window_jobs.JobEvents`): the controller's job events;
- ``play`` (:class:`~uvlab.app.gui.window_play.PlayActions`): the Play animation;
- ``session`` (:class:`~uvlab.app.gui.window_session.SessionActions`): sessions,
  MeasurementSets, lessons;
- ``files``, ``compare``, ``pins``, ``figures``, ``stale``, ``clock``, ``lecture``.

Every accepted edit debounces a new job (when *Run on every change* is on); the
controller shows only the newest job's partial and final results, and errors go to the
status bar and the log while the last good result stays on screen. The dock and menus
are built by :mod:`~uvlab.app.gui.window_build`; the view tabs are listed once, in
:mod:`~uvlab.app.gui.tabs`.
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
from uvlab.app.gui.stage_names import stage_label
from uvlab.app.gui.stale import StaleViews
from uvlab.app.gui.tabs import view_tab
from uvlab.app.gui.views import ViewTabs
from uvlab.app.gui.window_build import build_dock, build_menus
from uvlab.app.gui.window_edits import EditActions
from uvlab.app.gui.window_files import FileActions
from uvlab.app.gui.window_jobs import JobEvents
from uvlab.app.gui.window_model import ModelBinding
from uvlab.app.gui.window_play import PlayActions
from uvlab.app.gui.window_session import SessionActions
from uvlab.app.lab.model_requests import ModelRequests
from uvlab.app.lab.session import SessionState, default_session
from uvlab.app.lab.state import LabModel, LabState

__all__ = ["MainWindow"]


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
    model : LabModel
        The lab's state, its undo and redo (the panels edit it; they show its changes).
    requests : ModelRequests
        The job requests of the model's state (the controller's ``freeze``).
    binding : ModelBinding
        The panels' edits into the model, its other changes into the panels.
    edits, jobs, play, session : EditActions, JobEvents, PlayActions, SessionActions
        The window's answers to edits, to job events, Play, and sessions and MSs.
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
        lay.setSpacing(0)  # the hint bar's own background sets it apart from the views
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
        state = state or default_session()
        #: The lab's state, its undo and redo: each panel's accepted edit is applied to
        #: it, the panels show its other changes, and jobs are made from it.
        self.model = LabModel(LabState.from_session(state))
        self.requests = ModelRequests(self.model)
        self.controller = Controller(self.requests, worker, parent=self)
        self.compare = CompareMode(self.controller, self.panel_tabs, self.views)
        self.requests.match = self.compare.match_index  # Match conv: which entry
        self.stale = StaleViews(self.views, self.controller)  # old pictures marked as such
        self.files = FileActions(self)
        self.figures = FigureActions(self)  # Save figure…: captioned PNG/SVG/PDF
        self.pins = PinActions(self)  # Edit → Pin this state; the Pinned tab
        self.clock = JobClock(self.controller, self.run_panel, self.report_notice, self)
        self.play = PlayActions(self)
        self.edits = EditActions(self)
        self.session = SessionActions(self)
        self.binding = ModelBinding(self)
        self.run_action, self.lessons_menu = build_menus(self)
        self._connect()
        self.jobs = JobEvents(self)
        self.obs_panel.set_recent(self.settings.recent_ms())
        self.binding.show(self.model.state)  # the model takes what the panels show
        fit_window(self, restored=self.settings.restore_window(self))
        tabs = self.panel_tabs.tabBar().sizeHint().width()  # the tab bar on the dock's left edge
        self.resizeDocks([self.dock], [dock_width(self) + tabs], QtCore.Qt.Orientation.Horizontal)
        from uvlab.app._version import __version__
        from uvlab.gpu.backend import device_info

        self.views.log_view.append("info", f"uvlab {__version__}; {device_info().describe()}")
        if run_on_start:
            QtCore.QTimer.singleShot(0, self.controller.submit)

    def _connect(self) -> None:
        c, v, e = self.controller, self.views, self.edits
        # Qt calls slots in connection order: the sky moves with the field, then the
        # model records the edit, then a run is scheduled from the model's state
        self.obs_panel.changed.connect(e.on_observation_edit)
        self.binding.connect_panels()
        for panel in (self.obs_panel, self.instrument_panel, self.sky_panel, self.imaging_panel):
            panel.changed.connect(e.on_edit)
            panel.error.connect(self.report_error)
        self.compare.panel.error.connect(self.report_error)  # an entry's field not accepted
        self.obs_panel.layout_changed.connect(e.show_layout)
        self.obs_panel.array_chosen.connect(e.on_array_chosen)
        self.obs_panel.open_ms_requested.connect(self.files.ask_open_ms)
        self.obs_panel.recent_ms_chosen.connect(self.files.open_ms)
        self.sky_panel.demo_requested.connect(e.use_demo_sky)
        self.sky_panel.placement = e.placement
        self.sky_panel.field_of_view = e.field_of_view
        self.run_panel.run_clicked.connect(lambda: c.submit())
        self.run_panel.cancel_clicked.connect(c.cancel)
        self.run_panel.play_toggled.connect(self.play.set_playing)
        v.array_view.antenna_dragged.connect(e.on_antenna_moved)
        v.array_view.antenna_moved.connect(e.on_antenna_moved)
        v.dirty_view.clicked.connect(e.on_image_clicked)
        v.sky_view.clicked.connect(e.on_image_clicked)
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
        c.progress_changed.connect(self._show_progress)
        c.busy_changed.connect(self.run_panel.set_busy)
        c.cancelling_changed.connect(self.run_panel.set_cancelling)

    # ------------------------------------------------------- the window's API
    def lab_state(self) -> LabState:
        """The state the panels show, read back (ValueError if a field is invalid).

        The lab's state is ``model.state``; the two are equal but while a field is invalid.
        """
        return self.binding.shown_state()

    def select_ms(self, selection) -> None:
        """Open an MS selection (:meth:`SessionActions.select_ms`; :class:`FileHost`)."""
        self.session.select_ms(selection)

    def apply_session(self, state: SessionState, *, run: bool = True) -> None:
        """Load ``state`` (:meth:`SessionActions.apply_session`; :class:`FileHost`)."""
        self.session.apply_session(state, run=run)

    def _show_progress(self, fraction: float, stage: str) -> None:
        """The newest job's progress in the run panel, its kind and stage in words."""
        request = self.controller.latest_request
        task = None if request is None else request.task
        self.run_panel.set_progress(fraction, stage_label(task, stage))

    # ----------------------------------------------------------------- views
    def show_tab(self, name: str) -> None:
        """Bring a view tab to the front by its key (:data:`~uvlab.app.gui.tabs.VIEW_TABS`)."""
        tab = view_tab(name)  # ValueError naming the keys
        if tab.attribute is None:  # the Compare tab: its panel too
            self.compare.show()
            return
        if name == "beam":  # its controls too (the panel sits in a scroll area's viewport)
            self.panel_tabs.setCurrentWidget(self.instrument_panel.parentWidget().parentWidget())
        self.views.setCurrentWidget(getattr(self.views, tab.attribute))

    def report_error(self, message: str) -> None:
        """Show a one-line problem in the status bar and the log (panels' ``error``)."""
        self.statusBar().showMessage(message)
        self.views.log_view.append("warning", message)

    def report_notice(self, message: str) -> None:
        """Say something the user should know now (a slow job starting): status bar and log."""
        self.statusBar().showMessage(message)
        self.views.log_view.append("info", message)

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        self.play.set_playing(False)
        self.settings.save_window(self)
        if not self.controller.shutdown(10_000):  # a long call that cannot be interrupted
            self.statusBar().showMessage("Waiting for the running computation to stop …")
            self.controller.worker.thread.wait()  # never destroy a running QThread
        super().closeEvent(event)
