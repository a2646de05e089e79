"""Data of any size: MeasurementSets imaged in row chunks over a Dask cluster (issue 27).

:mod:`~uvlab.app.scale.cluster` starts (or joins) the cluster, :mod:`~uvlab.app.scale.budget`
sizes the row chunks from the memory a worker may use, and
:mod:`~uvlab.app.scale.ms_image` maps the engine's :mod:`uvlab.gpu.imaging.grid_parts`
(grids accumulated per worker, :mod:`~uvlab.app.scale.chains`) or
:mod:`uvlab.gpu.imaging.parts` (images) over the chunks and reduces them;
:mod:`~uvlab.app.scale.ms_predict` and :mod:`~uvlab.app.scale.ms_simulate` predict the row
chunks of ``uvlab predict`` and ``uvlab simulate`` on the workers while the client writes
them, in order. See docs/scaling.md.
"""
