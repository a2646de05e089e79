"""The instrument's Jones terms: primary beams (E) and antenna gains (G).

- :mod:`~uvlab.app.instrument.jones`: what the command line and the lab ask for, applied;
- :mod:`~uvlab.app.instrument.beam_cube` and :mod:`~uvlab.app.instrument.beam_pattern`:
  beam cubes from FITS, scalar and polarised;
- :mod:`~uvlab.app.instrument.gains_table`: gains from a text table (``--gains FILE``).
"""
