"""Independent oracles shared by the gridder tests, and tests of the oracles.

- :func:`dft_image`: a float64 direct sum ``Re Σ wvis·exp(−2πi(u·l + v·m [+ w·(n−1)]))``
  on an ImageSpec's pixels, chunked over records.
- :func:`layout_uv`: the uv coverage of a real array (CASA ``.cfg`` in local
  ENU metres) over an hour-angle track, from uvlab's DESIGN §1 geometry.
- :func:`sky_vis`: point sources placed exactly on pixels.

Other test modules import these (``from test_gridders_oracle import …``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from uvlab.gpu.geometry import baseline_uvw
from uvlab.gpu.imaging.spec import ImageSpec

ARRAYS = Path(__file__).resolve().parents[2] / "resources" / "arrays"
MEERKAT_LAT_DEG = -30.7130
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


def layout_uv(
    name: str = "meerkat",
    n_times: int = 16,
    freq_hz: float = 1.4e9,
    dec_deg: float = -45.0,
    lat_deg: float = MEERKAT_LAT_DEG,
    hours: float = 8.0,
):
    """(u, v, w) in wavelengths of a LOC-format array over an hour-angle track.

    ENU → local equatorial: ``Lx = −sin(lat)·N + cos(lat)·U``, ``Ly = E``,
    ``Lz = cos(lat)·N + sin(lat)·U``.
    """
    enu = np.loadtxt(ARRAYS / f"{name}.cfg", usecols=(0, 1, 2), comments="#")
    lat = np.deg2rad(lat_deg)
    e, n, up = enu.T
    leq = np.stack(
        [-np.sin(lat) * n + np.cos(lat) * up, e, np.cos(lat) * n + np.sin(lat) * up], axis=1
    )
    p, q = np.triu_indices(len(leq), 1)
    ha = np.linspace(-np.pi * hours / 24, np.pi * hours / 24, n_times)
    uvw = baseline_uvw(leq[p] - leq[q], ha, np.deg2rad(dec_deg)).reshape(-1, 3)
    uvw = uvw * (freq_hz / C_LIGHT)
    return uvw[:, 0], uvw[:, 1], uvw[:, 2]


def sky_vis(u, v, spec: ImageSpec, sources) -> np.ndarray:
    """Visibilities ``Σ f·exp(+2πi(u·l + v·m))`` of point sources on pixels.

    ``sources``: iterable of ``(di, dj, flux)`` pixel offsets from the
    centre (``i = N/2 + di``, ``j = N/2 + dj``); may lie outside the image.
    """
    vis = np.zeros(np.shape(u), dtype=complex)
    for di, dj, flux in sources:
        l, m = -di * spec.cell_rad, dj * spec.cell_rad
        vis += flux * np.exp(2j * np.pi * (u * l + v * m))
    return vis


def meerkat_spec(u, v, npix: int, oversample: float = 3.0) -> ImageSpec:
    """Image spec with cell = 1/(oversample·max|u, v|)."""
    uvmax = max(np.abs(u).max(), np.abs(v).max())
    return ImageSpec(npix, 1.0 / (oversample * uvmax))


def test_dft_image_matches_plain_loop(rng):
    spec = ImageSpec(8, 1e-3)
    u, v, w = rng.normal(0, 200, (3, 50))
    wvis = rng.normal(size=50) + 1j * rng.normal(size=50)
    plain = np.zeros((8, 8))
    plain_w = np.zeros((8, 8))
    for j, m in enumerate(spec.m_axis()):
        for i, l in enumerate(spec.l_axis()):
            n1 = np.sqrt(1 - l * l - m * m) - 1
            plain[j, i] = np.real(np.sum(wvis * np.exp(-2j * np.pi * (u * l + v * m))))
            ph = u * l + v * m + w * n1
            plain_w[j, i] = np.real(np.sum(wvis * np.exp(-2j * np.pi * ph)))
    np.testing.assert_allclose(dft_image(u, v, wvis, spec, chunk=7), plain, atol=1e-10)
    np.testing.assert_allclose(dft_image(u, v, wvis, spec, w=w, chunk=16), plain_w, atol=1e-10)


def test_point_source_on_pixel_peaks_there():
    u, v, _ = layout_uv(n_times=4)
    spec = meerkat_spec(u, v, 32)
    img = dft_image(u, v, sky_vis(u, v, spec, [(5, -3, 1.0)]), spec) / u.size
    assert np.unravel_index(np.argmax(img), img.shape) == (16 - 3, 16 + 5)
    assert abs(img.max() - 1.0) < 1e-12


def test_layout_uv_is_a_real_track():
    u, v, w = layout_uv(n_times=3)
    # (u, v, w) is a rotation of each baseline: lengths are kept.
    enu = np.loadtxt(ARRAYS / "meerkat.cfg", usecols=(0, 1, 2))
    p, q = np.triu_indices(len(enu), 1)
    assert u.shape == (3 * p.size,)
    length = np.tile(np.linalg.norm(enu[p] - enu[q], axis=1), 3) * 1.4e9 / C_LIGHT
    np.testing.assert_allclose(np.sqrt(u**2 + v**2 + w**2), length, rtol=1e-12)
