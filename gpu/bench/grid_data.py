"""Data and oracles of the gridding benchmark (:mod:`uvlab.gpu.bench.grid_bench`).

- :func:`make_uv`: MeerKAT-like u, v (wavelengths) of ``2016 baselines ×
  ntime × nchan`` records in MS order (time, baseline, channel), from the
  per-antenna uvw of :func:`uvlab.gpu.bench.predict_bench.make_observation`
  (no astropy), built on the device when ``xp`` is cupy.
- :func:`make_vis`: seeded complex Gaussian visibilities (unit weights), the
  random-strength test NUFFT accuracy is usually quoted for.
- :func:`sampled_error`: error of an image against the float64 direct DFT
  on every k-th pixel (a labelled, subsampled reference).
- :func:`time_ducc`: ``ducc0.wgridder`` on all host cores, the same image
  (through :mod:`uvlab.gpu.ducc_engine`).
"""

from __future__ import annotations

import math

import numpy as np

from uvlab.gpu import ducc_engine
from uvlab.gpu.bench.predict_bench import make_observation
from uvlab.gpu.constants import C_LIGHT
from uvlab.gpu.timing import StageTimer

#: MeerKAT L band, 856–1712 MHz, split into nchan equal channels.
F_LO_HZ, F_HI_HZ = 0.856e9, 1.712e9


def channel_freqs(nchan: int) -> np.ndarray:
    """Centres of ``nchan`` equal channels across the L band, Hz."""
    width = (F_HI_HZ - F_LO_HZ) / nchan
    return F_LO_HZ + width * (np.arange(nchan) + 0.5)


def make_uv(ant_eq, ntime: int, nchan: int, xp=np, *, ha_span_h: float = 8.0, dec_deg=-30.0):
    """u, v in wavelengths, (ntime·nbl·nchan,) float64 each, MS order.

    Hour angles span ±ha_span_h/2 at declination ``dec_deg``.
    """
    obs = make_observation(ant_eq, ntime, 1, ha_span_h=ha_span_h, dec_deg=dec_deg)
    ant = xp.asarray(obs.ant_uvw)  # (time, nant, 3) m
    p, q = xp.asarray(obs.ant1), xp.asarray(obs.ant2)
    k = xp.asarray(channel_freqs(nchan) / C_LIGHT)
    out = []
    for axis in (0, 1):
        b = ant[:, p, axis] - ant[:, q, axis]  # (time, nbl)
        out.append((b[:, :, None] * k).ravel())
    return out[0], out[1]


def make_vis(n: int, xp=np, dtype=np.complex128, seed: int = 7):
    """(n,) complex Gaussian visibilities of unit variance per part."""
    if xp is np:
        rng = np.random.default_rng(seed)
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    rng = xp.random.default_rng(seed)
    re = rng.standard_normal(n, dtype=np.float64)
    im = rng.standard_normal(n, dtype=np.float64)
    return (re + 1j * im).astype(dtype)


def central_mask(n: int) -> np.ndarray:
    """(n,) bool: the central half of an axis of n sampled pixels."""
    idx = np.arange(n)
    return (idx >= n // 4) & (idx < n - n // 4)


def sampled_error(img, ref, step: int) -> dict:
    """Error of ``img`` at every ``step``-th pixel against the sampled DFT ``ref``.

    Returns ``rel_l2`` (‖img − ref‖/‖ref‖ over the sampled pixels),
    ``rel_l2_central`` (central half of the image) and ``max_over_peak``
    (max |img − ref| / max |ref|).
    """
    from uvlab.gpu.backend import to_numpy

    sub = np.asarray(to_numpy(img[::step, ::step]), dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    err = sub - ref
    c = central_mask(ref.shape[0])
    cc = np.ix_(c, c)
    return {
        "dft_pixel_step": int(step),
        "rel_l2": float(np.linalg.norm(err) / np.linalg.norm(ref)),
        "rel_l2_central": float(np.linalg.norm(err[cc]) / np.linalg.norm(ref[cc])),
        "max_over_peak": float(np.abs(err).max() / np.abs(ref).max()),
    }


def dft_reference(u, v, vis, spec, step: int) -> np.ndarray:
    """Float64 DFT image on every ``step``-th pixel (host array), on u's device."""
    from uvlab.gpu.backend import to_numpy
    from uvlab.gpu.gridders.dft import dirty_dft

    return to_numpy(dirty_dft(u, v, vis, spec, pixels=step))


def ducc_available() -> bool:
    """Whether ducc0 can be compared (:func:`uvlab.gpu.ducc_engine.available`)."""
    return ducc_engine.available()


def time_ducc(u, v, vis, spec, eps: float, repeats: int = 2, nthreads: int = 0):
    """Median seconds of ducc0's ``vis2dirty`` and its image.

    Host arrays; ``vis`` complex64 runs ducc0 in single precision. The image
    is uvlab's ``[j, i]`` (:func:`uvlab.gpu.ducc_engine.dirty_image`); only
    the ducc0 call is timed.
    """
    times, img = [], None
    for _ in range(max(1, repeats)):
        timer = StageTimer()
        img = ducc_engine.dirty_image(
            u, v, vis, spec.npix, spec.cell_rad, eps, nthreads=nthreads, timer=timer
        )
        times.append(timer.seconds()["grid"])
    return float(np.median(times)), img


def cell_for(u, v) -> float:
    """Cell of 3 pixels per synthesised beam (uvlab's default), from the longest baseline."""
    from uvlab.gpu.image_spec import default_cell_rad

    uvmax = math.sqrt(float((u * u + v * v).max()))
    return default_cell_rad(uvmax)
