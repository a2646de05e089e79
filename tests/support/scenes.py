"""Scenes the engine tests share: a real array's uv coverage, a sky (NumPy and uvlab.gpu only).

The GPU machine runs ``tests/gpu`` without astropy or casacore, so nothing here
imports ``uvlab.app``; the lab's small observation is in :mod:`tests.support.observations`.

- :func:`layout_uv`: the uv coverage of a real array (CASA ``.cfg`` in local ENU
  metres) over an hour-angle track, from uvlab's DESIGN §1 geometry;
- :func:`meerkat_spec`: an image for that coverage, cell = 1/(3·max|u, v|);
- :data:`PIXEL_SKY`: point sources on pixels, in the field and just outside it;
- :func:`random_sources`: a random sky of points and Gaussians (full Stokes) for the predicts.
"""

from __future__ import annotations

import functools

import numpy as np

from tests.support.oracles import C_LIGHT
from tests.support.paths import ARRAYS
from uvlab.gpu.geometry import baseline_uvw
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.sources import SourceArrays

#: In-field sources plus bright ones just outside the field: (di, dj, Jy) pixel offsets
#: from the centre of a 64² image, as :func:`tests.support.oracles.sky_vis` takes them.
PIXEL_SKY = [(0, 0, 1.0), (9, -13, 0.5), (-20, 17, 0.3), (70, 12, 3.0), (-8, -75, 3.0)]

MEERKAT_LAT_DEG = -30.7130


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


def meerkat_spec(u, v, npix: int, oversample: float = 3.0) -> ImageSpec:
    """Image spec with cell = 1/(oversample·max|u, v|)."""
    uvmax = max(np.abs(u).max(), np.abs(v).max())
    return ImageSpec(npix, 1.0 / (oversample * uvmax))


def random_sources(rng, n: int, fov: float = 0.1, gaussians: bool = True, centre: bool = False):
    """``n`` sources within ``fov`` (direction cosines), half of them Gaussians if asked.

    Stokes I in [−0.5, 2) (negative ones: clean components), Q, U, V normal,
    spectral index ~ N(−0.7, 0.5), reference frequency 0.8–1.6 GHz. With
    ``centre`` the first one sits at the phase centre (no phase, no smearing).
    """
    lm = rng.uniform(-fov / 2, fov / 2, (n, 2))
    if centre:
        lm[0] = 0.0
    lmn = np.column_stack([lm, np.sqrt(1.0 - np.sum(lm**2, axis=1))])
    stokes = rng.normal(size=(n, 4))
    stokes[:, 0] = rng.uniform(-0.5, 2.0, n)
    shape = np.zeros((n, 3))
    if gaussians:
        g = rng.random(n) < 0.5
        shape[g, 0] = rng.uniform(2e-5, 2e-4, g.sum())
        shape[g, 1] = shape[g, 0] * rng.uniform(0.2, 1.0, g.sum())
        shape[g, 2] = rng.uniform(0, np.pi, g.sum())
    return SourceArrays(lmn, stokes, rng.normal(-0.7, 0.5, n), rng.uniform(0.8e9, 1.6e9, n), shape)


@functools.cache
def jones_scene(seed, gaussians=False, nant=5, ntime=3, nsrc=4):
    """(ant_uvw, ant1, ant2, sources) of a small random array for the Jones-chain tests:
    every baseline, and two of them reversed (q < p)."""
    rng = np.random.default_rng(seed)
    ant_uvw = rng.normal(size=(ntime, nant, 3)) * np.array([1500.0, 1500.0, 300.0])
    p, q = np.triu_indices(nant, k=1)
    ant1, ant2 = np.r_[p, q[:2]], np.r_[q, p[:2]]
    src = random_sources(rng, nsrc, 0.03, gaussians, centre=True)
    return ant_uvw, ant1, ant2, src
