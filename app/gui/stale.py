"""Never a stale picture unmarked: the image views follow the jobs' outcome.

The dirty image, PSF, uv coverage, sky model and Fourier plane show the last
*image* job's result. When a job for new settings fails (bad input, a source
below the horizon for the whole track, ...) or is cancelled, that result no
longer matches the controls: each view is veiled, with a banner saying why and
what to do (:class:`~uvlab.widgets.stale_overlay.StaleOverlay`). While an image
job runs longer than :data:`RUNNING_GRACE_MS`, a light "Updating" banner says
the picture is the previous one (shorter jobs, as during Play, show none, so
that the views do not flicker). A preview or result of the newest job clears
the mark of each view it draws.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PyQt6 import QtCore

from uvlab.app.lab.jobs import ImageOutput
from uvlab.widgets.stale_overlay import StaleOverlay

if TYPE_CHECKING:
    from uvlab.app.gui.controller import Controller
    from uvlab.app.gui.views import ViewTabs
    from uvlab.app.lab.jobs import JobRequest, JobResult, Partial

#: The views (ViewTabs attributes) that show an image job's result.
MARKED_VIEWS = ("dirty_view", "psf_view", "uv_view", "sky_view", "fourier_view")
#: An image job running longer than this marks the views "Updating".
RUNNING_GRACE_MS = 600
RUNNING_TEXT = "Updating: this is the previous settings' picture"
FAILED_TEXT = "Out of date: the run failed ({reason}). Change the settings and run again."
CANCELLED_TEXT = "Out of date: the run was cancelled. Press Run to bring it up to date."


class StaleViews(QtCore.QObject):
    """Mark and unmark the image views on the controller's job events.

    Parameters
    ----------
    views : ViewTabs
        The views; an overlay is put on each of :data:`MARKED_VIEWS`.
    controller : Controller
        Its ``submitted``, ``partial_ready``, ``result_ready``, ``job_failed``
        and ``job_cancelled`` signals drive the marks.
    """

    def __init__(self, views: ViewTabs, controller: Controller):
        super().__init__(views)
        self.overlays = {
            name: StaleOverlay(getattr(views, name).plot_widget) for name in MARKED_VIEWS
        }
        self._running_task: str | None = None
        self._requests: dict[int, JobRequest] = {}
        #: The request whose image result the views show (None before the first).
        self.shown_request: JobRequest | None = None
        #: The newest image job since the last failure: only its result is current.
        self._current_id: int | None = None
        self._grace = QtCore.QTimer(self, singleShot=True, interval=RUNNING_GRACE_MS)
        self._grace.timeout.connect(self._mark_running)
        controller.submitted.connect(self._on_submitted)
        controller.partial_ready.connect(self._on_partial)
        controller.result_ready.connect(self._on_result)
        controller.job_failed.connect(self._on_failed)
        controller.job_cancelled.connect(self._on_cancelled)

    def text(self, name: str) -> str:
        """The banner on view ``name`` ('' when its picture is current)."""
        return self.overlays[name].text()

    def level(self, name: str) -> str | None:
        """``"running"``, ``"stale"`` or None for view ``name``."""
        return self.overlays[name].level()

    def _mark(self, text: str, level: str, names=MARKED_VIEWS) -> None:
        for name in names:
            self.overlays[name].mark(text, level)

    def _unmark(self, names=MARKED_VIEWS) -> None:
        for name in names:
            self.overlays[name].unmark()

    def _on_submitted(self, request: JobRequest) -> None:
        self._running_task = request.task
        self._grace.stop()
        if request.task == "image":
            self._requests = {request.job_id: request}  # newest wins: older ones never show
            self._current_id = request.job_id
            self._grace.start()

    def _mark_running(self) -> None:
        if self._running_task == "image":
            names = [n for n in MARKED_VIEWS if self.overlays[n].level() != "stale"]
            self._mark(RUNNING_TEXT, "running", names)

    def _on_partial(self, partial: Partial) -> None:
        if self._running_task != "image":
            return
        if partial.dirty is not None:  # the newest data's preview: current, if partial
            self._unmark(("dirty_view",))
        if partial.uv is not None:
            self._unmark(("uv_view",))

    def _on_result(self, result: JobResult) -> None:
        self._grace.stop()
        self._running_task = None
        if isinstance(result.output, ImageOutput) and result.job_id in self._requests:
            self.shown_request = self._requests[result.job_id]
        if isinstance(result.output, ImageOutput) and result.job_id == self._current_id:
            self._unmark()

    def _on_failed(self, message: str) -> None:
        # a failure with no job (invalid input) or of an image job: the controls moved on
        task, self._running_task = self._running_task, None
        self._grace.stop()
        if task in (None, "image"):
            self._current_id = None  # a result still on its way is for older settings
            reason = (message.splitlines() or ["error"])[0].rstrip(".")
            self._mark(FAILED_TEXT.format(reason=reason), "stale")

    def _on_cancelled(self, job_id: int) -> None:
        task, self._running_task = self._running_task, None
        self._grace.stop()
        if task == "image":
            self._mark(CANCELLED_TEXT, "stale")
