"""Imaging: image geometry, weighting, the exact DFT and the gridder dispatch."""
