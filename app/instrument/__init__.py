"""The instrument's Jones terms: primary beams (E) and antenna gains (G).

- :mod:`~uvlab.app.instrument.jones`: what the command line and the lab ask for, applied
  to a simulated observation; :mod:`~uvlab.app.instrument.row_jones`: to the rows of a
  MeasurementSet; :mod:`~uvlab.app.instrument.parallactic`: the dishes' parallactic angles;
- :mod:`~uvlab.app.instrument.beam_cube` and :mod:`~uvlab.app.instrument.beam_pattern`:
  beam cubes from FITS, scalar and polarised;
- :mod:`~uvlab.app.instrument.gains_table`: gains from a text table (``--gains FILE``).
"""
