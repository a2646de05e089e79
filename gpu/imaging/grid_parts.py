"""Grids made in parts: map–reduce over row chunks that sums grids, with one FFT at the end.

The dirty image and PSF of a separable gridder (the catalogue's ``plans`` chain,
:mod:`uvlab.gpu.gridders.separable`) are linear in the gridded records, and so is every
step after the gridding (the Hermitian fold, the pruners, the FFT, the correction). So
the data can be gridded in parts and the *grids* summed: each part adds its weighted
visibilities (and its weights, for the PSF) into a :class:`PartGrid` — the unfolded
half-plane grid of :func:`~uvlab.gpu.gridders.separable.grid_into`, complex128 — with
its Σw, Σw·f and sample count (:func:`grid_part`); grids add in place
(:meth:`PartGrid.add`), and one :func:`finish` folds, prunes, transforms and corrects the
sum, giving the :class:`~uvlab.gpu.imaging.parts.PartImage` that
:func:`~uvlab.gpu.imaging.parts.image_part` would give for all the data, to rounding.

Against image parts (:mod:`uvlab.gpu.imaging.parts`) a part costs its gridding only (no
FFT of the padded grid per part), and a worker keeps one grid for all its parts. The
grid has the gridder's size: ``Mv × (Mu/2 + 1 + 2·pad)`` cells of 16 bytes, for ``conv``
about (σN)²/2 (266 MB at N = 2880, σ = 2), for the fine-grid algorithms (``hybrid``,
``pruned-nn``, ``nn-oversampled``) β times more along each oversampled axis, as their
one-shot images hold too.

Cotton–Schwab's major cycle grids in parts too: :func:`model_grid` transforms the model
once (the degridder's grid, :func:`~uvlab.gpu.gridders.degrid.image_to_grid`), and
:func:`grid_part` with ``model`` reads each part's model visibilities from it and grids
the residual ``w·(V − D(model))``: the residual image of
:class:`~uvlab.gpu.deconvolution.cotton_schwab.MajorCycle` for all the data, to rounding.
The CLEAN PSF alone is gridded with ``dirty=False``.

Which algorithms: :func:`grids_in_parts` — the catalogue's separable gridders on the
CPU without w-stacking. The others (``ducc``, whose grid is ducc0's own; w-stacking,
which makes one grid per w plane; the GPU chains) keep image parts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.co_grid import grid_image, grid_samples, grids_in_parts
from uvlab.gpu.imaging.parts import PartImage, counted_samples
from uvlab.gpu.imaging.weighting import Weighting


@dataclass(eq=False)
class PartGrid:
    """Unnormalised grids of a part (or a sum of parts) and their weights.

    Attributes
    ----------
    dirty, psf : (Mv, Mu/2 + 1 + 2·pad) complex128 or None
        The unfolded half-plane grids of ``w·V`` and of ``w``
        (:func:`~uvlab.gpu.gridders.separable.extended_shape`); None when not made.
    sum_weights, sum_weighted_freq_hz : float
        Σw and Σw·f of the imaging weights (as :class:`~uvlab.gpu.imaging.parts.PartImage`).
    nvis : int
        Samples with nonzero weight.
    """

    dirty: np.ndarray | None
    psf: np.ndarray | None
    sum_weights: float = 0.0
    nvis: int = 0
    sum_weighted_freq_hz: float = 0.0

    def add(self, other: PartGrid, band: int = 0, nbands: int = 1) -> PartGrid:
        """Add ``other`` into this grid, in place; returns ``self``.

        With ``nbands`` > 1, ``other`` is band ``band`` of a grid (:meth:`band`), added
        into the same rows of this one.
        """
        rows = _band_rows(self._any.shape[0], band, nbands)
        if (
            (self.psf is None) != (other.psf is None)
            or (self.dirty is None) != (other.dirty is None)
            or self._any[rows].shape != other._any.shape
        ):
            raise ValueError("grids of different chains or products do not add")
        for mine, theirs in ((self.dirty, other.dirty), (self.psf, other.psf)):
            if mine is not None:
                mine[rows] += theirs
        self.sum_weights += other.sum_weights
        self.nvis += other.nvis
        self.sum_weighted_freq_hz += other.sum_weighted_freq_hz
        return self

    def band(self, band: int, nbands: int) -> PartGrid:
        """A copy of rows ``band`` of ``nbands`` equal bands of the grids (the sums ride
        with band 0): what :meth:`add` adds a band at a time."""
        rows = _band_rows(self._any.shape[0], band, nbands)
        sums = (self.sum_weights, self.nvis, self.sum_weighted_freq_hz) if band == 0 else ()
        copy = lambda g: None if g is None else g[rows].copy()  # noqa: E731
        return PartGrid(copy(self.dirty), copy(self.psf), *sums)

    @property
    def _any(self) -> np.ndarray:
        return self.dirty if self.dirty is not None else self.psf

    @property
    def nbytes(self) -> int:
        """Bytes of its grids."""
        return sum(g.nbytes for g in (self.dirty, self.psf) if g is not None)


def _band_rows(nrows: int, band: int, nbands: int) -> slice:
    if not 0 <= band < nbands:
        raise ValueError(f"band {band} of {nbands}")
    return slice(nrows * band // nbands, nrows * (band + 1) // nbands)


def _plans(spec: ImageSpec, algorithm: str, params):
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.gridders.registry import axis_plans

    params = params or GridParams()
    if not grids_in_parts(algorithm, params):
        raise ValueError(f"{algorithm} with these parameters is not gridded in parts")
    return axis_plans(algorithm, spec, params), params


def empty_grid(
    spec: ImageSpec, algorithm: str = "conv", params=None, *, psf: bool = True, dirty: bool = True
) -> PartGrid:
    """A zero :class:`PartGrid` of ``algorithm``'s chain for ``spec`` (what parts add into)."""
    from uvlab.gpu.gridders.separable import extended_shape

    if not (psf or dirty):
        raise ValueError("a grid of neither the dirty image nor the PSF")
    (plan_u, plan_v), _ = _plans(spec, algorithm, params)
    shape = extended_shape(plan_u, plan_v)
    zeros = lambda: np.zeros(shape, dtype=np.complex128)  # noqa: E731
    return PartGrid(zeros() if dirty else None, zeros() if psf else None)


def model_grid(model, spec: ImageSpec, algorithm: str = "conv", params=None) -> np.ndarray:
    """The degridder's grid of a model image (corrected, padded, transformed), for
    :func:`grid_part`'s ``model``: made once, read by every part.

    Parameters
    ----------
    model : (N, N) float
        Jy per pixel.

    Returns
    -------
    (Mv, Mu/2 + 1) complex128
        :func:`~uvlab.gpu.gridders.degrid.image_to_grid` with the chain's plans.
    """
    from uvlab.gpu.gridders.degrid import image_to_grid

    (plan_u, plan_v), _ = _plans(spec, algorithm, params)
    return image_to_grid(np.asarray(model, dtype=np.float64), plan_u, plan_v)


def grid_part(
    uvw, freq_hz, vis, weight, flag, spec: ImageSpec, weighting: Weighting, totals=None, *,
    algorithm: str = "conv", params=None, psf: bool = True, dirty: bool = True,
    into: PartGrid | None = None, model=None, timer=None, on_block=None,
) -> PartGrid:  # fmt: skip
    """Grid one part with the whole data's weights, adding it into ``into`` (in place).

    Arguments as :func:`~uvlab.gpu.imaging.parts.image_part` (``totals`` for uniform and
    Briggs), on the CPU; ``into`` is the grid to add to (a new one when None) and is
    returned. ``psf`` and ``dirty`` say which grids are made. ``model`` (a
    :func:`model_grid`): the dirty grid is the residual's, ``w·(V − D(model))``, the
    model's visibilities read from it at the part's samples. ``on_block`` is a cancel
    check between blocks of the gridding.

    Parameters
    ----------
    uvw : (row, 3) float, metres
    freq_hz : (chan,) float
    vis : (row, chan) complex
    weight, flag : (row, chan)
    """
    from uvlab.gpu.gridders.degrid import read_grid

    (plan_u, plan_v), params = _plans(spec, algorithm, params)
    grid = into if into is not None else empty_grid(spec, algorithm, params, psf=psf, dirty=dirty)
    if (grid.psf is not None) != psf or (grid.dirty is not None) != dirty:
        raise ValueError("the grid to add to does not hold the products asked for")
    counted = counted_samples(uvw, freq_hz, vis, weight, flag, spec, weighting, totals, grid)
    if counted is None:
        return grid
    s, wt, keep = counted
    u, v = s.u[keep], s.v[keep]
    wvis = None  # the PSF's records alone
    if dirty and model is None:
        wvis = (wt * s.take(np.asarray(vis)))[keep]
    elif dirty:
        res = s.take(np.asarray(vis))[keep] - read_grid(
            model, u, v, plan_u, plan_v, chunk=params.chunk, timer=timer
        )
        wvis = wt[keep] * res
        del res
    grid_samples(grid.dirty, grid.psf, u, v, wvis, wt[keep], (plan_u, plan_v), params,
                 timer=timer, on_block=on_block)  # fmt: skip
    return grid


def finish(
    grid: PartGrid, spec: ImageSpec, algorithm: str = "conv", params=None, *, timer=None,
    on_block=None,
) -> PartImage:  # fmt: skip
    """The unnormalised images of a summed grid: fold, prune, FFT, crop and correct.

    The grids are folded in place and dropped (``grid`` is spent). Its
    :meth:`~uvlab.gpu.imaging.parts.PartImage.normalised` is what
    :func:`~uvlab.gpu.imaging.imager.make_image` gives for all the parts' data at once.
    """
    plans, _ = _plans(spec, algorithm, params)
    if grid.nvis == 0:
        return PartImage(None, None, 0.0, 0)

    def image(ext):
        return grid_image(ext, plans, timer=timer, on_block=on_block)

    dirty = None if grid.dirty is None else image(grid.dirty)
    grid.dirty = None  # spent: freed before the PSF's turn
    psf = None if grid.psf is None else image(grid.psf)
    grid.psf = None
    return PartImage(dirty, psf, grid.sum_weights, grid.nvis, grid.sum_weighted_freq_hz)
