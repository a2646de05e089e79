"""Scenes for the CLEAN tests: a MeerKAT PSF and point sources on pixels (NumPy and uvlab.gpu only).

- :func:`meerkat_psf_and_dirty`: the exact (DFT) PSF on 2N² and the dirty image on N²
  of point sources on pixels, for a short MeerKAT track, both normalised by Σw;
- :data:`CLEAN_SKY`: the sources, ``(di, dj, Jy)`` pixel offsets as
  :func:`tests.support.oracles.sky_vis` takes them.
"""

from __future__ import annotations

import functools
from types import SimpleNamespace

import numpy as np

from tests.support.oracles import sky_vis
from tests.support.scenes import layout_uv, meerkat_spec
from uvlab.gpu.gridders.dft import dirty_dft
from uvlab.gpu.image_spec import ImageSpec

#: Point sources on pixels of a 128² image: (di, dj, Jy); one negative.
CLEAN_SKY = [(0, 0, 1.0), (17, -9, 0.5), (-25, 20, 0.8), (30, 31, -0.3), (-12, -33, 0.25)]


@functools.cache
def meerkat_psf_and_dirty(npix: int = 128, n_times: int = 6):
    """(psf (2N, 2N), dirty (N, N), spec): MeerKAT, 2 h, natural weights, exact DFT."""
    u, v, _ = layout_uv("meerkat", n_times=n_times, hours=2.0)
    spec = meerkat_spec(u, v, npix)
    wvis = sky_vis(u, v, spec, CLEAN_SKY)
    dirty = dirty_dft(u, v, wvis, spec) / u.size
    psf = dirty_dft(u, v, np.ones(u.size, complex), ImageSpec(2 * npix, spec.cell_rad)) / u.size
    return psf, dirty, spec


def psf_subtracted(dirty: np.ndarray, psf: np.ndarray, model: np.ndarray) -> np.ndarray:
    """``dirty − PSF ⊛ model`` written out: each model pixel subtracts the PSF shifted there.

    The PSF (side P, peak at ``[P//2, P//2]``) only where it overlaps the image,
    as Högbom subtracts it.
    """
    n, p = dirty.shape[0], psf.shape[0]
    out = np.array(dirty, dtype=np.float64)
    for j, i in zip(*np.nonzero(model)):
        r0, r1 = max(0, j - p // 2), min(n, j - p // 2 + p)
        c0, c1 = max(0, i - p // 2), min(n, i - p // 2 + p)
        out[r0:r1, c0:c1] -= (
            model[j, i] * psf[r0 - j + p // 2 : r1 - j + p // 2, c0 - i + p // 2 : c1 - i + p // 2]
        )
    return out


#: Issue 29's field: (di, dj, Jy) points beside a 2 Jy Gaussian of 150″ × 90″ at the centre.
EXTENDED_POINTS = [(-30, 25, 1.0), (35, -28, 0.5), (24, 30, 0.010)]
EXTENDED_GAUSSIAN_JY = 2.0
EXTENDED_FWHM_ARCSEC = (150.0, 90.0)
EXTENDED_SIGMA_JY = 51e-6


@functools.cache
def extended_field(npix: int = 128, seed: int = 29):
    """Issue 29's field, exact (DFT): a namespace of the scene.

    ``psf`` (2N, 2N), ``dirty`` (N, N), ``total`` (the sky's Jy), ``sigma`` (the image
    noise's σ), ``u``, ``v``, ``vis`` (with the noise, natural weights 1) and ``spec``.

    MeerKAT's baselines within a quarter of its longest (beam ≈ 3.5 pixels of 7″), 1 h,
    natural weights. The dirty image is the DFT of the Gaussian's visibilities (in closed
    form), the points' and complex noise scaled so that the image noise has the standard
    deviation ``sigma`` (51 µJy/beam) — the oracle of every σ and residual.
    """
    u, v, _ = layout_uv("meerkat", n_times=4, hours=1.0)
    keep = np.hypot(u, v) <= 0.25 * np.hypot(u, v).max()
    u, v = u[keep], v[keep]
    spec = meerkat_spec(u, v, npix)
    fwhm = np.radians(np.asarray(EXTENDED_FWHM_ARCSEC) / 3600.0)
    sl, sm = fwhm / np.sqrt(8.0 * np.log(2.0))
    vis = EXTENDED_GAUSSIAN_JY * np.exp(-2.0 * np.pi**2 * ((sl * u) ** 2 + (sm * v) ** 2))
    vis = vis + sky_vis(u, v, spec, EXTENDED_POINTS)
    rng = np.random.default_rng(seed)
    noise = rng.normal(size=u.size) + 1j * rng.normal(size=u.size)
    noise_img = dirty_dft(u, v, noise, spec) / u.size
    scale = EXTENDED_SIGMA_JY / float(noise_img.std())
    dirty = dirty_dft(u, v, vis, spec) / u.size + scale * noise_img
    psf = dirty_dft(u, v, np.ones(u.size, complex), ImageSpec(2 * npix, spec.cell_rad)) / u.size
    total = EXTENDED_GAUSSIAN_JY + sum(f for _, _, f in EXTENDED_POINTS)
    return SimpleNamespace(
        psf=psf, dirty=dirty, total=total, sigma=EXTENDED_SIGMA_JY, u=u, v=v,
        vis=vis + scale * noise, spec=spec,
    )  # fmt: skip
