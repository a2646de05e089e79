"""The main window's answers to the controller's job events.

Partial results (an MS summary, a warning, a CLEAN cycle, a preview image) and
final ones go to the views, the panels, the status bar, the run panel and the
log; a failure or cancel leaves the last good result on screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from uvlab.app.lab.clean_task import CleanState
from uvlab.app.lab.compare_task import CompareOutput
from uvlab.app.lab.jobs import ImageOutput

if TYPE_CHECKING:
    from uvlab.app.lab.jobs import JobRequest, JobResult


class JobEventsMixin:
    """Slots of :class:`~uvlab.app.gui.main_window.MainWindow` for the controller's signals.

    The window provides the panels, ``views``, ``compare``, ``run_panel``,
    ``statusBar``, ``set_playing``, ``_open_succeeded``, ``_open_failed``,
    ``_play_after_result`` and the state ``_last_warning``, ``first_image_s``
    and ``first_result_s``.
    """

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
        from uvlab.app.runtime.process_clock import process_age_s

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
        self._play_after_result()

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
