"""QSettings persistence: recent files and window geometry, in a private INI file."""

from __future__ import annotations

from uvlab.app.gui.settings import MAX_RECENT


def test_recent_files_newest_first_unique_and_capped(settings, tmp_path):
    assert settings.recent_ms() == []
    paths = [str(tmp_path / f"obs{k}.ms") for k in range(MAX_RECENT + 2)]
    for p in paths:
        settings.add_recent_ms(p)
    settings.add_recent_ms(paths[3])
    got = settings.recent_ms()
    assert got[0] == paths[3] and len(got) == MAX_RECENT and len(set(got)) == MAX_RECENT
    assert got[1:] == [p for p in reversed(paths) if p != paths[3]][: MAX_RECENT - 1]
    settings.add_recent("session", tmp_path / "a.json")
    assert settings.recent("session") == [str(tmp_path / "a.json")]  # one item survives INI


def test_window_geometry_and_docks_are_restored(make_window, small_state, settings, qtbot):
    w = make_window(small_state, run_on_start=False)
    w.dock.hide()
    qtbot.wait(10)  # let the layout drop the dock's minimum width
    # within the 800 × 800 offscreen screen (no clamping), not under the window's minimum
    target = (max(700, w.minimumSizeHint().width()), 600)
    w.resize(*target)
    qtbot.wait(10)
    size = (w.width(), w.height())
    w.close()
    w2 = make_window(small_state, run_on_start=False)
    assert not w2.dock.isVisible()  # dock state restored when the window was built
    assert (w2.width(), w2.height()) == (1400, 900)  # make_window resized it afterwards
    assert settings.restore_window(w2)
    assert (w2.width(), w2.height()) == size == target
