"""Pin a state and restore it: Edit → Pin this state (Ctrl+P), and the *Pinned* tab.

The lab state of each image job is noted when the job is submitted (the model's state:
each panel's accepted edit is applied to it, and the job is made from it), so that a
pinned image always goes with the settings that made it, even when the panels have been
edited since (Run on every change off). Restoring applies the
pinned state to the lab's model (:class:`~uvlab.app.lab.state.LabModel`): an undoable
edit, which the panels follow and which runs as any edit does.
"""

from __future__ import annotations

from uvlab.app.lab.jobs import ImageOutput


class PinActions:
    """The window's pinning: which state made the image shown, pin it, restore it.

    ``window`` provides ``views`` (with ``pin_view``), ``controller``, ``model``,
    ``show_tab`` and ``statusBar``.
    """

    def __init__(self, window):
        self.window = window
        self._states: dict[int, object] = {}  # job id → the lab state it was made from
        self._shown = None  # (ImageOutput, JobRequest, LabState) of the image shown
        c = window.controller
        c.submitted.connect(self._on_submitted)
        c.result_ready.connect(self._on_result)
        view = window.views.pin_view
        view.pin_requested.connect(self.pin)
        view.restore_requested.connect(self.restore)

    def _on_submitted(self, request) -> None:
        if request.task == "image":
            self._states = {request.job_id: self.window.model.state}  # newest wins

    def _on_result(self, result) -> None:
        state = self._states.get(result.job_id)
        if isinstance(result.output, ImageOutput) and state is not None:
            self._shown = (result.output, result.request, state)

    def pin(self) -> bool:
        """Pin the image shown with its state; False (and a status line) when none is."""
        w = self.window
        if self._shown is None:
            w.statusBar().showMessage("Nothing to pin yet: run an image first")
            return False
        out, request, state = self._shown
        w.views.pin_view.pin(out, request, state)
        w.show_tab("pinned")
        w.statusBar().showMessage("Pinned: the next images show beside it in the Pinned tab")
        return True

    def restore(self) -> bool:
        """Make the pinned state the lab's (undoable); False when nothing is pinned."""
        state = self.window.views.pin_view.pinned_state
        if state is None:
            return False
        self.window.model.apply(state)
        return True
