"""ducc0's images in parts: each worker spreads its parts into one NUFFT grid, one FFT.

``ducc`` grids into ducc0's own padded grid, which uvlab cannot hold or add
(:mod:`~uvlab.gpu.imaging.grid_parts` sums uvlab's grids), so each of its parts used to be
a whole image (:func:`~uvlab.gpu.imaging.parts.image_part`: the padded grid, its FFT and
correction per part). ducc0's incremental type-1 NUFFT
(:func:`~uvlab.gpu.ducc_engine.incremental_nufft`) keeps that grid inside one object
across batches of samples: a worker adds each part's samples to it
(:func:`nufft_part`) and transforms once (:func:`finish_nufft`), giving the
:class:`~uvlab.gpu.imaging.parts.PartImage` of all its parts; workers' images add.

The dirty image and PSF share one grid. Both are real parts, ``Re F(w·V)`` and
``Re F(w)`` with ``F(p) = Σ p·e^{−2πi(u·l + v·m)}``; a sample at (u, v) with value
``(w·V + i·w)/2`` and its mirror at (−u, −v) with ``(conj(w·V) + i·w)/2`` give
``F = Re F(w·V) + i·Re F(w)``: the dirty image in the real part, the PSF in the
imaginary. So a worker holds one padded grid (about (2N)² × 16 bytes, ducc0's σ ≈ 2),
not two, and spreads twice its samples: what ducc0's two-transform plan of the
one-process image spreads, less the kernel evaluations the plan shares.

ducc0 chooses its grid from ε, σ and the number of samples it expects (``npoints``):
given the whole selection's count, every worker of every split chooses the same grid as
the one-process image's plan, and the images agree to rounding
(tests/gpu/imaging/test_nufft_parts.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.imaging.parts import PartImage, counted_samples
from uvlab.gpu.imaging.weighting import Weighting


def nufft_in_parts(algorithm: str, params=None, device: str = "cpu") -> bool:
    """Whether ``algorithm`` with ``params`` on ``device`` adds its parts in a NUFFT of
    ducc0's: an algorithm the catalogue images through ducc0's NUFFT plan
    (``Algorithm.nufft_plan``), without the w-term, on the CPU (``"auto"`` where it
    resolves to the CPU here; ducc0 is host-only, its images are copied to a GPU)."""
    from uvlab.gpu.backend import resolve_device
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.gridders.registry import algorithm as record

    rec = record(algorithm)
    params = params or GridParams()
    if rec.nufft_plan is None or rec.corrects_w(params):
        return False
    return (resolve_device("auto") if device == "auto" else device) == "cpu"


@dataclass(eq=False)
class NufftPart:
    """A worker's NUFFT of its parts so far, and their weights' sums.

    Attributes
    ----------
    transform : ducc0 incremental NUFFT or None
        Made at the first usable samples (None before: nothing to transform).
    dirty, psf : bool
        The products it holds: both share the transform (the module's docstring).
    sum_weights, nvis, sum_weighted_freq_hz
        As :class:`~uvlab.gpu.imaging.parts.PartImage`'s.
    """

    dirty: bool = True
    psf: bool = True
    transform: object = None
    sum_weights: float = 0.0
    nvis: int = 0
    sum_weighted_freq_hz: float = 0.0
    #: ducc0's type-2 NUFFT of the model its residual reads (``nufft_part``'s ``model``).
    model: object = None

    def __reduce__(self):
        raise TypeError(
            "a NUFFT in parts stays on its worker: its grid is ducc0's and cannot be copied"
        )


def nufft_part(
    uvw, freq_hz, vis, weight, flag, spec: ImageSpec, weighting: Weighting, totals=None, *,
    params=None, npoints: int, psf: bool = True, dirty: bool = True,
    into: NufftPart | None = None, model=None, timer=None,
) -> NufftPart:  # fmt: skip
    """Add one part's weighted samples into ``into`` (a new :class:`NufftPart` when None)
    and return it.

    Arguments as :func:`~uvlab.gpu.imaging.grid_parts.grid_part`'s (``totals`` for
    uniform and Briggs; ``params``: ``eps`` or ``support``, ``sigma``, ``threads``);
    ``npoints``: the samples the whole image has (of every part, every worker), from
    which ducc0 chooses its grid. ``model`` ((N, N) Jy per pixel): the dirty image is
    the residual's, ``w·(V − D(model))`` (Cotton–Schwab's major cycle), the model's
    visibilities read from ducc0's type-2 NUFFT of it, which the accumulator makes at its
    first samples and keeps (``ducc``'s degridder, :func:`~uvlab.gpu.gridders.ducc.predict`,
    with one FFT for all the parts).
    """
    from uvlab.gpu import ducc_engine
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.timing import timed

    params = params or GridParams()
    acc = into if into is not None else NufftPart(dirty=dirty, psf=psf)
    if (acc.dirty, acc.psf) != (dirty, psf) or not (dirty or psf):
        raise ValueError("the NUFFT to add to does not hold the products asked for")
    counted = counted_samples(uvw, freq_hz, vis, weight, flag, spec, weighting, totals, acc)
    if counted is None:
        return acc
    s, wt, keep = counted
    w = wt[keep]
    wvis = None
    if dirty:
        wvis = s.take(np.asarray(vis))[keep].astype(np.complex128, copy=False)
        if model is not None:
            if acc.model is None:
                acc.model = ducc_engine.incremental_predict(
                    model, params.accuracy(), npoints=npoints, sigma=params.sigma,
                    nthreads=params.threads,
                )  # fmt: skip
            with timed(timer, "degrid"):
                wvis -= ducc_engine.read_nufft_points(acc.model, s.u[keep], s.v[keep],
                                                      spec.cell_rad)  # fmt: skip
        wvis *= w
    if dirty and psf:  # both in one grid: the real and imaginary parts (module docstring)
        values = np.concatenate([wvis + 1j * w, wvis.conj() + 1j * w]) * 0.5
    else:
        values = wvis if dirty else w + 0j
    del wvis
    if acc.transform is None:
        acc.transform = ducc_engine.incremental_nufft(
            spec.npix, params.accuracy(), npoints=npoints, sigma=params.sigma,
            nthreads=params.threads,
        )  # fmt: skip
    with timed(timer, "grid"):
        ducc_engine.add_nufft_points(acc.transform, s.u[keep], s.v[keep], values,
                                     spec.cell_rad, mirrored=dirty and psf)  # fmt: skip
    return acc


def finish_nufft(acc: NufftPart, *, timer=None) -> PartImage:
    """The unnormalised images of a :class:`NufftPart`'s samples: ducc0 transforms and
    corrects its grid once (``acc`` is spent)."""
    from uvlab.gpu.timing import timed

    acc.model = None  # the model's transform: not needed past the last part
    if acc.transform is None:
        return PartImage(None, None, 0.0, 0)
    with timed(timer, "FFT"):
        grid = acc.transform.evaluate_and_reset()
    acc.transform = None
    both = acc.dirty and acc.psf
    dirty = np.ascontiguousarray(grid.real) if acc.dirty else None
    psf = np.ascontiguousarray(grid.imag if both else grid.real) if acc.psf else None
    del grid
    return PartImage(dirty, psf, acc.sum_weights, acc.nvis, acc.sum_weighted_freq_hz)
