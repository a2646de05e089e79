"""Row chunks sized from the memory a worker may use (WSClean's ``-abs-mem``).

A worker holds one image part at a time (:mod:`uvlab.gpu.imaging.parts`): the
image-sized part (the images, the gridder's grid and its FFT, for uniform and
Briggs the density grid) does not depend on the data, and the rest grows with the
rows of the chunk it reads. :func:`chunk_rows` gives the most rows whose
temporaries fit the rest of the worker's share, so peak memory is the image-sized
part plus a fixed budget per worker, whatever the size of the MS.
"""

from __future__ import annotations

from dataclasses import dataclass

from uvlab.app.runtime.memory import format_bytes, imaging_estimate

#: Bytes per selected (row, channel) sample while a chunk is read and imaged: the
#: reader's temporaries per correlation (data, flag, weight: 21 bytes), its output
#: (vis, weight, flag: 21), the part's imaging weights (8) and the flat samples (128).
BYTES_PER_SAMPLE_CORR = 21
BYTES_PER_SAMPLE = 21 + 8 + 128
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
    npix: int, algorithm: str, params=None, *, density_npix: int = 0, clean: bool = False
) -> float:
    """The part of one worker that does not grow with the MS: images, grids, the density
    grid if any, and :data:`WORKER_OVERHEAD_BYTES`; with ``clean``, CLEAN's PSF of side
    2N made in parts (its grid) and the model each major cycle sends."""
    est = imaging_estimate(npix, algorithm, params, nvis=0, nimages=6).total
    if clean:
        est += imaging_estimate(2 * npix, algorithm, params, nvis=0, nimages=2).total
        est += 2 * 8.0 * npix * npix
    est += WORKER_OVERHEAD_BYTES
    if density_npix:
        est += 3 * 8.0 * (2 * density_npix) ** 2  # its counts, the totals' grid, a lookup
    return est


def chunk_rows(
    worker_bytes: float, nchan: int, ncorr: int, fixed_bytes: float, *, what: str = "imaging"
) -> ChunkPlan:
    """The rows per chunk that fit ``worker_bytes`` beside ``fixed_bytes``.

    Raises
    ------
    BudgetError
        When the worker's share does not hold the image-sized part and one row.
    """
    row = float(nchan) * (BYTES_PER_SAMPLE_CORR * ncorr + BYTES_PER_SAMPLE) + BYTES_PER_ROW
    left = float(worker_bytes) - float(fixed_bytes)
    if left < row:
        raise BudgetError(
            f"{what} needs at least {format_bytes(fixed_bytes + row)} per worker "
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
