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
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from uvlab.gpu.backend import resolve_device, to_numpy
from uvlab.gpu.constants import C_LIGHT
from uvlab.gpu.imaging.spec import ImageSpec
from uvlab.gpu.imaging.weighting import Weighting, imaging_weights
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
    """

    dirty: np.ndarray
    psf: np.ndarray | None
    sum_weights: float
    nvis: int
    algorithm: str
    device: str
    timing: dict = field(default_factory=dict)

    @property
    def grid_rate(self) -> float:
        """Gridding rate: weighted visibilities per second of the grid stage."""
        t = self.timing.get("grid", 0.0)
        return self.nvis / t if t > 0 else float("nan")


def flatten_samples(uvw, freq_hz, vis, weight, flag=None, xp=np):
    """(row, chan) data → flat u, v, w in wavelengths, vis and weight of usable samples.

    Samples that are flagged, have non-positive or non-finite weight, or
    non-finite visibilities are dropped. ``xp`` (numpy or cupy) is where the
    selection runs; inputs are moved there first.
    """
    uvw = xp.asarray(uvw, dtype=xp.float64)
    freq = xp.asarray(freq_hz, dtype=xp.float64)
    vis = xp.asarray(vis)
    nrow, nchan = vis.shape[:2]
    weight = xp.broadcast_to(xp.asarray(weight, dtype=xp.float64), (nrow, nchan))
    ok = (weight > 0) & xp.isfinite(weight) & xp.isfinite(vis)
    if flag is not None:
        ok &= ~xp.broadcast_to(xp.asarray(flag, dtype=bool), (nrow, nchan))
    rows, chans = xp.nonzero(ok)
    scale = freq[chans] / C_LIGHT
    return (
        uvw[rows, 0] * scale,
        uvw[rows, 1] * scale,
        uvw[rows, 2] * scale,
        vis[rows, chans],
        weight[rows, chans],
    )


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

    Raises
    ------
    ImagingError
        When no sample has nonzero weight.
    """
    weighting = weighting or Weighting()
    dev = resolve_device(device)
    timer = StageTimer(gpu=dev == "gpu")
    xp = np
    if dev == "gpu":
        import cupy as xp

        # Move the (row, chan) arrays once and select the usable samples there.
        with timer.stage("host→device"):
            uvw, vis = xp.asarray(uvw), xp.asarray(vis)
            weight = weight if np.ndim(weight) == 0 else xp.asarray(weight)
            flag = None if flag is None else xp.asarray(flag)
    u, v, w, vis_f, wt = flatten_samples(uvw, freq_hz, vis, weight, flag, xp=xp)
    if u.size == 0:
        raise ImagingError("every sample is flagged or has zero weight: nothing to image")
    with timer.stage("weighting"):
        wt = imaging_weights(u, v, wt, spec, weighting)
        sumw = float(wt.sum())
    if not sumw > 0:
        raise ImagingError("the imaging weights sum to zero: nothing to image")
    fn = _algorithm(algorithm, params, xp)
    dirty = fn(u, v, wt * vis_f, spec, w=w, timer=timer)
    psf_img = fn(u, v, wt.astype(xp.complex128), spec, w=w, timer=timer) if psf else None
    nvis = int(xp.count_nonzero(wt))
    with timer.stage("device→host"):
        dirty = np.asarray(to_numpy(dirty), dtype=np.float64) / sumw
        psf_img = None if psf_img is None else np.asarray(to_numpy(psf_img), np.float64) / sumw
    return ImageResult(dirty, psf_img, sumw, nvis, algorithm, dev, timer.seconds())


def _algorithm(name: str, params, xp=np):
    """The catalogue's function for ``name`` and ``xp``, with ``params`` bound."""
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.gridders.registry import algorithm

    gridder = algorithm(name).gridder(xp)
    params = params or GridParams()
    if xp is not np:
        return lambda u, v, wvis, spec, *, w=None, timer=None: gridder(
            u, v, wvis, spec, params, w=w, timer=timer
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
        )

    return run
