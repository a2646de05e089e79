"""The main window's Play animation (uvlab.app.gui.window_play)."""

from __future__ import annotations


def test_play_grows_the_hour_angle_range(make_window, small_state, wait_result, qtbot, monkeypatch):
    import uvlab.app.gui.window_play as play

    monkeypatch.setattr(play, "PLAY_PAUSE_MS", 10)
    w = make_window(small_state)
    wait_result(w)
    stops = []
    w.controller.result_ready.connect(lambda r: stops.append(r.request.observation.ha_stop_h))
    w.run_panel.play_button.click()
    qtbot.waitUntil(lambda: not w.play.is_playing(), timeout=30_000)
    assert stops == [-2.0, -1.0, 0.0, 1.0, 2.0, 3.0]
    assert w.obs_panel.ha_range() == (-3.0, 3.0) and w.run_panel.play_button.text() == "▶ Play"
