"""uvlab's desktop lab (PyQt6): main window, controller and background worker.

Request → worker → result, newest wins (STYLE §3):

- :mod:`~uvlab.app.gui.jobs`: the frozen :class:`JobRequest`, events, :class:`JobResult`;
- :mod:`~uvlab.app.gui.live`, :mod:`~uvlab.app.gui.samples`,
  :mod:`~uvlab.app.gui.aliasing`: the per-time-chunk streaming computation (no Qt);
- :mod:`~uvlab.app.gui.worker`: one QThread running jobs (and all casacore access);
- :mod:`~uvlab.app.gui.controller`: freeze → submit → drop stale results, debounce edits;
- :mod:`~uvlab.app.gui.main_window`, :mod:`~uvlab.app.gui.window_files`,
  :mod:`~uvlab.app.gui.views`, :mod:`~uvlab.app.gui.aliasing_view`,
  :mod:`uvlab.app.gui.panels`: the window, its views and its control panels;
- :mod:`~uvlab.app.gui.session`, :mod:`~uvlab.app.gui.settings`: JSON sessions, QSettings;
- :mod:`~uvlab.app.gui.launch`, :mod:`~uvlab.app.gui.screenshot`: ``uvlab gui``.

Importing this package does not import Qt.
"""
