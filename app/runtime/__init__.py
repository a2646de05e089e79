"""The process beneath every other app package: signals, errors, resources, progress.

- :mod:`~uvlab.app.runtime.signals` and :mod:`~uvlab.app.runtime.process_cancel`: SIGINT
  and SIGTERM as a cancel; :mod:`~uvlab.app.runtime.faults`: fault injection for tests;
- :mod:`~uvlab.app.runtime.errors`: the exceptions the layers share;
- :mod:`~uvlab.app.runtime.memory` (with :mod:`~uvlab.app.runtime.memory_limits`, the
  memory available) and :mod:`~uvlab.app.runtime.diskspace`: refusing work that would not
  fit before it starts;
- :mod:`~uvlab.app.runtime.progress` (terminal progress bar) and
  :mod:`~uvlab.app.runtime.process_clock` (seconds since the process started).
"""
