"""The files uvlab writes: complete or absent, never half (above the runtime only).

- :mod:`~uvlab.app.outputs.atomic`: one atomic file; :mod:`~uvlab.app.outputs.output_set`:
  the files of one run replaced together;
- :mod:`~uvlab.app.outputs.fits_io`: FITS images with a celestial WCS;
- :mod:`~uvlab.app.outputs.plots` and :mod:`~uvlab.app.outputs.report`: PNG figures;
- :mod:`~uvlab.app.outputs.quantities`: quantities as the one-line reports write them.
"""
