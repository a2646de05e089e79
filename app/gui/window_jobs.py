"""The main window's answers to the controller's job events.

Partial results (an MS summary, a warning, a CLEAN cycle, a preview image) and
final ones go to the views, the panels, the status bar, the run panel and the
log; a failure or cancel leaves the last good result on screen.
:class:`JobEvents` is an object the :class:`~uvlab.app.gui.main_window.MainWindow`
holds (``window.jobs``); what it uses of the window is :class:`JobHost`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from uvlab.app.gui.stage_names import clean_label
from uvlab.app.lab.clean_state import CleanState
from uvlab.app.lab.compare_task import CompareOutput
from uvlab.app.lab.jobs import ImageOutput

if TYPE_CHECKING:
    from PyQt6 import QtWidgets

    from uvlab.app.gui.compare_mode import CompareMode
    from uvlab.app.gui.controller import Controller
    from uvlab.app.gui.panels import InstrumentPanel, ObservationPanel, RunPanel
    from uvlab.app.gui.views import ViewTabs
    from uvlab.app.gui.window_model import ModelBinding
    from uvlab.app.gui.window_play import PlayActions
    from uvlab.app.gui.window_session import SessionActions
    from uvlab.app.lab.jobs import JobRequest, JobResult


class JobHost(Protocol):
    """What :class:`JobEvents` uses of the window that holds it."""

    obs_panel: ObservationPanel  # an MS's summary
    instrument_panel: InstrumentPanel  # the noise report
    run_panel: RunPanel
    views: ViewTabs
    compare: CompareMode
    controller: Controller
    play: PlayActions  # the next frame after a result; stopped by a failure
    session: SessionActions  # an MS being opened: its summary came, or it failed
    binding: ModelBinding  # an MS's default selection, once its summary came

    def statusBar(self) -> QtWidgets.QStatusBar: ...


class JobEvents:
    """Slots for the controller's signals (connected here).

    Parameters
    ----------
    window : JobHost
        The main window.

    Attributes
    ----------
    first_image_s, first_result_s : float or None
        Seconds from the process's start to the first image on screen (any preview)
        and to the first complete image; None until then (logged once each).
    """

    def __init__(self, window: JobHost) -> None:
        self._window = window
        self._last_warning: str | None = None  # a job's warning is logged once, not per job
        self.first_image_s: float | None = None
        self.first_result_s: float | None = None
        c = window.controller
        c.submitted.connect(self._on_submitted)
        c.partial_ready.connect(self._on_partial)
        c.result_ready.connect(self._on_result)
        c.job_failed.connect(self._on_failed)
        c.job_cancelled.connect(self._on_cancelled)

    def _on_submitted(self, request: JobRequest) -> None:
        w = self._window
        if request.task == "aliasing":
            w.views.aliasing_view.set_running(True)
            w.views.setCurrentWidget(w.views.aliasing_tab)
        deconv = w.views.deconv_view
        if request.task == "clean":
            deconv.set_running(True)
            w.views.setCurrentWidget(w.views.deconv_tab)
        elif deconv.is_running():  # superseded by another job
            deconv.set_cancelled()

    def _on_partial(self, partial) -> None:
        w = self._window
        if partial.info is not None:
            w.session.open_succeeded(partial.info)
            w.obs_panel.set_ms_info(partial.info)
            w.binding.settle("observation")  # the selection the summary gave
        if partial.warning and partial.warning != self._last_warning:
            self._last_warning = partial.warning
            w.statusBar().showMessage(partial.warning)
            w.views.log_view.append("warning", partial.warning)
        if partial.clean is not None:
            w.views.deconv_view.show_state(partial.clean)
            # a cycle is a partial result, not a stage: the run panel says how far CLEAN is
            label = clean_label(partial.clean.iterations, partial.clean.niter)
            if partial.clean.channel_restored is not None:  # "joined CLEAN of N channels, …"
                label = f"{partial.stage}: {label}"
            w.run_panel.set_progress(partial.fraction, label)
        w.views.show_partial(partial, w.obs_panel.source())
        if partial.dirty is not None:
            self._note_first_image()

    def _note_first_image(self, complete: bool = False) -> None:
        from uvlab.app.runtime.process_clock import process_age_s

        w = self._window
        if self.first_image_s is None:
            self.first_image_s = process_age_s()
            w.views.log_view.append(
                "info", f"first image on screen {self.first_image_s:.2f} s after uvlab started"
            )
        if complete and self.first_result_s is None:
            self.first_result_s = process_age_s()

    def _on_result(self, result: JobResult) -> None:
        w = self._window
        elapsed_draw = w.views.show_result(result)
        out = result.output
        if isinstance(out, CompareOutput):
            elapsed_draw, text = w.compare.show_result(result)
        elif isinstance(out, CleanState):
            w.views.deconv_view.show_state(out)
            text = f"CLEAN done in {result.elapsed_s:.2f} s: {out.describe()}"
        elif isinstance(out, ImageOutput):
            self._note_first_image(complete=True)
            if out.info is not None:
                w.obs_panel.set_ms_info(out.info)
                w.binding.settle("observation")
            text = (
                f"Done in {result.elapsed_s:.2f} s on the {out.device.upper()}: "
                f"{out.description}; {out.algorithm} {out.spec.npix}², "
                f"peak {out.dirty.max():.4g} Jy/beam"
            )
            w.instrument_panel.set_noise_report("")  # a MeasurementSet's: none
            if out.noise is not None:
                noise = out.noise.describe()
                w.instrument_panel.set_noise_report(noise[0].upper() + noise[1:])
                if out.noise.expected_jy is not None:  # thermal noise on: say what it gives
                    text += f"; {noise}"
        else:
            text = f"Aliasing maps computed in {result.elapsed_s:.2f} s"
        w.statusBar().showMessage(text)
        w.run_panel.set_status(text)
        w.views.log_view.append(
            "info",
            f"job {result.job_id}: {text} (handed to the views in {1e3 * elapsed_draw:.0f} ms; "
            "each view draws in its own event-loop turn: the Timing tab's display stage)",
        )
        w.play.after_result()

    def _on_failed(self, message: str) -> None:
        w = self._window
        first = message.splitlines()[0] if message else "error"
        w.statusBar().showMessage(f"Error: {first}")
        w.run_panel.set_status(f"Error: {first}")
        w.views.log_view.append("error", message)
        w.session.open_failed()
        if w.views.aliasing_view.is_computed() is False:
            w.views.aliasing_view.mark_stale()
        if w.views.deconv_view.is_running():
            w.views.deconv_view.set_failed(first)
        w.play.set_playing(False)

    def _on_cancelled(self, job_id: int) -> None:
        w = self._window
        if w.views.deconv_view.is_running():
            w.views.deconv_view.set_cancelled()  # the last complete cycle stays
        w.run_panel.set_status("Cancelled")
        w.views.log_view.append("info", f"job {job_id} cancelled")
