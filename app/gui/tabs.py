"""The main window's view tabs, in one place: key → title → the view that fills the tab.

:data:`VIEW_TABS` is read by the view tabs (:class:`~uvlab.app.gui.views.ViewTabs`
adds its tabs in this order), by :meth:`~uvlab.app.gui.main_window.MainWindow.show_tab`
and the *View* menu, and by ``uvlab gui --tab``. No Qt here: the command's argument
parser reads it without opening a window.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ViewTab:
    """One view tab.

    Attributes
    ----------
    key : str
        Its short name (``show_tab``, ``uvlab gui --tab``).
    title : str
        The tab's text.
    attribute : str or None
        The :class:`~uvlab.app.gui.views.ViewTabs` attribute holding the tab's widget;
        None for the *Compare* tab, which :class:`~uvlab.app.gui.compare_mode.CompareMode`
        inserts before *Timing* with its panel.
    """

    key: str
    title: str
    attribute: str | None


#: The view tabs, in the order they stand.
VIEW_TABS = (
    ViewTab("overview", "Overview", "overview"),
    ViewTab("sky", "Sky model", "sky_view"),
    ViewTab("fourier", "Fourier plane", "fourier_view"),
    ViewTab("beam", "Primary beam", "beam_view"),
    ViewTab("deconvolution", "Deconvolution", "deconv_view"),
    ViewTab("aliasing", "Aliasing", "aliasing_view"),
    ViewTab("pinned", "Pinned", "pin_view"),
    ViewTab("compare", "Compare", None),
    ViewTab("timing", "Timing", "timing_view"),
    ViewTab("log", "Log", "log_view"),
)

#: The tabs' keys, in order.
TAB_KEYS = tuple(t.key for t in VIEW_TABS)


def view_tab(key: str) -> ViewTab:
    """The tab called ``key`` (ValueError naming the keys there are)."""
    for tab in VIEW_TABS:
        if tab.key == key:
            return tab
    raise ValueError(f"unknown tab {key!r}; choose from {', '.join(TAB_KEYS)}")
