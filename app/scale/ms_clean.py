"""CLEAN of a MeasurementSet over row chunks on a Dask cluster (issue 27).

CASA's design for parallel CLEAN: the minor cycles run on the client, on images;
every pass over the visibilities is map–reduce over row chunks on the workers.

- The CLEAN PSF of side 2N (weighted on the N² image's uv cells, as
  :func:`~uvlab.gpu.deconvolution.inputs.wide_psf` makes it) is made in parts.
- Cotton–Schwab's major cycle is a :class:`ClusterMajorCycle`: the model goes to
  every worker once per cycle, each chunk degrids it, subtracts and grids its residual.
- Where the selection's data fit the memory uvlab may use, :func:`hold` reads every
  chunk once and the workers keep it (Dask futures) for all of CLEAN's passes; where
  they do not, each pass reads the rows again, and no worker keeps more than its
  chunk, so memory stays bounded whatever the MS.

Both sum grids where the imaging does (:func:`~uvlab.gpu.imaging.co_grid.grids_in_parts`:
uvlab's own separable gridders on the CPU), as the dirty image does
(:func:`~uvlab.app.scale.ms_image.grid_sum`): a chain per worker grids its chunks into one
grid of its own — the PSF alone, or the residual ``w·(V − D(model))`` with the model's
visibilities read from the model's grid, which each worker makes once per cycle from the
model image (:func:`~uvlab.gpu.imaging.grid_parts.model_grid`: one FFT per worker per
cycle) — the grids are summed on the workers and one FFT and correction finish them.
The model image (8·N² bytes) is what crosses the network, not its grid (16 bytes a cell
of the padded grid, ≥ 4× more) and the client never holds a grid: the workers hold it
anyway to read from. ``ducc`` adds each worker's chunks into one ducc0 NUFFT
(:func:`~uvlab.app.scale.ms_image.nufft_sum`): the PSF alone, or the residual with the
model's visibilities read from ducc0's type-2 NUFFT of the model, which each worker's
accumulator makes at its first chunk. Otherwise (w-stacking, GPU workers) every chunk is imaged
to a whole image (:func:`~uvlab.gpu.imaging.parts.psf_part`,
:func:`~uvlab.gpu.deconvolution.parts.residual_part`), each worker adds its chunks' images
into one, and the workers' images are added (:func:`~uvlab.app.scale.chains.fold_sum`).

The loop itself is the engine's one driver
(:func:`~uvlab.gpu.deconvolution.driver.run_clean`), the one ``uvlab image --niter``
and the window run in one process: the result equals theirs to rounding.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from uvlab.app.scale.chains import fold_sum
from uvlab.app.scale.ms_image import (
    MSRead,
    grid_sum,
    nufft_sum,
    source_chunks,
    summing,
)
from uvlab.app.scale.ms_read import Held, chunk_data


@dataclass(frozen=True)
class Pass:
    """What every pass over the chunks shares: the cluster, the data and the imaging."""

    client: object
    source: MSRead | tuple[MSRead, ...]
    spec: object
    weighting: object
    totals: object
    chunk_rows: int
    algorithm: str = "conv"
    params: object = None
    device: str = "cpu"
    #: The chunks' data held on the workers (futures, :func:`hold`), or None: read per pass.
    held: tuple | None = None
    #: ``cancelled()``, asked as each chunk of every pass ends (the window's CLEAN): True
    #: stops the pass (:class:`~uvlab.app.scale.chains.Cancelled`).
    cancelled: object = None

    @property
    def chunks(self) -> list:
        """Every chunk: its data held on the workers, else (source, rows) of each
        spectral window's row chunks, read by the task."""
        if self.held is not None:
            return list(self.held)
        return source_chunks(self.source, self.chunk_rows)

    @property
    def xp(self):
        """The array module the client's minor cycles run on (CuPy for ``device`` "gpu")."""
        from uvlab.gpu.backend import get_xp

        return get_xp(device=self.device)

    @property
    def summed(self) -> str:
        """How every pass sums the chunks' parts (:func:`~uvlab.app.scale.ms_image.summing`):
        ``"grids"``, ``"nufft"`` or ``"images"``."""
        return summing(self.algorithm, self.params, self.device)

    @property
    def by_grids(self) -> bool:
        return self.summed == "grids"

    @property
    def by_nufft(self) -> bool:
        return self.summed == "nufft"

    def run(self, fn, *, spec=None, weighting=None, **kwargs):
        """Σ of ``fn((source, rows), …)`` over the chunks, a
        :class:`~uvlab.gpu.imaging.parts.PartImage`; ``spec`` and ``weighting`` default to
        the imaging's."""
        return fold_sum(
            self.client, fn, self.chunks, spec=spec or self.spec,
            weighting=weighting or self.weighting, totals=self.totals,
            algorithm=self.algorithm, params=self.params, device=self.device,
            cancelled=self.cancelled, **kwargs,
        ).result()  # fmt: skip

    def grid(self, fn, *, spec=None, weighting=None, per_worker=None, **kwargs):
        """Σ of the chunks gridded by ``fn(chunk, acc, …)`` into a grid per worker, finished
        once (:func:`~uvlab.app.scale.ms_image.grid_sum`), a
        :class:`~uvlab.gpu.imaging.parts.PartImage`."""
        return grid_sum(
            self.client, self.chunks, spec=spec or self.spec, algorithm=self.algorithm,
            params=self.params, fn=fn, per_worker=per_worker,
            weighting=weighting or self.weighting, totals=self.totals,
            cancelled=self.cancelled, **kwargs,
        )  # fmt: skip

    def nufft(self, *, spec=None, weighting=None, **kwargs):
        """Σ of the chunks added into a ducc0 NUFFT a worker, each transformed once
        (:func:`~uvlab.app.scale.ms_image.nufft_sum`), a
        :class:`~uvlab.gpu.imaging.parts.PartImage`."""
        return nufft_sum(
            self.client, self.chunks, spec=spec or self.spec,
            weighting=weighting or self.weighting, totals=self.totals, params=self.params,
            cancelled=self.cancelled, **kwargs,
        )  # fmt: skip


def hold(job: Pass) -> Pass:
    """``job`` with every chunk read once and kept on the workers for all later passes.

    The reads are submitted here and run as the workers can; the data stay while the
    returned Pass (its futures) lives. Call it only where :func:`~uvlab.app.scale.budget.
    held_bytes` of the selection fits the memory the workers may use.
    """
    if job.held is not None:
        return job
    futures = tuple(job.client.submit(_held, c, pure=False) for c in job.chunks)
    return replace(job, held=futures)


def _held(chunk):
    return Held(chunk_data(chunk))


def _psf(chunk, *, spec, weighting, totals, algorithm, params, device):
    from uvlab.gpu.imaging.parts import psf_part

    vd = chunk_data(chunk)
    return psf_part(
        vd.uvw, vd.freq_hz, vd.vis, vd.weight, vd.flag, spec, weighting, totals,
        algorithm=algorithm, params=params, device=device,
    )  # fmt: skip


def _residual(chunk, *, spec, weighting, totals, model, algorithm, params, device):
    from uvlab.gpu.deconvolution.parts import cycle_residual, part_cycle

    vd = chunk_data(chunk)

    def make():
        return part_cycle(
            vd.uvw, vd.freq_hz, vd.vis, vd.weight, vd.flag, spec, weighting, totals,
            algorithm=algorithm, params=params, device=device,
        )  # fmt: skip

    if device == "gpu" and isinstance(chunk, Held):  # its samples stay in device memory
        cycle = chunk.cycle((spec, weighting, totals, algorithm, params), make)
    else:
        cycle = make()
    return cycle_residual(cycle, model, on_device=device == "gpu")


def _psf_grid(chunk, acc, *, spec, weighting, totals, algorithm, params):
    from uvlab.gpu.imaging.grid_parts import grid_part

    vd = chunk_data(chunk)
    return grid_part(
        vd.uvw, vd.freq_hz, vd.vis, vd.weight, vd.flag, spec, weighting, totals,
        algorithm=algorithm, params=params, dirty=False, into=acc,
    )  # fmt: skip


def _model_grid(model, *, spec, algorithm, params):
    from uvlab.gpu.imaging.grid_parts import model_grid

    return model_grid(model, spec, algorithm, params)


def _residual_grid(chunk, acc, *, spec, weighting, totals, algorithm, params, model=None):
    from uvlab.gpu.imaging.grid_parts import grid_part

    vd = chunk_data(chunk)
    return grid_part(
        vd.uvw, vd.freq_hz, vd.vis, vd.weight, vd.flag, spec, weighting, totals,
        algorithm=algorithm, params=params, psf=False, into=acc, model=model,
    )  # fmt: skip


def wide_psf_ms(job: Pass):
    """The CLEAN PSF of side 2N of ``job``'s N² image, (2N, 2N) float64, peak 1 at [N, N].

    Weighted on the N² image's uv cells (``density_npix`` = N) with the N² image's
    density totals, as :func:`~uvlab.gpu.deconvolution.inputs.wide_psf` weights it.
    """
    from uvlab.gpu.image_spec import ImageSpec

    n = job.spec.npix
    wide = ImageSpec(2 * n, job.spec.cell_rad)
    weighting = replace(job.weighting, density_npix=n)
    if job.by_grids:
        _, psf = job.grid(_psf_grid, spec=wide, weighting=weighting).normalised()
    elif job.by_nufft:
        _, psf = job.nufft(spec=wide, weighting=weighting, dirty=False).normalised()
    else:
        _, psf = job.run(_psf, spec=wide, weighting=weighting).normalised()
    return psf


class ClusterMajorCycle:
    """Cotton–Schwab's major cycle over the cluster: ``residual(model)`` as
    :class:`~uvlab.gpu.deconvolution.cotton_schwab.MajorCycle` gives it for all the data.

    ``passes`` counts the passes over the data; ``seconds`` their time; ``summed`` says
    what the chunks' parts were: ``"grids"`` (a grid per worker, one FFT a cycle on the
    summing worker and one of the model on each), ``"nufft"`` (ducc0's NUFFTs of the
    model and the residual on each worker, one FFT each) or ``"images"`` (an FFT per chunk).
    """

    def __init__(self, job: Pass):
        self.job = job
        self.passes = 0
        self.seconds = 0.0
        self.summed = job.summed

    def residual(self, model):
        from uvlab.app.scale.chains import broadcast
        from uvlab.gpu.backend import to_numpy

        t0 = time.perf_counter()
        job, scattered = self.job, None
        if model is not None:  # sent to every worker once, not with every chunk task
            scattered = broadcast(job.client, to_numpy(model))
        if job.by_nufft:  # each worker transforms the model once, for all its chunks
            dirty, _ = job.nufft(psf=False, model=scattered).normalised()
        elif not job.by_grids:
            dirty, _ = job.run(_residual, model=scattered).normalised()
        else:
            per_worker = None
            if scattered is not None:  # each worker's model grid, made there once

                def per_worker(worker):
                    fut = job.client.submit(
                        _model_grid, scattered, spec=job.spec, algorithm=job.algorithm,
                        params=job.params, workers=[worker], allow_other_workers=False,
                        pure=False,
                    )  # fmt: skip
                    return {"model": fut}

            dirty, _ = job.grid(_residual_grid, per_worker=per_worker).normalised()
        self.passes += 1
        self.seconds += time.perf_counter() - t0
        return self.job.xp.asarray(dirty)


def plane_inputs_ms(jobs, deconvolver: str):
    """(PSFs, major cycles) of CLEAN's planes over the cluster, one :class:`Pass` each: the
    (P, 2N, 2N) PSFs (:func:`wide_psf_ms`) and, for Cotton–Schwab, each plane's
    :class:`ClusterMajorCycle` (None for Högbom) — what the joined CLEANs of ``--pol`` and
    ``--channels-out`` in row chunks are handed."""
    import numpy as np

    psfs = np.stack([wide_psf_ms(j) for j in jobs])
    majors = [ClusterMajorCycle(j) for j in jobs] if deconvolver == "cotton-schwab" else None
    return psfs, majors


def clean_ms(job: Pass, dirty, opts, *, mask=None, driver=None):
    """``opts``' CLEAN of ``job``'s image: (the driver's last CleanCycle, the 2N PSF, major).

    Högbom cleans ``dirty`` (the image of all the data, :func:`~uvlab.app.scale.ms_image.
    image_ms`); Cotton–Schwab makes every residual from the visibilities over the cluster.
    ``driver(dirty, psf, opts, mask=, major=)`` runs the cycles to their end (default
    :func:`~uvlab.gpu.deconvolution.driver.run_clean`; the command line's shows progress).
    """
    from uvlab.gpu.deconvolution.driver import run_clean

    psf = wide_psf_ms(job)
    major = ClusterMajorCycle(job) if opts.deconvolver == "cotton-schwab" else None
    xp = job.xp
    out = (driver or run_clean)(xp.asarray(dirty), xp.asarray(psf), opts, mask=mask, major=major)
    return out, psf, major
