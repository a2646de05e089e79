"""uvlab's desktop lab (PyQt6): main window, controller and background worker.

Request → worker → result, newest wins (STYLE §3):

- :mod:`uvlab.app.lab` (no Qt): the frozen :class:`JobRequest`, its events and
  the streaming computation that the worker runs, and the saved session;
- :mod:`~uvlab.app.gui.worker`: one QThread running jobs (and all casacore access);
- :mod:`~uvlab.app.gui.controller`: freeze → submit → drop stale results, debounce edits;
- :mod:`~uvlab.app.gui.main_window` (with its ``window_*`` modules),
  :mod:`~uvlab.app.gui.views`, :mod:`~uvlab.app.gui.aliasing_view`,
  :mod:`uvlab.app.gui.panels`: the window, its views and its control panels;
- :mod:`~uvlab.app.gui.settings`: QSettings;
- :mod:`~uvlab.app.gui.launch`, :mod:`~uvlab.app.gui.screenshot`: ``uvlab gui``.

Importing this package does not import Qt.
"""
