"""The DFT reference of a comparison (:mod:`uvlab.app.lab.compare`): subsampled to a budget,
summed over chunks of visibilities so that a long one can be cancelled between them, or
over a MeasurementSet's row chunks on a cluster (:class:`ReferencePart`,
:mod:`uvlab.app.commands.compare_scaled`)."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from uvlab.app.lab.samples import check

#: N²·nvis products the DFT reference may cost, per device, before it is subsampled
#: (``uvlab compare``, compare mode) or skipped (the aliasing task's error map): a few
#: seconds on two CPU cores for a subsampled reference (~6e8–1.5e9/s:
#: :func:`~uvlab.gpu.gridders.dft.dirty_dft`'s recurrence and numba loop), ~20 s for a
#: full-size one (BLAS, ~2e8/s); float64 cuBLAS on a GPU.
DFT_BUDGET = {"cpu": 4.0e9, "gpu": 1.0e14}
#: Bytes the reference's factor matrices may take per chunk.
DFT_CHUNK_BYTES = 256 * 2**20
#: Pixel·visibility products per chunk of a reference that can be cancelled between
#: chunks (the window's tasks), per device: on the CPU ≤ 0.15 s on one core (0.02–0.05 s
#: for a subsampled reference), so that Cancel takes effect within 0.5 s (issue 28); on
#: the GPU as many as before.
REFERENCE_CHUNK_WORK = 2.5e7
REFERENCE_CHUNK_WORK_GPU = 5.0e8


def dft_step(npix: int, nvis: int, budget: float) -> int:
    """Smallest k dividing N/2 with (N/k)²·nvis ≤ ``budget`` (at most N/16, at least 1)."""
    half = npix // 2
    divisors = [k for k in range(1, half + 1) if half % k == 0]
    for k in divisors:
        if (npix / k) ** 2 * nvis <= budget:
            return k
    allowed = [k for k in divisors if k <= max(1, npix // 16)]
    return allowed[-1]


def reference_step(npix: int, nvis: int, step: int | None, device: str) -> int:
    """The reference's subsampling k: ``step`` (``--dft-step``) checked to divide N/2, else
    :func:`dft_step` of :data:`DFT_BUDGET` on ``device`` ("cpu" or "gpu")."""
    if step is None:
        step = dft_step(npix, nvis, DFT_BUDGET[device])
    if step < 1 or (npix // 2) % step:
        raise ValueError(f"reference step {step} must divide N/2 = {npix // 2}")
    return step


def reference_image(u, v, wvis, sumw: float, spec, step: int, device: str):
    """The (subsampled) DFT image normalised by Σw, and the seconds it took."""
    from uvlab.gpu.backend import to_numpy
    from uvlab.gpu.gridders.dft import dirty_dft

    t0 = time.perf_counter()
    n_out = -(-spec.npix // step)
    chunk = int(max(256, DFT_CHUNK_BYTES // (4 * 16 * n_out)))
    if device == "gpu":
        import cupy

        u, v, wvis = cupy.asarray(u), cupy.asarray(v), cupy.asarray(wvis)
        img = to_numpy(dirty_dft(u, v, wvis, spec, pixels=step, chunk=chunk))
        cupy.cuda.Device().synchronize()
    else:
        img = dirty_dft(u, v, wvis, spec, pixels=step, chunk=chunk)
    return img / sumw, time.perf_counter() - t0


def chunked_reference(
    u, v, wvis, sumw: float, spec, step: int, device: str, chunk_work=None, cancelled=None
) -> Iterator[float]:
    """The DFT reference, summed over visibility chunks; yields fractions, returns (image, s).

    ``chunk_work`` bounds the pixel·visibility products per chunk (None: one chunk,
    one :func:`reference_image` call); ``cancelled()`` is polled between chunks.
    """
    n_out = -(-spec.npix // step)
    nchunk = 1 if chunk_work is None else max(1, math.ceil(n_out**2 * u.size / chunk_work))
    edges = np.linspace(0, u.size, nchunk + 1).round().astype(int)
    img, seconds = None, 0.0
    for k in range(nchunk):
        sl = slice(edges[k], edges[k + 1])
        part, t = reference_image(u[sl], v[sl], wvis[sl], sumw, spec, step, device)
        img, seconds = (part if img is None else img + part), seconds + t
        check(cancelled)
        yield (k + 1) / nchunk
    return img, seconds


@dataclass(eq=False)
class ReferencePart:
    """The reference's sums over some of the samples (the direct sum is linear in them).

    Attributes
    ----------
    image : (N/k, N/k) float64 or None
        ``Re Σ w·V·e^{…}`` at the reference pixels, not normalised; None for no sample.
    sum_weights : float
        Σw of the imaging weights.
    abs_sum : float
        Σ|w·V| (the bound's numerator, :mod:`uvlab.app.lab.compare_bound`).
    nvis : int
        Samples with nonzero weight.
    seconds : float
        Seconds the DFTs took, summed.
    """

    image: np.ndarray | None
    sum_weights: float = 0.0
    abs_sum: float = 0.0
    nvis: int = 0
    seconds: float = 0.0

    def __add__(self, other: ReferencePart) -> ReferencePart:
        out = ReferencePart(None if self.image is None else self.image.copy(), self.sum_weights,
                            self.abs_sum, self.nvis, self.seconds)  # fmt: skip
        out += other
        return out

    def __iadd__(self, other: ReferencePart) -> ReferencePart:
        if other.image is not None:
            self.image = other.image.copy() if self.image is None else self.image + other.image
        self.sum_weights += other.sum_weights
        self.abs_sum += other.abs_sum
        self.nvis += other.nvis
        self.seconds += other.seconds
        return self

    def normalised(self) -> tuple[np.ndarray, float]:
        """(the reference image, Σ|w·V|/Σw): both divided by Σw once, as in one process."""
        if self.image is None or not self.sum_weights > 0:
            raise ValueError("every sample is flagged or has zero weight: nothing to image")
        return self.image / self.sum_weights, self.abs_sum / self.sum_weights


def reference_part(u, v, wvis, wt, spec, step: int, device: str) -> ReferencePart:
    """:class:`ReferencePart` of some samples: u, v (wavelengths), their weighted
    visibilities ``wvis`` = w·V and imaging weights ``wt`` (flat, host arrays)."""
    wt = np.asarray(wt, dtype=np.float64)
    if not np.any(wt > 0):
        return ReferencePart(None)
    img, seconds = reference_image(u, v, wvis, 1.0, spec, step, device)
    return ReferencePart(
        img, float(wt.sum()), float(np.abs(wvis).sum()), int(np.count_nonzero(wt)), seconds
    )
