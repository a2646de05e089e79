"""Compare mode in the main window: the Compare panel and tab, wired to the controller.

A mixin of :class:`~uvlab.app.gui.main_window.MainWindow`; it uses the
window's ``panel_tabs``, ``views`` and ``controller``. A comparison is a job
like any other (``controller.submit("compare")``): it runs in the worker, is
cancellable, and a newer job supersedes it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from PyQt6 import QtCore, QtWidgets

from uvlab.app.gui.compare_panel import ComparePanel
from uvlab.app.gui.compare_view import CompareView
from uvlab.app.gui.jobs import ImagingOptions, JobRequest, JobResult

#: Names accepted by :meth:`CompareMode.show_tab` → the view tab's title.
TAB_TITLES = {
    "overview": "Overview",
    "sky": "Sky model",
    "aliasing": "Aliasing",
    "compare": "Compare",
    "timing": "Timing",
    "log": "Log",
}


class CompareMode:
    """Builds and drives compare mode (call :meth:`_build_compare` once the controller exists)."""

    def _build_compare(self) -> None:
        self.compare_panel = ComparePanel()
        self._compare_scroll = QtWidgets.QScrollArea()
        self._compare_scroll.setWidgetResizable(True)
        self._compare_scroll.setWidget(self.compare_panel)
        self.panel_tabs.addTab(self._compare_scroll, "Compare")
        self.compare_view = CompareView()
        self.views.insertTab(
            self.views.indexOf(self.views.timing_view), self.compare_view, "Compare"
        )
        c = self.controller
        self.compare_panel.compare_requested.connect(lambda: c.submit("compare"))
        self.compare_view.compute_requested.connect(lambda: c.submit("compare"))
        self.compare_panel.changed.connect(self.compare_view.mark_stale)
        c.submitted.connect(self._on_compare_submitted)
        c.job_failed.connect(lambda _message: self.compare_view.set_running(False))
        c.job_cancelled.connect(lambda _job: self.compare_view.set_running(False))
        self.panel_tabs.currentChanged.connect(self._on_panel_tab)

    def compare_entries(self, task: str, imaging: ImagingOptions) -> tuple[ImagingOptions, ...]:
        """The entries a ``compare`` job needs (none for other tasks; ValueError if invalid)."""
        return self.compare_panel.entries(imaging) if task == "compare" else ()

    def _on_compare_submitted(self, request: JobRequest) -> None:
        if request.task == "compare":
            self.compare_view.set_running(True)
            self.views.setCurrentWidget(self.compare_view)

    def _on_panel_tab(self, index: int) -> None:
        if self.panel_tabs.widget(index) is self._compare_scroll:
            self.views.setCurrentWidget(self.compare_view)

    def show_comparison(self, result: JobResult) -> tuple[float, str]:
        """Draw a compare result; returns (seconds spent drawing, status text)."""
        t0 = time.perf_counter()
        self.compare_view.show_output(result.output)
        cmp = result.output.comparison
        text = (
            f"Compared {len(cmp.results)} entries in {result.elapsed_s:.2f} s "
            f"(reference: {cmp.reference_label})"
        )
        return time.perf_counter() - t0, text

    # ------------------------------------------------------ start-up options
    def show_tab(self, name: str) -> None:
        """Bring a view tab to the front by its short name (see :data:`TAB_TITLES`)."""
        if name not in TAB_TITLES:
            raise ValueError(f"unknown tab {name!r}; choose from {', '.join(TAB_TITLES)}")
        for k in range(self.views.count()):
            if self.views.tabText(k) == TAB_TITLES[name]:
                self.views.setCurrentIndex(k)
        if name == "compare":
            self.panel_tabs.setCurrentWidget(self._compare_scroll)

    def start_compare(self, algorithms: Sequence[str]) -> None:
        """Compare these algorithms once the first image is shown (ValueError if unknown)."""
        self.compare_panel.set_algorithms(algorithms)
        c = self.controller

        def after_first_image(result: JobResult) -> None:
            if result.task == "image":
                c.result_ready.disconnect(after_first_image)
                QtCore.QTimer.singleShot(0, lambda: c.submit("compare"))

        c.result_ready.connect(after_first_image)
