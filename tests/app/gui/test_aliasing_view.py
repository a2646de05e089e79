"""The Aliasing tab never shows an old error map as the new one (issue 28)."""

from __future__ import annotations

from dataclasses import replace

#: How long a job may take on a busy 2-core machine before the test gives up (a hang guard).
WAIT_MS = 180_000


def test_an_error_map_too_costly_leaves_the_view_empty_and_says_why(
    make_window, small_state, wait_result, monkeypatch
):
    """Computed once at 64², then again with the DFT over its budget: the first map is
    not left under the new result's title; a banner on the view gives the reason, and a
    map computed again clears it."""
    from uvlab.app.lab import compare

    state = replace(small_state, imaging=replace(small_state.imaging, npix=64))
    w = make_window(state)
    wait_result(w, timeout=WAIT_MS)
    view = w.views.aliasing_view
    w.show_tab("aliasing")
    view.compute_button.click()
    first = wait_result(w, timeout=WAIT_MS).output
    assert first.error is not None and view.error_view.image().shape == (64, 64)
    computed_min = view.error_box.minimumSizeHint().width()
    assert view.error_mark.text() == "" and not view.error_mark.isVisible()

    monkeypatch.setitem(compare.DFT_BUDGET, "cpu", 1.0)  # as a 4096² image would be
    view.compute_button.click()
    out = wait_result(w, timeout=WAIT_MS).output
    assert out.error is None and out.analytic is not None
    assert view.error_view.image() is None  # the 64² map is gone
    assert view.error_mark.text().startswith("Error map not computed: the DFT reference needs")
    assert view.error_mark.isVisible() and view.error_mark.level() == "stale"
    assert view.error_mark.text() in out.notes
    assert view.error_box.title() == "Error map: not computed"
    # no wider than with a map: a longer title widened the tab and squeezed the Controls
    # dock to 265 px at 1280×720, its Imaging panel scrolling
    assert view.error_box.minimumSizeHint().width() <= computed_min
    assert not view.metrics.isVisible()

    monkeypatch.undo()
    view.compute_button.click()
    again = wait_result(w, timeout=WAIT_MS).output
    assert again.error is not None and view.error_view.image().shape == (64, 64)
    assert view.error_mark.text() == "" and not view.error_mark.isVisible()
