"""Play: the main window's hour-by-hour synthesis animation.

Each frame is a job over one more hour of hour angle; the next frame is
submitted :data:`PLAY_PAUSE_MS` after the previous one's result is shown, until
the observation's whole hour-angle range has been imaged. Any edit stops it.
"""

from __future__ import annotations

from PyQt6 import QtCore

#: Pause between the frames of the Play animation, ms.
PLAY_PAUSE_MS = 400


class PlayMixin:
    """The Play animation of :class:`~uvlab.app.gui.main_window.MainWindow`.

    The window provides ``obs_panel``, ``run_panel``, ``controller``,
    ``report_error`` and the state ``_playing`` and ``_play_target`` (the
    hour angle the animation stops at).
    """

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

    def _play_after_result(self) -> None:
        """A result is shown: while playing, the next frame follows after a pause."""
        if self._playing:
            QtCore.QTimer.singleShot(PLAY_PAUSE_MS, self._play_step)

    def _play_step(self) -> None:
        if not self._playing:
            return
        start, stop = self.obs_panel.ha_range()
        if stop >= self._play_target - 1e-9:
            self.set_playing(False)
            return
        self.obs_panel.set_ha_range(start, min(stop + 1.0, self._play_target))
        self.controller.submit()
