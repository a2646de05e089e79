"""Compare mode in the main window: the Compare panel and tab, wired to the controller.

:class:`CompareMode` is an object the :class:`~uvlab.app.gui.main_window.MainWindow`
holds (``window.compare``). It is given the three things it uses: the
controller, the window's panel tabs and its view tabs. A comparison is a job
like any other (``controller.submit("compare")``): it runs in the worker, is
cancellable, and a newer job supersedes it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PyQt6 import QtCore, QtWidgets

from uvlab.app.gui.compare_panel import DEFAULT_ALGORITHMS, ComparePanel
from uvlab.app.gui.compare_view import CompareView
from uvlab.app.lab.imaging import COMPARE_REPEATS, ImagingOptions
from uvlab.app.lab.jobs import JobRequest, JobResult

if TYPE_CHECKING:
    from uvlab.app.gui.controller import Controller
    from uvlab.app.gui.views import ViewTabs


class CompareMode:
    """Builds and drives compare mode: a Compare panel tab and a Compare view tab.

    Parameters
    ----------
    controller : Controller
        Runs the ``compare`` jobs; compare mode follows its ``submitted``,
        ``job_failed`` and ``job_cancelled`` signals.
    panel_tabs : QTabWidget
        The window's control-panel tabs; a "Compare" tab is appended.
    views : ViewTabs
        The window's view tabs; a "Compare" tab is inserted before "Timing".

    Attributes
    ----------
    panel : ComparePanel
        The entries to compare.
    view : CompareView
        The metrics table and images of the last comparison.
    """

    def __init__(
        self, controller: Controller, panel_tabs: QtWidgets.QTabWidget, views: ViewTabs
    ) -> None:
        self._controller = controller
        self._panel_tabs = panel_tabs
        self._views = views
        self._pending_match: int | None = None
        self.panel = ComparePanel()
        self._scroll = QtWidgets.QScrollArea()
        self._scroll.setWidgetResizable(True)
        self._scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._scroll.setWidget(self.panel)
        panel_tabs.addTab(self._scroll, "Compare")
        self.view = CompareView()
        views.insertTab(views.indexOf(views.timing_view), self.view, "Compare")
        c = controller
        self.panel.compare_requested.connect(lambda: c.submit("compare"))
        self.panel.match_requested.connect(self.match)
        self.view.compute_requested.connect(lambda: c.submit("compare"))
        self.panel.changed.connect(self.view.mark_stale)
        c.submitted.connect(self._on_submitted)
        c.job_failed.connect(lambda _message: self.view.set_running(False))
        c.job_cancelled.connect(lambda _job: self.view.set_running(False))
        panel_tabs.currentChanged.connect(self._on_panel_tab)

    def entries(self, task: str, imaging: ImagingOptions) -> tuple[ImagingOptions, ...]:
        """The entries a ``compare`` job needs (none for other tasks; ValueError if invalid)."""
        return self.panel.entries(imaging) if task == "compare" else ()

    def set_entries(
        self, entries: Sequence[ImagingOptions] | None, repeats: int = COMPARE_REPEATS
    ) -> None:
        """Show a state's entries (None: the default ones) and timed runs; the last
        comparison is stale."""
        if entries is None:
            self.panel.set_algorithms(DEFAULT_ALGORITHMS)
        else:
            self.panel.set_entries(entries)
        self.panel.set_repeats(repeats)
        self.view.mark_stale()

    def match_index(self, task: str) -> int | None:
        """The entry a ``compare`` job being frozen should find a matching conv for."""
        return self._pending_match if task == "compare" else None

    def match(self, index: int) -> JobRequest | None:
        """Compare, then add the exact-ES conv entry matching entry ``index``'s error.

        A ``compare`` job with ``match=index``
        (:mod:`uvlab.app.lab.conv_match`), in the worker like any other.
        """
        self._pending_match = int(index)
        try:
            return self._controller.submit("compare")
        finally:
            self._pending_match = None

    def mark_stale(self) -> None:
        """Say that the shown comparison no longer matches the parameters."""
        self.view.mark_stale()

    def show(self) -> None:
        """Bring the Compare view and the Compare panel to the front."""
        self._views.setCurrentWidget(self.view)
        self._panel_tabs.setCurrentWidget(self._scroll)

    def show_result(self, result: JobResult) -> tuple[float, str]:
        """Draw a compare result; returns (seconds spent drawing, status text)."""
        t0 = time.perf_counter()
        out = result.output
        if out.match is not None and out.match.added:  # the comparison holds it already
            self.panel.add_entry(out.entries[-1], emit=False)
        self.view.show_output(out)
        cmp = out.comparison
        text = (
            f"Compared {len(cmp.results)} entries in {result.elapsed_s:.2f} s "
            f"(reference: {cmp.reference_label})"
        )
        if out.match is not None:
            text += f"; {out.match.describe()}"
        return time.perf_counter() - t0, text

    def start(self, algorithms: Sequence[str]) -> None:
        """Compare these algorithms once the first image is shown (ValueError if unknown).

        The entries are an edit like one by hand (the panel's ``changed``): the lab's
        state holds them, so that the comparison, a saved session and Undo see them.
        """
        self.panel.set_algorithms(algorithms, emit=True)
        c = self._controller

        def after_first_image(result: JobResult) -> None:
            if result.task == "image":
                c.result_ready.disconnect(after_first_image)
                QtCore.QTimer.singleShot(0, lambda: c.submit("compare"))

        c.result_ready.connect(after_first_image)

    def _on_submitted(self, request: JobRequest) -> None:
        if request.task == "compare":
            self.view.set_running(True)
            self._views.setCurrentWidget(self.view)

    def _on_panel_tab(self, index: int) -> None:
        if self._panel_tabs.widget(index) is self._scroll:
            self._views.setCurrentWidget(self.view)
