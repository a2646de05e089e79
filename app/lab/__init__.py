"""The lab: uvlab's one engine under the window, the command line and the demo (no Qt).

A request goes in, a stream of events comes out (STYLE §3):

- :mod:`~uvlab.app.lab.imaging`: the imaging record
  (:class:`~uvlab.app.lab.imaging.ImagingOptions`) and the defaults' one home;
- :mod:`~uvlab.app.lab.jobs`: the frozen :class:`~uvlab.app.lab.jobs.JobRequest`,
  the events (Progress, Partial, Done), the outputs and the JobResult;
- :mod:`~uvlab.app.lab.sources`: the data sources (a synthetic observation,
  :mod:`~uvlab.app.lab.synthetic_source`, with :mod:`~uvlab.app.lab.synthetic_run`
  and :mod:`~uvlab.app.lab.synthetic_preview`; a MeasurementSet,
  :mod:`~uvlab.app.lab.ms_source`), each a generator returning imaging-ready
  Samples, with a job's sizing (:mod:`~uvlab.app.lab.sizing`) and image warnings
  (:mod:`~uvlab.app.lab.image_notes`);
- :mod:`~uvlab.app.lab.live`: :func:`~uvlab.app.lab.live.iter_job` /
  :func:`~uvlab.app.lab.live.run_job`, a source then a task, and the image task;
- :mod:`~uvlab.app.lab.aliasing`, :mod:`~uvlab.app.lab.compare_task`: the
  aliasing and compare tasks; :mod:`~uvlab.app.lab.compare`: the one comparison
  loop against the DFT (``uvlab compare`` drains it too);
- :mod:`~uvlab.app.lab.samples`: the work cache and the Samples record;
- :mod:`~uvlab.app.lab.session`, :mod:`~uvlab.app.lab.placement`: the saved
  state (sessions, and the older scene files) and where a named sky goes, with the
  session's sky (:mod:`~uvlab.app.lab.session_sky`) and its checked parts
  (:mod:`~uvlab.app.lab.session_records`);
- :mod:`~uvlab.app.lab.state`: the lab state, one frozen record per task, and the
  model (undo, redo, reset, observers) the window's panels edit;
  :mod:`~uvlab.app.lab.model_requests`: the job requests of the model's state.

Nothing here imports Qt, pyqtgraph or :mod:`uvlab.widgets`: the window
(:mod:`uvlab.app.gui`) iterates these generators in its worker thread; the
commands run them to the end.
"""
