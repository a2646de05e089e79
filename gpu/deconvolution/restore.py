"""The restored image: model ⊛ beam + residual, in Jy/beam.

The beam is the fitted elliptical Gaussian (:class:`~uvlab.gpu.deconvolution.beam.Beam`)
with peak 1, so a component of S Jy restores to a peak of S Jy/beam. The
convolution is a linear one by FFT on a grid padded to 2N (no wrap-around), in
the model's namespace (numpy or cupy).
"""

from __future__ import annotations

import functools

import numpy as np

from uvlab.gpu.backend import get_xp
from uvlab.gpu.deconvolution.beam import Beam
from uvlab.gpu.deconvolution.lean_fft import irfft2_spent, rfft2


def beam_image(beam: Beam, npix: int, cell_rad: float, xp=np):
    """(npix, npix) image of ``beam``, peak 1 at ``[npix//2, npix//2]``, on uvlab's axes.

    Column i lies at ``x = −(i − npix/2)·cell`` (east), row j at ``y = (j − npix/2)·cell``.
    """
    a, b, c = beam.quadratic_form()
    off = (xp.arange(int(npix), dtype=xp.float64) - npix // 2) * cell_rad
    x = -off[None, :]
    y = off[:, None]
    q = 2 * b * x * y  # summed in place: one npix² array, not four
    q += a * x * x  # (a·x² + 2b·xy + c·y²), the same sums in another order of operands
    q += c * y * y
    return xp.exp(xp.negative(q, out=q), out=q)


@functools.lru_cache(maxsize=4)
def _beam_ft(beam: Beam, m: int, cell_rad: float, xp_name: str):
    """The real FFT of ``beam`` on an m² grid, peak at [0, 0]: made once per beam and size
    (a CLEAN restores after every chunk, the window's slider at every step)."""
    xp = np if xp_name == "numpy" else get_xp(device="gpu")
    return rfft2(xp.fft.ifftshift(beam_image(beam, m, cell_rad, xp)))


def convolve_beam(model, beam: Beam, cell_rad: float):
    """``model`` (N, N) convolved with ``beam`` (peak 1): Jy/pixel → Jy/beam."""
    xp = get_xp(model)
    n = model.shape[0]
    m = 2 * n
    kernel_ft = _beam_ft(beam, m, float(cell_rad), xp.__name__)  # before the padded model
    padded = xp.zeros((m, m), dtype=xp.float64)
    padded[:n, :n] = model
    ft = rfft2(padded)
    del padded  # each (2N)² array freed once spent (0.25 GiB each at 2880²)
    ft *= kernel_ft
    return irfft2_spent(ft, (m, m))[:n, :n]


def restore(model, residual, beam: Beam, cell_rad: float):
    """Restored image ``model ⊛ beam + residual`` (N, N), Jy/beam.

    Parameters
    ----------
    model : (N, N) float
        Clean components, Jy/pixel (numpy or cupy; the result follows).
    residual : (N, N) float
        Residual image, Jy/beam.
    beam : Beam
        Restoring beam (peak 1).
    cell_rad : float
        Pixel size, radians.
    """
    xp = get_xp(model)
    model = xp.asarray(model, dtype=xp.float64)
    if model.shape != tuple(residual.shape):
        raise ValueError(f"model {model.shape} and residual {tuple(residual.shape)} differ")
    return convolve_beam(model, beam, cell_rad) + xp.asarray(residual, dtype=xp.float64)
