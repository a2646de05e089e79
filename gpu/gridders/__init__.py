"""Gridding algorithms (DESIGN §2): each grids, inverts, corrects and crops.

Every algorithm is a ``dirty(u, v, wvis, spec, params, *, w=None, timer=None)``
function returning the unnormalised ``Re Σ wvis·exp(−2πi(u·l + v·m))`` on the
ImageSpec's pixels (:mod:`~uvlab.gpu.gridders.registry`, the algorithm
catalogue, holds one record per algorithm: its name, functions and parameters).
The NumPy rungs are built from small parts a CuPy version can replace one by
one:

- :mod:`~uvlab.gpu.gridders.dft` and :mod:`~uvlab.gpu.gridders.dft_predict`: the exact
  direct sums, the catalogue's reference entry and its degridder;
- :mod:`~uvlab.gpu.gridders.params`: :class:`GridParams`;
- :mod:`~uvlab.gpu.gridders.gcf`, :mod:`~uvlab.gpu.gridders.least_misfit`:
  kernels;
- :mod:`~uvlab.gpu.gridders.tables`: tap rules (nearest, table, exact);
- :mod:`~uvlab.gpu.gridders.correction`: correctors from the taps used;
- :mod:`~uvlab.gpu.gridders.pruning`: Muscat's column/row pruners;
  :mod:`~uvlab.gpu.gridders.unprune`: their transpose, for degridding;
- :mod:`~uvlab.gpu.gridders.axis`: one axis's chain and its transfer function;
- :mod:`~uvlab.gpu.gridders.separable`: the 2-D pipeline (bin, grid, then
  :mod:`~uvlab.gpu.gridders.half_image`'s fold, prune, FFT, correct);
- :mod:`~uvlab.gpu.gridders.conv`, :mod:`~uvlab.gpu.gridders.nn`,
  :mod:`~uvlab.gpu.gridders.hybrid`, :mod:`~uvlab.gpu.gridders.pruned_nn`: the
  algorithms; :mod:`~uvlab.gpu.gridders.wstack`: w-stacking around any of them;
  :mod:`~uvlab.gpu.gridders.degrid`: their degridders (the adjoints).
"""
