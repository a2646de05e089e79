"""The Observation panel's width: only the page shown (synthetic or MeasurementSet) sets it.

At 1280×720 the controls dock gives the panel ~273 px; in the window the MeasurementSet
page's rows needed 284, so while it was hidden it still cut the synthetic page's combo and
spin-box arrows (issue 28's projector size).
"""

from __future__ import annotations

from uvlab.app.gui.panels.observation_panel import ObservationPanel


def test_only_the_page_shown_sets_the_panels_width(qtbot):
    panel = ObservationPanel()
    qtbot.addWidget(panel)
    pages = [panel.stack.widget(k) for k in range(panel.stack.count())]
    wider_hidden = False
    for source, page in zip(("synthetic", "ms"), pages, strict=True):
        panel.set_source(source)
        own = page.minimumSizeHint().width()
        others = [p.minimumSizeHint().width() for p in pages if p is not page]
        wider_hidden |= max(others) > own
        assert panel.stack.minimumSizeHint().width() == own, source
    assert wider_hidden  # in one of the two a hidden page is the wider one
