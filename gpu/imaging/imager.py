"""One entry point from visibilities to a dirty image and PSF, for every algorithm.

The dispatcher does what all algorithms share: select unflagged samples,
convert uvw to wavelengths, weight, call the algorithm's ``dirty`` function
(the DFT or a gridder, from the catalogue :mod:`uvlab.gpu.gridders.registry`),
and normalise by Σw so that the PSF peaks at 1 and a 1 Jy point source reads
1 Jy/beam (DESIGN §1). Each stage is timed (DESIGN §4).

On the GPU every algorithm keeps the data on the device: the flat samples go
host→device once, then weighting, gridding (the CUDA gridders of
:mod:`uvlab.gpu.gridders.cuda_gridders`, in ``params.precision``), FFT and
correction run there, and only the two images come back (device→host).

On the CPU what the last image shares with the next is reused from an
:class:`~uvlab.gpu.imaging.reuse.ImagingCache` (the selected samples, their
weights, ``conv``'s NUFFT plan, the PSF; each kept by its own inputs, so the
image is the one a fresh run makes), and ``conv`` on ducc0 grids the dirty
image and the PSF in one pass. Stages: "sort / bin" (selecting the samples,
ducc0's plan), "weighting", "grid" (ducc0's gridding, FFT and correction
together; the NumPy gridders time their own FFT and correction).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from uvlab.gpu.backend import resolve_device, to_numpy
from uvlab.gpu.blocks import block_done
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.reuse import ImagingCache, select_samples
from uvlab.gpu.imaging.weighting import Weighting
from uvlab.gpu.timing import StageTimer


class ImagingError(ValueError):
    """The data cannot be imaged as asked (all flagged, bad sizes, ...)."""


@dataclass(frozen=True)
class ImageResult:
    """A dirty image, its PSF and how long each stage took.

    Attributes
    ----------
    dirty, psf : (N, N) float64
        Normalised by Σw; ``psf`` is None when not requested.
    sum_weights : float
    nvis : int
        Samples with nonzero weight.
    timing : dict
        Stage → seconds.
    mean_freq_hz : float
        The imaging-weighted mean frequency ``Σ w·f / Σ w`` (WSClean's centre frequency),
        where it was computed (a multi-frequency-synthesis image,
        :func:`~uvlab.gpu.imaging.mfs.mfs_image`); NaN otherwise.
    """

    dirty: np.ndarray
    psf: np.ndarray | None
    sum_weights: float
    nvis: int
    algorithm: str
    device: str
    timing: dict = field(default_factory=dict)
    mean_freq_hz: float = float("nan")

    @property
    def grid_rate(self) -> float:
        """Gridding rate: weighted visibilities per second of the grid stage."""
        t = self.timing.get("grid", 0.0)
        return self.nvis / t if t > 0 else float("nan")


def flatten_samples(uvw, freq_hz, vis, weight, flag=None, xp=np):
    """(row, chan) data → flat u, v, w in wavelengths, vis and weight of usable samples.

    Samples that are flagged, have non-positive or non-finite weight, or
    non-finite visibilities are dropped. ``xp`` (numpy or cupy) is where the
    selection runs; inputs are moved there first
    (:func:`uvlab.gpu.imaging.reuse.select_samples`).
    """
    vis = xp.asarray(vis)
    s = select_samples(uvw, freq_hz, weight, flag, vis=vis, xp=xp)
    flat = vis.reshape(-1)
    return s.u, s.v, s.w, flat if s.index is None else flat[s.index], s.weight


def make_image(
    uvw,
    freq_hz,
    vis,
    weight,
    spec: ImageSpec,
    *,
    flag=None,
    weighting: Weighting | None = None,
    algorithm: str = "conv",
    params=None,
    device: str = "auto",
    psf: bool = True,
    cache: ImagingCache | None = None,
    data_key=None,
    vis_key=None,
    on_block=None,
    on_device: bool = False,
) -> ImageResult:
    """Image (row, chan) visibilities with one algorithm.

    Parameters
    ----------
    uvw : (row, 3) float, metres
    freq_hz : (chan,) float
    vis : (row, chan) complex
    weight : (row, chan) float or broadcastable
    spec : ImageSpec
    flag : (row, chan) bool, optional
    weighting : Weighting, default natural
    algorithm : str
        A name of the catalogue (:data:`uvlab.gpu.gridders.registry.NAMES`):
        ``"dft"`` or a gridder.
    params : GridParams, optional
        Gridder parameters (kernel, ε, support, oversampling, padding).
    device : {"auto", "cpu", "gpu"}
    psf : bool
        Also make the PSF.
    cache : ImagingCache, optional
        What earlier images of the same samples left to reuse
        (:mod:`uvlab.gpu.imaging.reuse`: the selection, weights, gridding
        plan and PSF); a fresh one when None. The image is the same either way.
    data_key, vis_key : hashable, optional
        Names the caller vouches for: of the content of ``uvw``, ``freq_hz``,
        ``weight`` and ``flag``, and of ``vis``. With a cache they replace the
        fingerprint on the CPU, and on the GPU keep the samples and the
        visibilities on the device between calls.
    on_block : callable() -> None, optional
        CPU only: called between blocks of the gridding (:mod:`uvlab.gpu.blocks`),
        a cancel check that stops the imaging by raising. The image is the same
        with and without it.
    on_device : bool
        GPU only: the images stay CuPy arrays in device memory (a part added into its
        worker's sum there, :func:`~uvlab.gpu.imaging.parts.image_part`); else NumPy.

    Raises
    ------
    ImagingError
        When no sample has nonzero weight.
    """
    weighting = weighting or Weighting()
    dev = resolve_device(device)
    if dev != "gpu":
        return _cpu_image(
            uvw,
            freq_hz,
            vis,
            weight,
            spec,
            flag,
            weighting,
            algorithm,
            params,
            psf,
            cache,
            data_key,
            on_block,
        )
    return _gpu_image(
        uvw, freq_hz, vis, weight, spec, flag, weighting, algorithm, params, psf, cache,
        data_key, vis_key, on_device,
    )  # fmt: skip


def make_psf(
    uvw, freq_hz, vis, weight, spec: ImageSpec, *, flag=None, weighting: Weighting | None = None,
    algorithm: str = "conv", params=None, device: str = "auto", on_block=None,
):  # fmt: skip
    """The PSF alone, normalised by Σw (no dirty image made): a CLEAN PSF of side 2N.

    Arguments as :func:`make_image` (``vis`` only decides which samples are usable, as
    there; ``on_block`` is checked between blocks of the gridding on the CPU). For the
    PSF of an N² image at 2N, give the N image's density cells:
    ``Weighting(..., density_npix=N)``.

    Returns
    -------
    (N, N) float64 NumPy array
    """
    weighting = weighting or Weighting()
    dev = resolve_device(device)
    xp = np
    if dev == "gpu":
        import cupy as xp
    timer = StageTimer(gpu=dev == "gpu")
    s, _, wts = _weighted_samples(
        ImagingCache(), uvw, freq_hz, vis, weight, flag, spec, weighting, timer, "select",
        xp=xp,
    )  # fmt: skip
    fn = _algorithm(algorithm, params, xp, on_block=on_block if xp is np else None)
    img = fn(s.u, s.v, wts.weight.astype(xp.complex128), spec, w=s.w, timer=timer)
    return np.asarray(to_numpy(img), dtype=np.float64) / wts.total


def _gpu_image(
    uvw, freq_hz, vis, weight, spec, flag, weighting, algorithm, params, psf, cache,
    data_key, vis_key, on_device=False,
):  # fmt: skip
    """:func:`make_image` on the GPU; with keys, what ``cache`` kept stays on the device;
    ``on_device``: the images too (not copied to the host, the PSF not cached)."""
    import cupy as xp

    cache = cache if cache is not None else ImagingCache()
    timer = StageTimer(gpu=True)
    # Move the (row, chan) arrays once (or not at all: kept) and select the usable samples.
    s, vis_f, wts = _weighted_samples(
        cache, uvw, freq_hz, vis, weight, flag, spec, weighting, timer, "host→device",
        data_key=data_key, vis_key=vis_key, xp=xp,
    )  # fmt: skip
    fn = _algorithm(algorithm, params, xp)
    psf_img = cache.psf(s, spec, weighting, algorithm, params) if psf else None
    make_psf = psf and psf_img is None
    # the sort / bin of these points, kept with the samples: dirty and PSF share it, and
    # so does the next image of the same samples (another weighting, a sky edit)
    plan = cache.gpu_bin_plan(s, spec, algorithm, params, timer)
    opts = {} if plan is None else {"plan": plan}
    dirty = fn(s.u, s.v, wts.weight * vis_f, spec, w=s.w, timer=timer, **opts)
    if make_psf:
        psf_img = fn(s.u, s.v, wts.weight.astype(xp.complex128), spec, w=s.w, timer=timer, **opts)
    dirty = dirty.astype(xp.float64) / wts.total
    if make_psf:
        psf_img = psf_img.astype(xp.float64) / wts.total
    if not on_device:
        with timer.stage("device→host"):  # widened and scaled on the device: one copy each
            dirty = to_numpy(dirty)
            if make_psf:
                psf_img = to_numpy(psf_img)
                cache.store_psf(s, spec, weighting, algorithm, params, psf_img)
    return ImageResult(dirty, psf_img, wts.total, wts.nonzero, algorithm, "gpu", timer.seconds())


def _weighted_samples(
    cache, uvw, freq_hz, vis, weight, flag, spec, weighting, timer, stage,
    *, data_key=None, vis_key=None, xp=np,
):  # fmt: skip
    """(samples, their visibilities, their imaging Weights) from ``cache``, on ``xp``.

    The selection is timed as ``stage``; on the GPU the visibilities' device
    copy is kept under ``vis_key``. Non-finite visibilities are dropped too
    (nothing is then kept). ImagingError when nothing is left to image.
    """
    with timer.stage(stage):
        s = cache.samples(uvw, freq_hz, weight, flag, data_key=data_key, xp=xp)
        vis_x = vis if xp is np else cache.device_vis(vis, vis_key, xp)
        vis_f = s.take(vis_x)
        if not bool(xp.isfinite(vis_f.sum())):  # some non-finite: drop them too, keep nothing
            vis_x = xp.asarray(vis)
            s = select_samples(uvw, freq_hz, weight, flag, vis=vis_x, xp=xp)
            vis_f = s.take(vis_x)
    if s.nvis == 0:
        raise ImagingError("every sample is flagged or has zero weight: nothing to image")
    with timer.stage("weighting"):
        wts = cache.weights(s, spec, weighting)
    if not wts.total > 0:
        raise ImagingError("the imaging weights sum to zero: nothing to image")
    return s, vis_f, wts


def _cpu_image(
    uvw, freq_hz, vis, weight, spec, flag, weighting, algorithm, params, psf, cache, data_key=None,
    on_block=None,
):  # fmt: skip
    """:func:`make_image` on the CPU, reusing what ``cache`` kept (the same image).

    The samples, their weights, the algorithm's NUFFT plan and the PSF come
    from the cache when their inputs are those of its last image. An
    algorithm that ``co_grids_psf`` (``ducc`` without the w-term) grids the
    dirty image and the PSF in one pass, and so does a separable chain
    (:mod:`~uvlab.gpu.imaging.co_grid`).
    """
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.gridders.registry import algorithm as record
    from uvlab.gpu.imaging.co_grid import co_grids, dirty_and_psf

    cache = cache if cache is not None else ImagingCache()
    params = params or GridParams()
    timer = StageTimer()
    s, vis_f, wts = _weighted_samples(
        cache, uvw, freq_hz, vis, weight, flag, spec, weighting, timer, "sort / bin",
        data_key=data_key,
    )  # fmt: skip
    block_done(on_block)
    psf_img = cache.psf(s, spec, weighting, algorithm, params) if psf else None
    make_psf = psf and psf_img is None
    rec = record(algorithm)
    if rec.co_grids_psf and not rec.corrects_w(params):
        block_done(on_block)
        plan = cache.nufft_plan(rec, s, spec, params, timer)
        block_done(on_block)
        wvis = np.empty((2 if make_psf else 1, s.nvis), dtype=np.complex128)
        np.multiply(wts.weight, vis_f, out=wvis[0])
        if make_psf:
            wvis[1] = wts.weight
        images = rec.cpu(s.u, s.v, wvis, spec, params, w=s.w, timer=timer, plan=plan)
        dirty, psf_img = images[0], images[1] if make_psf else psf_img
    elif make_psf and co_grids(algorithm, params):  # a separable chain: one pass for both
        block_done(on_block)
        dirty, psf_img = dirty_and_psf(
            s.u, s.v, wts.weight * vis_f, wts.weight, spec, algorithm, params, timer=timer,
            on_block=on_block,
        )  # fmt: skip
    else:
        fn = _algorithm(algorithm, params, on_block=on_block)
        dirty = fn(s.u, s.v, wts.weight * vis_f, spec, w=s.w, timer=timer)
        if make_psf:
            psf_img = fn(s.u, s.v, wts.weight.astype(np.complex128), spec, w=s.w, timer=timer)
    block_done(on_block)
    if make_psf:
        psf_img = np.asarray(psf_img, dtype=np.float64) / wts.total
        cache.store_psf(s, spec, weighting, algorithm, params, psf_img)
    dirty = np.asarray(dirty, dtype=np.float64) / wts.total
    return ImageResult(dirty, psf_img, wts.total, wts.nonzero, algorithm, "cpu", timer.seconds())


def _algorithm(name: str, params, xp=np, on_block=None):
    """The catalogue's function for ``name`` and ``xp``, with ``params`` bound.

    On the CPU, ``on_block`` (a cancel check) is bound too; the GPU paths take none.
    """
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.gridders.registry import algorithm

    gridder = algorithm(name).gridder(xp)
    params = params or GridParams()
    if xp is not np:
        return lambda u, v, wvis, spec, *, w=None, timer=None, **opts: gridder(
            u, v, wvis, spec, params, w=w, timer=timer, **opts
        )

    def run(u, v, wvis, spec, *, w=None, timer=None):
        return gridder(
            to_numpy(u),
            to_numpy(v),
            to_numpy(wvis),
            spec,
            params,
            w=None if w is None else to_numpy(w),
            timer=timer,
            on_block=on_block,
        )

    return run
