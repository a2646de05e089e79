"""Play: the main window's hour-by-hour synthesis animation.

Each frame is a job over one more hour of hour angle; the next frame is
submitted :data:`PLAY_PAUSE_MS` after the previous one's result is shown, until
the observation's whole hour-angle range has been imaged. Any edit stops it.
:class:`PlayActions` is an object the :class:`~uvlab.app.gui.main_window.MainWindow`
holds (``window.play``); what it uses of the window is :class:`PlayHost`. A frame's
hour angles become the model's without an undo step (the animation is not an edit;
it ends on the range it started from).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PyQt6 import QtCore

if TYPE_CHECKING:
    from uvlab.app.gui.controller import Controller
    from uvlab.app.gui.panels import ObservationPanel, RunPanel

#: Pause between the frames of the Play animation, ms.
PLAY_PAUSE_MS = 400


class _Settles(Protocol):
    """What Play asks of the window's model binding (typed here, not imported: no cycle)."""

    def settle(self, *parts: str) -> None: ...


class PlayHost(Protocol):
    """What :class:`PlayActions` uses of the window that holds it."""

    obs_panel: ObservationPanel  # the hour-angle range
    run_panel: RunPanel  # the Play button
    controller: Controller
    binding: _Settles  # each frame's range into the model (the window's ModelBinding)

    def report_error(self, message: str) -> None: ...


class PlayActions:
    """Start and stop the animation; the next frame after each result.

    Parameters
    ----------
    window : PlayHost
        The main window.
    """

    def __init__(self, window: PlayHost) -> None:
        self._window = window
        self._playing = False
        self._target = 0.0  # the hour angle the animation stops at

    def set_playing(self, on: bool) -> None:
        """Start or stop the hour-by-hour synthesis animation (synthetic data only)."""
        w = self._window
        if on and not self._playing:
            if w.obs_panel.source() != "synthetic":
                w.report_error("Play animates a synthetic observation")
                w.run_panel.set_playing(False)
                return
            start, stop = w.obs_panel.ha_range()
            self._target = stop
            self._playing = True
            self._frame(start, min(start + 1.0, stop))
        elif not on and self._playing:
            self._playing = False
        w.run_panel.set_playing(self._playing)

    def is_playing(self) -> bool:
        return self._playing

    def after_result(self) -> None:
        """A result is shown: while playing, the next frame follows after a pause."""
        if self._playing:
            QtCore.QTimer.singleShot(PLAY_PAUSE_MS, self._step)

    def _step(self) -> None:
        if not self._playing:
            return
        start, stop = self._window.obs_panel.ha_range()
        if stop >= self._target - 1e-9:
            self.set_playing(False)
            return
        self._frame(start, min(stop + 1.0, self._target))

    def _frame(self, start: float, stop: float) -> None:
        w = self._window
        w.obs_panel.set_ha_range(start, stop)
        w.binding.settle("observation")
        w.controller.submit()
