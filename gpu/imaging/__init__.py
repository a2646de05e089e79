"""Imaging: weighting, the imager (an algorithm of the catalogue by name), plan reuse, parts.

Imaging sits above :mod:`uvlab.gpu.gridders` and imports it, never the reverse: the
image geometry both use is :mod:`uvlab.gpu.image_spec`, and the exact DFT, the
catalogue's reference entry, is :mod:`uvlab.gpu.gridders.dft`.
"""
