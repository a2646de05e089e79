"""Independent reference computations the tests share, written out in float64.

Each is the definition itself, not uvlab's code path: what uvlab computes is
checked against these.

- :func:`dft_image`: the direct sum ``Re Σ wvis·exp(−2πi(u·l + v·m [+ w·(n−1)]))`` on an
  ImageSpec's pixels, chunked over records; :func:`plain_dft`, the same sum pixel by pixel;
  :func:`dft_pixels`, the same sum at chosen rows and columns of pixels only.
- :func:`image_vis`: visibilities ``Σ img·exp(+2πi(u·l + v·m [+ w·(n−1)]))`` of a model
  image, pixel by pixel (the degridders' reference).
- :func:`sky_vis`: visibilities ``Σ f·exp(+2πi(u·l + v·m))`` of point sources at pixel offsets.
- :func:`brightness`: one correlation of DESIGN §1's brightness matrix for Stokes (I, Q, U, V).
- :func:`pixel_radec`: the direction of a pixel, the SIN projection inverted.
- :func:`peak_fit`: the sub-pixel position of an extremum (a parabola through 3 pixels per axis).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.image_spec import ImageSpec

#: The speed of light (m/s), written out here.
C_LIGHT = 299792458.0


def dft_image(u, v, wvis, spec: ImageSpec, w=None, chunk: int = 4096) -> np.ndarray:
    """Direct float64 DFT image ``img[j, i]`` (unnormalised), w-term when w is given."""
    u, v = np.asarray(u, float), np.asarray(v, float)
    wvis = np.asarray(wvis, complex)
    l, m = spec.l_axis(), spec.m_axis()
    img = np.zeros((spec.npix, spec.npix))
    if w is None:
        for s in range(0, u.size, chunk):
            eu = np.exp(-2j * np.pi * np.outer(u[s : s + chunk], l))
            ev = np.exp(-2j * np.pi * np.outer(v[s : s + chunk], m))
            img += np.real((ev * wvis[s : s + chunk, None]).T @ eu)
        return img
    ll, mm = np.meshgrid(l, m)
    nm1 = np.sqrt(1.0 - ll**2 - mm**2) - 1.0
    step = max(1, chunk // spec.npix)
    for s in range(0, u.size, step):
        sl = slice(s, s + step)
        ph = (
            u[sl, None, None] * ll
            + v[sl, None, None] * mm
            + np.asarray(w, float)[sl, None, None] * nm1
        )
        img += np.real(np.tensordot(wvis[sl], np.exp(-2j * np.pi * ph), axes=1))
    return img


def dft_pixels(u, v, wvis, spec: ImageSpec, rows, cols, w=None) -> np.ndarray:
    """:func:`dft_image` at the pixels ``[rows] × [cols]`` only: (len(rows), len(cols)) float64."""
    l = spec.l_axis()[np.asarray(cols)]
    m = spec.m_axis()[np.asarray(rows)]
    ll, mm = np.meshgrid(l, m)
    nm1 = np.sqrt(1.0 - ll**2 - mm**2) - 1.0
    w = np.zeros(len(u)) if w is None else np.asarray(w, float)
    img = np.zeros(ll.shape)
    for k in range(len(u)):
        ph = u[k] * ll + v[k] * mm + w[k] * nm1
        img += np.real(wvis[k] * np.exp(-2j * np.pi * ph))
    return img


def plain_dft(u, v, wvis, spec: ImageSpec, w=None) -> np.ndarray:
    """The same sum as :func:`dft_image`, one pixel at a time (w-term when w is given)."""
    img = np.zeros((spec.npix, spec.npix))
    for j, m in enumerate(spec.m_axis()):
        for i, l in enumerate(spec.l_axis()):
            if w is None:
                ph = u * l + v * m
            else:
                ph = u * l + v * m + w * (np.sqrt(1 - l * l - m * m) - 1)
            img[j, i] = np.real(np.sum(wvis * np.exp(-2j * np.pi * ph)))
    return img


def image_vis(img, u, v, spec: ImageSpec, w=None) -> np.ndarray:
    """Visibilities ``Σ_{j,i} img[j, i]·exp(+2πi(u·l_i + v·m_j [+ w·(n − 1)]))``, per pixel."""
    u, v = np.asarray(u, float), np.asarray(v, float)
    vis = np.zeros(u.shape, dtype=complex)
    for j, m in enumerate(spec.m_axis()):
        for i, l in enumerate(spec.l_axis()):
            if img[j, i] == 0:
                continue
            ph = u * l + v * m
            if w is not None:
                ph = ph + np.asarray(w, float) * (np.sqrt(1 - l * l - m * m) - 1)
            vis += img[j, i] * np.exp(2j * np.pi * ph)
    return vis


def sky_vis(u, v, spec: ImageSpec, sources) -> np.ndarray:
    """Visibilities ``Σ f·exp(+2πi(u·l + v·m))`` of point sources on pixels.

    ``sources``: iterable of ``(di, dj, flux)`` pixel offsets from the
    centre (``i = N/2 + di``, ``j = N/2 + dj``, i.e. ``l = −di·cell``,
    ``m = +dj·cell``); may be fractional and may lie outside the image.
    """
    vis = np.zeros(np.shape(u), dtype=complex)
    for di, dj, flux in sources:
        l, m = -di * spec.cell_rad, dj * spec.cell_rad
        vis += flux * np.exp(2j * np.pi * (u * l + v * m))
    return vis


def brightness(name: str, iquv) -> complex:
    """One correlation of DESIGN §1's brightness matrix for Stokes (I, Q, U, V).

    Linear ``[[XX, XY], [YX, YY]] = [[I+Q, U+iV], [U−iV, I−Q]]``; circular
    ``[[RR, RL], [LR, LL]] = [[I+V, Q+iU], [Q−iU, I−V]]``.
    """
    i, q, u, v = iquv
    return {
        "XX": i + q, "XY": u + 1j * v, "YX": u - 1j * v, "YY": i - q,
        "RR": i + v, "RL": q + 1j * u, "LR": q - 1j * u, "LL": i - v,
    }[name]  # fmt: skip


def pixel_radec(ra0_deg: float, dec0_deg: float, cell_rad: float, di: int, dj: int):
    """(RA, Dec) in degrees of the direction on pixel offset (di, dj) from the centre.

    DESIGN §1 image axes: l = −di·cell, m = +dj·cell; the SIN projection
    inverted in float64 (written out here, independently of uvlab.gpu.geometry).
    """
    ra0, dec0 = np.radians(ra0_deg), np.radians(dec0_deg)
    l, m = -di * cell_rad, dj * cell_rad
    n = np.sqrt(1.0 - l * l - m * m)
    dec = np.arcsin(m * np.cos(dec0) + n * np.sin(dec0))
    ra = ra0 + np.arctan2(l, n * np.cos(dec0) - m * np.sin(dec0))
    return float(np.degrees(ra) % 360.0), float(np.degrees(dec))


def peak_fit(img: np.ndarray, j: int, i: int) -> tuple[float, float]:
    """Sub-pixel (j, i) of an extremum at pixel (j, i): a parabola through 3 pixels per axis."""

    def vertex(a, b, c):
        den = a - 2 * b + c
        return 0.0 if den == 0 else 0.5 * (a - c) / den

    return (
        j + vertex(img[j - 1, i], img[j, i], img[j + 1, i]),
        i + vertex(img[j, i - 1], img[j, i], img[j, i + 1]),
    )
