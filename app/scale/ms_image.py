"""A MeasurementSet imaged as map–reduce over row chunks on a Dask cluster.

Each task reads one row chunk of the selection on its worker (uvlab's reader,
:func:`~uvlab.app.ms.reader.read_visibilities` with ``row_range``: the same
selection, Stokes product, weights, flags and non-finite handling as every other
read). The separable gridders on the CPU grid it into their worker's grids in place
(:func:`uvlab.gpu.imaging.grid_parts.grid_part`, a chain of tasks per worker,
:func:`grid_sum`), the grids are summed on one worker and finished there once (one FFT
in all). ``ducc`` without the w-term adds its worker's chunks into one ducc0 NUFFT
(:func:`uvlab.gpu.imaging.nufft_parts.nufft_part`, :func:`nufft_sum`): one FFT a worker,
the workers' images added. The other algorithms image each chunk with the engine
(:func:`uvlab.gpu.imaging.parts.image_part`), each worker adds its chunks' images into one
of its own, and the workers' images are added pairwise on the workers
(:func:`~uvlab.app.scale.chains.fold_sum`: one image per worker crosses the network, not
one per chunk). The client divides once. Uniform and Briggs weighting take a
first pass over the chunks for the density of all the data
(:func:`uvlab.gpu.imaging.parts.part_counts`), whose totals every task of the second pass
receives. No process ever holds the whole selection: a worker holds its chunk and the
image-sized part (its grids, or an image part).

Several spectral windows (one :class:`MSRead` each) make one multi-frequency-synthesis
image: the tasks are the windows' row chunks, every one imaged at its own window's
frequencies with the density of all the windows (:mod:`uvlab.gpu.imaging.mfs`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from uvlab.app.scale.ms_read import MSRead, chunk_data


@dataclass(frozen=True)
class PartsImage:
    """The image of all the chunks: normalised like ``make_image``'s, with its sums."""

    dirty: np.ndarray
    psf: np.ndarray | None
    sum_weights: float
    nvis: int
    chunks: int
    algorithm: str
    device: str
    timing: dict = field(default_factory=dict)
    mean_freq_hz: float = float("nan")
    #: The density totals (a future on the cluster) for uniform and Briggs, else None:
    #: what every later pass over the same data (CLEAN's) weights with.
    totals: object = None
    #: What the chunks' parts were: ``"grids"`` (summed, one FFT), ``"nufft"`` (ducc0's
    #: NUFFT of each worker's chunks, one FFT a worker) or ``"images"`` (an FFT a chunk).
    summed: str = "images"


def summing(algorithm: str, params=None, device: str = "cpu") -> str:
    """How the chunks' parts of ``algorithm`` are summed on the cluster, every pass alike:
    ``"grids"`` (uvlab's separable gridders on the CPU,
    :func:`~uvlab.gpu.imaging.co_grid.grids_in_parts`), ``"nufft"`` (``ducc`` without the
    w-term, :func:`~uvlab.gpu.imaging.nufft_parts.nufft_in_parts`) or ``"images"``."""
    from uvlab.gpu.imaging.co_grid import grids_in_parts
    from uvlab.gpu.imaging.nufft_parts import nufft_in_parts

    if grids_in_parts(algorithm, params, device):
        return "grids"
    return "nufft" if nufft_in_parts(algorithm, params, device) else "images"


def row_chunks(nrow: int, rows: int) -> list[tuple[int, int]]:
    """[(start, stop), …] covering 0 … nrow in chunks of at most ``rows``."""
    rows = max(1, int(rows))
    return [(a, min(a + rows, nrow)) for a in range(0, nrow, rows)]


def source_chunks(source, rows: int) -> list[tuple[MSRead, tuple[int, int]]]:
    """(source, rows) of every chunk: each spectral window's (an MSRead each) row chunks."""
    sources = (source,) if isinstance(source, MSRead) else tuple(source)
    return [(s, r) for s in sources for r in row_chunks(s.count(), rows)]


def _counts(chunk, acc, *, spec, weighting, device="cpu"):
    from uvlab.gpu.imaging.parts import part_counts

    vd = chunk_data(chunk)
    return part_counts(
        vd.uvw, vd.freq_hz, vd.vis, vd.weight, vd.flag, spec, weighting, acc, device=device
    )


def _band(counts):
    """What a worker sends of its chain's counts: the rows of the grid that hold any
    (:class:`~uvlab.gpu.imaging.parts.CountsBand`, in host memory), each product's."""
    from uvlab.app.scale.products import Products
    from uvlab.gpu.imaging.parts import CountsBand

    if isinstance(counts, Products):
        return Products(CountsBand.of(c) for c in counts)
    return CountsBand.of(counts)


def _totals(counts, k=None, *, weighting=None):
    """The density totals of the summed counts (product ``k``'s where there are several),
    rank-filtered where ``weighting`` asks for it."""
    from uvlab.gpu.imaging.parts import density_totals

    return density_totals(counts if k is None else counts[k], weighting)


def _image(chunk, *, spec, weighting, totals, algorithm, params, device, psf):
    from uvlab.gpu.imaging.parts import image_part

    vd = chunk_data(chunk)
    return image_part(
        vd.uvw, vd.freq_hz, vd.vis, vd.weight, vd.flag, spec, weighting, totals,
        algorithm=algorithm, params=params, device=device, psf=psf, on_device=device == "gpu",
    )  # fmt: skip


#: Bands a worker's grid is sent in to the worker that sums them (:func:`grid_sum`).
REDUCE_BANDS = 16


def _grid(chunk, acc, *, spec, weighting, totals, algorithm, params, psf):
    from uvlab.gpu.imaging.grid_parts import grid_part

    vd = chunk_data(chunk)
    return grid_part(
        vd.uvw, vd.freq_hz, vd.vis, vd.weight, vd.flag, spec, weighting, totals,
        algorithm=algorithm, params=params, psf=psf, into=acc,
    )  # fmt: skip


def _grid_band(grid, band, nbands):
    return grid.band(band, nbands)


def _add_band(grid, piece, band, nbands, *after):
    return grid.add(piece, band, nbands)


def _finish(grid, *after, spec, algorithm, params):
    from uvlab.app.scale.products import each_of
    from uvlab.gpu.imaging.grid_parts import finish

    return each_of(finish, grid, spec=spec, algorithm=algorithm, params=params)


def grid_sum(
    client, chunks, *, spec, algorithm, params, progress=None, cancelled=None, fn=_grid,
    per_worker=None, **kw,
):  # fmt: skip
    """The images of all ``chunks`` by summing grids: a chain per worker
    (:func:`~uvlab.app.scale.chains.run_chains`), the chains added on the workers, one
    :func:`~uvlab.gpu.imaging.grid_parts.finish`. Returns a
    :class:`~uvlab.gpu.imaging.parts.PartImage`.

    ``fn(chunk, acc, spec=, algorithm=, params=, **kw)`` grids a chunk into its chain's
    :class:`~uvlab.gpu.imaging.grid_parts.PartGrid` (default: the dirty image and PSF;
    CLEAN's passes give theirs, :mod:`uvlab.app.scale.ms_clean`); ``per_worker`` as
    :func:`~uvlab.app.scale.chains.run_chains`'s.
    """
    from uvlab.app.scale.chains import reduce_on_workers, run_chains

    same = dict(spec=spec, algorithm=algorithm, params=params)
    chains = run_chains(client, fn, chunks, progress=progress, cancelled=cancelled,
                        per_worker=per_worker, **same, **kw)  # fmt: skip
    worker, total, after = reduce_on_workers(client, _grid_band, _add_band, chains, REDUCE_BANDS)
    del chains
    done = client.submit(_finish, total, *after, **same, workers=[worker], pure=False)
    del total, after
    return done.result()


def _nufft(chunk, acc, *, spec, weighting, totals, params, nchunks, psf=True, dirty=True,
           model=None):  # fmt: skip
    from uvlab.gpu.imaging.nufft_parts import nufft_part

    vd = chunk_data(chunk)
    return nufft_part(
        vd.uvw, vd.freq_hz, vd.vis, vd.weight, vd.flag, spec, weighting, totals, params=params,
        npoints=vd.vis.size * nchunks, psf=psf, dirty=dirty, into=acc, model=model,
    )  # fmt: skip


def _nufft_finish(acc):
    from uvlab.app.scale.products import each_of
    from uvlab.gpu.imaging.nufft_parts import finish_nufft

    return each_of(finish_nufft, acc)


def nufft_sum(client, chunks, *, progress=None, cancelled=None, fn=_nufft, **kw):
    """The images of all ``chunks`` by ducc0's NUFFT in parts: a chain per worker adds its
    chunks into one NUFFT (:func:`~uvlab.gpu.imaging.nufft_parts.nufft_part`; ducc0
    expects the chain's first chunk's samples times the chunks), each worker transforms
    once, and the workers' images are added. Returns a
    :class:`~uvlab.gpu.imaging.parts.PartImage`; ``kw`` as :func:`_nufft`'s."""
    from uvlab.app.scale.chains import pairwise_sum, run_chains

    chains = run_chains(client, fn, chunks, progress=progress, cancelled=cancelled,
                        nchunks=len(chunks), **kw)  # fmt: skip
    images = [client.submit(_nufft_finish, acc, workers=[worker], allow_other_workers=False,
                            pure=False) for worker, acc in chains]  # fmt: skip
    del chains
    return pairwise_sum(client, images).result()


def image_ms(
    client, source, spec, weighting, *, chunk_rows: int, algorithm: str = "conv",
    params=None, device: str = "cpu", psf: bool = True, cancelled=None, totals=None,
    progress=None,
) -> PartsImage:  # fmt: skip
    """Image ``source`` in chunks of ``chunk_rows`` rows on ``client``'s cluster.

    ``source`` is an :class:`MSRead` or a sequence of them (spectral windows, one
    image of all). Equal to :func:`~uvlab.gpu.imaging.imager.make_image` of the whole
    selection read at once (:func:`~uvlab.gpu.imaging.mfs.mfs_image` of the windows),
    to rounding. Raises ``ValueError`` when nothing is left to image.

    The separable gridders on the CPU sum grids (:func:`grid_sum`: one FFT in all;
    :func:`~uvlab.gpu.imaging.co_grid.grids_in_parts`), ``ducc`` a NUFFT per worker
    (:func:`nufft_sum`); the others sum images (:func:`~uvlab.app.scale.chains.fold_sum`
    of :func:`~uvlab.gpu.imaging.parts.image_part`: an FFT per chunk). ``cancelled()``,
    asked as each chunk ends, stops it
    (:class:`~uvlab.app.scale.chains.Cancelled`). ``totals``: the density totals to weight
    with (a future on the cluster, another image's :attr:`PartsImage.totals`: WSClean's MF
    weighting of an output channel by the density of all channels) instead of this
    selection's own; its density pass is then skipped.

    A ``source`` with ``products`` (several ``--pol`` products, :mod:`uvlab.app.scale.
    products`) reads each chunk once for all of them and gives a tuple of PartsImage, one
    per product in order, each equal to the image of that product alone (its own weights
    and, for uniform and Briggs, its own density).

    ``progress(fraction, stage)``, besides the terminal's bars, is called as each chunk
    ends with the fraction of all the passes done (the density pass the first half where
    there is one): the window's progress (:mod:`uvlab.app.lab.ms_streamed`).
    """
    from functools import partial

    from uvlab.app.runtime.progress import progress_bar
    from uvlab.app.scale.chains import broadcast, chain_sum, fold_sum
    from uvlab.app.scale.products import each_fold, each_map, per_product
    from uvlab.gpu.imaging.parts import needs_density

    timing: dict[str, float] = {}
    chunks = source_chunks(source, chunk_rows)
    reads = (source,) if isinstance(source, MSRead) else tuple(source)
    for read in reads:  # the selection's rows found once, here, not by every worker
        read.share_plan(client)
    many = bool(reads and reads[0].products)
    mapped = (lambda f: partial(each_map, f)) if many else (lambda f: f)
    folded = (lambda f: partial(each_fold, f)) if many else (lambda f: f)
    each = {"varying": ("totals",)} if many else {}
    density = needs_density(weighting) and totals is None

    def told(bar, stage, lo):  # the bar, and ``progress`` over both passes
        if progress is None:
            return bar
        half = 0.5 if density else 1.0
        return lambda f: (bar(f), progress(lo + half * f, stage))

    if density:
        t0 = time.perf_counter()
        with progress_bar("read + weights", total=len(chunks), unit="chunk") as bar:
            counts = chain_sum(client, folded(_counts), chunks, spec=spec, weighting=weighting,
                               device=device, progress=told(bar, "read + weights", 0.0),
                               cancelled=cancelled, finish=_band)  # fmt: skip
        # the totals made where the counts' sum is and copied worker to worker: the
        # (2N)² grid never goes through this process
        totals = (
            tuple(
                broadcast(
                    client,
                    future=client.submit(_totals, counts, k, weighting=weighting, pure=False),
                )
                for k in range(len(reads[0].products))
            )
            if many
            else broadcast(
                client, future=client.submit(_totals, counts, weighting=weighting, pure=False)
            )
        )
        del counts
        timing["read + density"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    summed = summing(algorithm, params, device)
    lo = 0.5 if density else 0.0
    if summed == "nufft":
        with progress_bar("read + grid", total=len(chunks), unit="chunk") as bar:
            total = nufft_sum(client, chunks, spec=spec, weighting=weighting, totals=totals,
                              params=params, psf=psf, progress=told(bar, "read + grid", lo),
                              cancelled=cancelled,
                              fn=folded(_nufft), **each)  # fmt: skip
    elif summed == "grids":
        with progress_bar("read + grid", total=len(chunks), unit="chunk") as bar:
            total = grid_sum(
                client, chunks, spec=spec, algorithm=algorithm, params=params,
                weighting=weighting, totals=totals, psf=psf,
                progress=told(bar, "read + grid", lo), cancelled=cancelled, fn=folded(_grid),
                **each,
            )  # fmt: skip
    else:
        with progress_bar("read + grid + FFT", total=len(chunks), unit="chunk") as bar:
            total = fold_sum(
                client, mapped(_image), chunks, spec=spec, weighting=weighting, totals=totals,
                algorithm=algorithm, params=params, device=device, psf=psf,
                progress=told(bar, "read + grid + FFT", lo), cancelled=cancelled, **each,
            ).result()  # fmt: skip
    timing["read + grid"] = time.perf_counter() - t0
    out = []
    for k, part in enumerate(total if many else (total,)):
        dirty, psf_img = part.normalised()
        out.append(PartsImage(
            dirty, psf_img, part.sum_weights, part.nvis, len(chunks), algorithm, device,
            dict(timing), part.mean_freq_hz, per_product(totals, k), summed,
        ))  # fmt: skip
    return tuple(out) if many else out[0]
