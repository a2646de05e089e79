"""Row chunks sized from the memory a worker may use (WSClean's ``-abs-mem``).

On the grid path (the separable gridders on the CPU, :mod:`uvlab.gpu.imaging.grid_parts`)
a worker holds its two grids for all its chunks and one chunk's temporaries at a time
(:func:`grid_costs`, :data:`GRID_BYTES_PER_SAMPLE`); through CLEAN, the most of its passes
(:func:`clean_grid_costs`: the 2N PSF's grid, a major cycle's residual and model grids).
``ducc``'s dirty image in parts holds ducc0's one grid likewise (:func:`nufft_costs`).
Otherwise it holds one image part at a time (:mod:`uvlab.gpu.imaging.parts`): the
image-sized part (the images, the gridder's grid and its FFT, for uniform and Briggs the
density grid) does not depend on the data, and the rest grows with the rows of the chunk
it reads. :func:`chunk_rows` gives the most rows whose temporaries fit the rest of the
worker's share, so peak memory is the image-sized part plus a fixed budget per worker,
whatever the size of the MS.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from uvlab.app.runtime.memory import format_bytes, imaging_estimate

#: Bytes per selected (row, channel) sample while a chunk is read and imaged: the
#: reader's temporaries per correlation (data, flag, weight: 21 bytes), its output
#: (vis, weight, flag: 21), the part's imaging weights (8) and the flat samples (128).
BYTES_PER_SAMPLE_CORR = 21
BYTES_PER_SAMPLE = 21 + 8 + 128
#: Bytes per selected sample of each further ``--pol`` product formed from one read of a
#: chunk (:func:`~uvlab.app.ms.reader.read_products`): its vis (complex128 at most), float32
#: weight and bool flag, held with the others' while the chunk is imaged.
PRODUCT_BYTES_PER_SAMPLE = 21
#: Bytes per row besides its samples (uvw, time, antennas, row numbers).
BYTES_PER_ROW = 64
#: Bytes per row of a chunk's data held between CLEAN's passes besides its samples
#: (uvw, time, the two antennas, the row numbers: ``VisData``'s row arrays).
HELD_BYTES_PER_ROW = 48
#: The most of the memory uvlab may use that held data may take: the rest is for the
#: chunks read and imaged while it is held, and Dask spills held data to disk beyond it.
HOLD_FRACTION = 0.5
#: Rows per chunk at most (a chunk is also the unit of progress and of cancel).
MAX_CHUNK_ROWS = 1 << 20
#: What a worker holds besides images and chunks while it reads and images: casacore's
#: table caches, the reader's and the gridder's small temporaries, Python's heap. The
#: peak resident memory of a worker grew by 12–17 MiB over its chunk budget when
#: measured (MeerKAT, 64 channels, 128² with uniform weighting; tests/app/scale).
WORKER_OVERHEAD_BYTES = 24 * 2**20
#: What the CPU gridders' numba rung adds to a worker that runs it: numba, LLVM and the
#: loaded kernels (:mod:`uvlab.gpu.gridders.jit_grid`; +136 MiB of resident memory when
#: measured). Uncounted, a 0.2 GB worker passed Dask's pause level and waited for ever.
JIT_BYTES = 144 * 2**20


def jit_bytes(algorithm: str) -> float:
    """:data:`JIT_BYTES` where a worker imaging with ``algorithm`` loads the numba rung: a
    separable gridder of uvlab's own (not ``ducc``, not the DFT), numba installed and
    ``UVLAB_CPU_RUNG`` not ``numpy`` (checked without importing numba here)."""
    import importlib.util

    from uvlab.gpu.gridders.jit_grid import RUNG_ENV
    from uvlab.gpu.gridders.registry import algorithm as record

    rec = record(algorithm)
    if rec.plans is None or rec.host_only:  # the DFT; ducc0 (its plans only bound aliasing)
        return 0.0
    if os.environ.get(RUNG_ENV, "").strip().lower() == "numpy":
        return 0.0
    return JIT_BYTES if importlib.util.find_spec("numba") is not None else 0.0


#: A worker process's resident memory before any chunk (Python, NumPy, casacore, Dask):
#: 115–120 MiB measured. On the grid path the worker's grids live outside Dask's managed
#: memory, so its memory limit (the share) meets them as process memory: the chunks are
#: sized for :data:`DASK_FRACTION` of the share less this, below the nanny's terminate
#: threshold (95 %), and a worker's grids stay below its pause threshold (80 %).
WORKER_BASE_BYTES = 128 * 2**20
DASK_FRACTION = 0.9


def grid_share(share: float) -> float:
    """What the grid path's chunks may be sized for out of a worker's ``share`` (its Dask
    memory limit): :data:`DASK_FRACTION` of it less :data:`WORKER_BASE_BYTES`."""
    return share if share == float("inf") else DASK_FRACTION * share - WORKER_BASE_BYTES


#: The grid path (:mod:`uvlab.gpu.imaging.grid_parts`, the separable gridders on the CPU):
#: bytes per selected sample while a chunk is read and gridded into the worker's grids,
#: besides the reader's :data:`BYTES_PER_SAMPLE_CORR` per correlation: the reader's output,
#: the flat samples, their imaging weights and the half-plane records. Measured: a worker's
#: peak grew by 314 B a sample between chunks of 1.28e5 and 5.12e5 samples (MeerKAT, 64
#: channels, 4 correlations, 256², natural; /proc VmHWM), 84 of them the reader's.
GRID_BYTES_PER_SAMPLE = 240
#: The grid path's bytes per tap entry of a block of records (the cell index, the dirty
#: grid's two sums and the PSF's one, the band sort and its gathers), for
#: ``GridParams.chunk`` entries at most (:func:`grid_taps`): measured ≈ 190 MiB at the
#: default 2²² entries.
GRID_BYTES_PER_TAP = 48
#: A major cycle's residual on the grid path (:func:`clean_grid_costs`): bytes per sample
#: besides :data:`GRID_BYTES_PER_SAMPLE` while the model's visibilities are read from its
#: grid and subtracted: the predicted and residual visibilities (16 + 16), the half-plane
#: coordinates and the mirror mask (8 + 8 + 1, their temporaries as many again) and the
#: conjugation's copy (16).
RESIDUAL_BYTES_PER_SAMPLE = 96
#: Bytes per tap entry while the model's visibilities are read from its grid on the NumPy
#: rung (:func:`~uvlab.gpu.gridders.degrid.interpolate_half`: the gathered and mirrored
#: cells, 16 bytes each, their indices and mask): its blocks are as many taps as the
#: gridding's, before the gridding's block is made.
DEGRID_BYTES_PER_TAP = 96


class BudgetError(MemoryError):
    """A worker's share of memory cannot hold even the image-sized part."""


@dataclass(frozen=True)
class ChunkPlan:
    """How a worker's memory is spent: the image-sized part and the rows per chunk."""

    fixed_bytes: float
    row_bytes: float
    rows: int

    def describe(self) -> str:
        chunk = self.rows * self.row_bytes
        return (
            f"{self.rows} rows per chunk ({format_bytes(chunk)}) + {format_bytes(self.fixed_bytes)}"
            " image-sized per worker"
        )


def image_bytes(
    npix: int, algorithm: str, params=None, *, density_npix: int = 0, clean: bool = False,
    products: int = 1,
) -> float:  # fmt: skip
    """The part of one worker that does not grow with the MS: images, grids, the density
    grid if any, and :data:`WORKER_OVERHEAD_BYTES`; with ``clean``, CLEAN's PSF of side
    2N made in parts (its grid) and the model each major cycle sends. ``products``
    (several ``--pol`` products from one read): each further one's image parts (its dirty
    image and PSF, as many again in the sums in flight) and density."""
    est = imaging_estimate(npix, algorithm, params, nvis=0, nimages=6).total
    extra = max(0, int(products) - 1)
    est += extra * 4 * 8.0 * npix * npix
    if density_npix:
        est += extra * 3 * 8.0 * (2 * density_npix) ** 2
    if clean:
        est += imaging_estimate(2 * npix, algorithm, params, nvis=0, nimages=2).total
        est += 2 * 8.0 * npix * npix
    est += WORKER_OVERHEAD_BYTES + jit_bytes(algorithm)
    if density_npix:
        est += 3 * 8.0 * (2 * density_npix) ** 2  # its counts, the totals' grid, a lookup
    return est


@dataclass(frozen=True)
class GridCosts:
    """What a worker of the grid path needs besides its grids (:func:`grid_costs`).

    Attributes
    ----------
    fixed : float
        Its two grids, the density grid if any and :data:`WORKER_OVERHEAD_BYTES`: held
        from its first chunk to the finish.
    tap_per_sample, tap_cap : float
        A chunk's block of taps: bytes per sample, and at most.
    finish : float
        The finish (the v-transformed rows, the two images and a block's FFT), or a band
        of another worker's grids on the worker that sums them: after the chunks, so it
        shares their room.
    """

    fixed: float
    tap_per_sample: float
    tap_cap: float
    finish: float
    #: Bytes per selected sample of a chunk besides the reader's per correlation.
    per_sample: float = GRID_BYTES_PER_SAMPLE
    #: What of ``fixed`` a worker holds once whatever the products (its overhead, numba).
    shared: float = 0.0


def for_products(costs: GridCosts, products: int, npix: int) -> GridCosts:
    """``costs`` of a dirty-image pass that grids ``products`` ``--pol`` products from one
    read of each chunk (:mod:`uvlab.app.scale.products`): a grid (or NUFFT) and density
    per product, each further product's formed samples
    (:data:`PRODUCT_BYTES_PER_SAMPLE`) and its finished images (2·8·N² bytes); the taps
    are one product's, gridded one after another."""
    from dataclasses import replace

    extra = max(0, int(products) - 1)
    own = costs.fixed - costs.shared
    return replace(
        costs, fixed=costs.fixed + extra * own,
        per_sample=costs.per_sample + extra * PRODUCT_BYTES_PER_SAMPLE,
        finish=costs.finish + extra * 2 * 8.0 * npix * npix,
    )  # fmt: skip


def _grid_cells(npix: int, algorithm: str, params):
    """(cells of the unfolded half grid, its plans) of ``algorithm`` for an ``npix``² image."""
    from uvlab.gpu.gridders.registry import axis_plans
    from uvlab.gpu.gridders.separable import extended_shape
    from uvlab.gpu.image_spec import ImageSpec

    plan_u, plan_v = axis_plans(algorithm, ImageSpec(int(npix), 1.0e-6), params)
    mv, width = extended_shape(plan_u, plan_v)
    return float(mv * width), (plan_u, plan_v)


def grid_costs(npix: int, algorithm: str, params=None, *, density_npix: int = 0) -> GridCosts:
    """The grid path's costs (:func:`~uvlab.gpu.imaging.co_grid.grids_in_parts`):
    two complex128 grids of the gridder's unfolded half grid (dirty and PSF), S_u·S_v taps
    a sample at :data:`GRID_BYTES_PER_TAP` up to ``GridParams.chunk`` taps, and the finish:
    two N² images and a block of the FFTs; the v-transformed rows (16·N·(Mu/2 + 1)) only
    where a pruner makes the half grid anew (else they are kept in the grid,
    :func:`~uvlab.gpu.gridders.half_image.half_to_image`'s ``inplace``).
    """
    from uvlab.gpu.blocks import BLOCK_CELLS
    from uvlab.gpu.gridders.params import GridParams

    params = params or GridParams()
    cells, (plan_u, plan_v) = _grid_cells(npix, algorithm, params)
    grids = 2 * 16.0 * cells
    block = 3 * 16.0 * min(BLOCK_CELLS, cells)  # a block of the FFTs and its copies
    finish = 2 * 8.0 * npix * npix + block
    if plan_u.pruner is not None or plan_v.pruner is not None:  # the pruned grid's rows
        finish += 16.0 * npix * (plan_u.n_fft // 2 + 1)
    shared = WORKER_OVERHEAD_BYTES + jit_bytes(algorithm)
    fixed = grids + shared
    if density_npix:
        fixed += 3 * 8.0 * (2 * density_npix) ** 2
    taps = plan_u.rule.support * plan_v.rule.support
    return GridCosts(fixed, GRID_BYTES_PER_TAP * taps, GRID_BYTES_PER_TAP * float(params.chunk),
                     max(finish, grids / 8), shared=shared)  # fmt: skip


#: ``ducc`` in parts (:mod:`uvlab.gpu.imaging.nufft_parts`): bytes per selected sample
#: besides the reader's per correlation: the grid path's (the reader's output, the flat
#: samples, their weights) and the dirty image's and PSF's samples packed and mirrored
#: for ducc0 (twice a sample's coordinates and value, 2 × 32) with its sort of them.
NUFFT_BYTES_PER_SAMPLE = GRID_BYTES_PER_SAMPLE + 96


def nufft_costs(npix: int, *, density_npix: int = 0) -> GridCosts:
    """``ducc``'s costs in parts: ducc0's one padded grid, complex128, at the largest
    padding it may choose (:data:`~uvlab.gpu.ducc_engine.SIGMA_MAX`; ≈ 2.1–2.2 measured
    at 2880²), held from a worker's first chunk to its finish, and the finish's complex
    image and its two real parts (:data:`NUFFT_BYTES_PER_SAMPLE` a sample; no taps)."""
    from uvlab.gpu.ducc_engine import SIGMA_MAX

    fixed = 16.0 * (SIGMA_MAX * npix) ** 2 + WORKER_OVERHEAD_BYTES
    if density_npix:
        fixed += 3 * 8.0 * (2 * density_npix) ** 2
    return GridCosts(fixed, 0.0, 0.0, 32.0 * npix * npix, NUFFT_BYTES_PER_SAMPLE,
                     shared=WORKER_OVERHEAD_BYTES)  # fmt: skip


def clean_nufft_costs(npix: int, *, density_npix: int = 0, major: bool = True) -> GridCosts:
    """What a worker of ``ducc``'s NUFFT path holds through ``uvlab image --niter``: the
    most of its passes, as :func:`clean_grid_costs` for the grid path: the dirty image
    (:func:`nufft_costs`), the CLEAN PSF of side 2N (ducc0's grid at 2N: 4× the N²
    one's), and with ``major`` a major cycle (the residual's grid, the model's type-2
    NUFFT grid, as large, and the model image; per sample
    :data:`RESIDUAL_BYTES_PER_SAMPLE` more)."""
    dirty = nufft_costs(npix, density_npix=density_npix)
    wide = nufft_costs(2 * npix, density_npix=density_npix)
    fixed, per_sample = max(dirty.fixed, wide.fixed), dirty.per_sample
    if major:
        grid = dirty.fixed - nufft_costs(0, density_npix=density_npix).fixed
        fixed = max(fixed, dirty.fixed + grid + 8.0 * npix * npix)
        per_sample += RESIDUAL_BYTES_PER_SAMPLE
    return GridCosts(fixed, 0.0, 0.0, wide.finish, per_sample, shared=dirty.shared)


def clean_grid_costs(
    npix: int, algorithm: str, params=None, *, density_npix: int = 0, major: bool = True
) -> GridCosts:
    """What a worker of the grid path holds through ``uvlab image --niter``: the most of its
    passes (one at a time, each pass's grids freed before the next).

    - the dirty image: :func:`grid_costs`;
    - the CLEAN PSF of side 2N: its one grid (16 bytes a cell of the 2N image's unfolded
      half grid, about twice the N² image's two) and its finish (one 2N image: the
      v-transformed rows are kept in the grid);
    - with ``major`` (Cotton–Schwab), a major cycle: the residual's grid, the model's grid
      it reads from (no larger than the residual's) and the model image (8·N² bytes), and
      per sample :data:`RESIDUAL_BYTES_PER_SAMPLE` more, per tap
      :data:`DEGRID_BYTES_PER_TAP` on the NumPy rung (the numba rung reads in place).
    """
    from uvlab.gpu.gridders.params import GridParams

    params = params or GridParams()
    dirty = grid_costs(npix, algorithm, params, density_npix=density_npix)
    wide = grid_costs(2 * npix, algorithm, params, density_npix=density_npix)
    psf_fixed = wide.fixed - 16.0 * _grid_cells(2 * npix, algorithm, params)[0]
    fixed, per_sample, tap = max(dirty.fixed, psf_fixed), dirty.per_sample, dirty.tap_per_sample
    if major:
        fixed = max(fixed, dirty.fixed + 8.0 * npix * npix)
        per_sample += RESIDUAL_BYTES_PER_SAMPLE
        if not jit_bytes(algorithm):  # the NumPy rung reads its taps through temporaries
            tap = max(tap, DEGRID_BYTES_PER_TAP * tap / GRID_BYTES_PER_TAP)
    cap = tap / dirty.tap_per_sample * dirty.tap_cap
    wide_finish = wide.finish - 8.0 * (2 * npix) ** 2  # the PSF alone: one 2N image
    return GridCosts(fixed, tap, cap, max(dirty.finish, wide_finish), per_sample,
                     shared=dirty.shared)  # fmt: skip


def chunk_rows(
    worker_bytes: float, nchan: int, ncorr: int, fixed_bytes: float, *, what: str = "imaging",
    grid: GridCosts | None = None, products: int = 1,
) -> ChunkPlan:  # fmt: skip
    """The rows per chunk that fit ``worker_bytes`` beside ``fixed_bytes``.

    ``grid``: the chunks are gridded into a worker's grids (``fixed_bytes`` its
    :attr:`GridCosts.fixed`), at :attr:`GridCosts.per_sample` and the costs' taps, and
    the room left must also hold the finish; else imaged (:data:`BYTES_PER_SAMPLE`, and
    :data:`PRODUCT_BYTES_PER_SAMPLE` for each further one of ``products``; the grid path's
    costs count them, :func:`for_products`).

    Raises
    ------
    BudgetError
        When the worker's share does not hold the image-sized part and one row.
    """
    extra = PRODUCT_BYTES_PER_SAMPLE * max(0, int(products) - 1)
    per_sample = grid.per_sample if grid else BYTES_PER_SAMPLE + extra
    row = float(nchan) * (BYTES_PER_SAMPLE_CORR * ncorr + per_sample) + BYTES_PER_ROW
    left = float(worker_bytes) - float(fixed_bytes)
    need = float(fixed_bytes) + row  # the least a worker must have
    if grid is not None:  # the taps grow with the rows up to their cap
        tap_row = float(nchan) * grid.tap_per_sample
        need = float(fixed_bytes) + max(row + tap_row, grid.finish)
        if left < max(row + tap_row, grid.finish):
            left = -1.0
        elif left // (row + tap_row) * tap_row > grid.tap_cap:
            left -= grid.tap_cap
        else:
            row += tap_row
    if left < row:
        raise BudgetError(
            f"{what} needs at least {format_bytes(need)} per worker "
            f"({format_bytes(fixed_bytes)} image-sized), but a worker may use "
            f"{format_bytes(worker_bytes)}: give more memory (--abs-mem) or fewer workers, "
            "or make a smaller image"
        )
    return ChunkPlan(float(fixed_bytes), row, int(min(MAX_CHUNK_ROWS, left // row)))


def held_bytes(nrow: int, nchan: int, vis_itemsize: int = 8) -> float:
    """Bytes of ``nrow`` rows' data held between CLEAN's passes: the Stokes product read
    (``vis_itemsize`` bytes a sample), its float32 weight and bool flag, and the rows'
    arrays (:data:`HELD_BYTES_PER_ROW`)."""
    return float(nrow) * (float(nchan) * (vis_itemsize + 4 + 1) + HELD_BYTES_PER_ROW)
