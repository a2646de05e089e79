"""Built-in demo skies, placed about any phase centre.

Every demo is laid out in direction cosines (l east, m north) as fractions of
the field of view and converted to (RA, Dec) with
:func:`uvlab.gpu.geometry.lmn_to_radec`, so each component lands at exactly
the (l, m) intended, whatever the phase centre. The ``point`` demo sits at the
phase centre itself (l = m = 0 exactly). All are deterministic; ``random``
depends on ``seed``. A demo sky is *relative* (``centre_deg`` the phase
centre it was laid out about): it moves with the pointing
(:meth:`~uvlab.app.skymodel.sky_model.SkyModel.moved_to`).

``random`` makes at most :data:`MAX_RANDOM_SOURCES` sources: each costs ~15 µs
and ~0.5 KiB to build and ~40 µs and ~2 KiB more as a row of ``uvlab sky
show``, so the limit keeps the largest demo to a few seconds and ~200 MiB; a
larger ``n``, or one the available memory cannot hold, is refused at once
(:class:`SkyModelError`, :class:`~uvlab.app.runtime.memory.InsufficientMemoryError`).
Larger models belong in a sky file.
"""

from __future__ import annotations

import math

import numpy as np

from uvlab.app.skymodel.checks import SkyModelError
from uvlab.app.skymodel.component import Component
from uvlab.app.skymodel.sky_model import SkyModel

#: Demo name → one-line description.
DEMO_SKIES: dict[str, str] = {
    "point": "a single 1 Jy point at the phase centre",
    "pair": "1 Jy and 0.5 Jy points, off centre in both l and m",
    "random": "N seeded points (default 20) with power-law fluxes across the field",
    "gaussian": "one 1 Jy elliptical Gaussian at the centre (FWHM 5% x 2.5% of the FoV, PA 30 deg)",
    "teaching": "a bright point, three faint points and a Gaussian in its sidelobes",
    "polarised": "a 1 Jy point at the centre with Q = 0.3, U = -0.2, V = 0.05 Jy",
}

#: Phase centre (RA, Dec) in degrees used when none is given (a southern field).
DEFAULT_CENTRE_DEG = (0.0, -30.0)
#: Most sources the ``random`` demo makes.
MAX_RANDOM_SOURCES = 100_000
#: Memory per ``random`` source: the component, and its row when printed.
_RANDOM_SOURCE_BYTES = 2560

_DEG_TO_ARCSEC = 3600.0


def _at(name, l, m, ra0, dec0, **kwargs) -> Component:
    """A component at direction cosines (l, m) about (ra0, dec0) (radians)."""
    ra, dec = _lm_to_radec(l, m, ra0, dec0)
    return Component(name=name, ra_deg=math.degrees(ra), dec_deg=math.degrees(dec), **kwargs)


def _lm_to_radec(l: float, m: float, ra0: float, dec0: float) -> tuple[float, float]:
    from uvlab.gpu.geometry import lmn_to_radec

    ra, dec = lmn_to_radec(l, m, ra0, dec0)
    return float(ra), float(dec)


def random_layout(n: int, seed, fov_rad: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``random`` demo's intended layout.

    Returns
    -------
    lm : (n, 2) float64
        Direction cosines, uniform in ±0.45·fov (inside the field).
    flux : (n,) float64
        Stokes I, Jy: N(>S) ∝ S^−1.5 (Euclidean counts) above 20 mJy, capped at 2 Jy.
    alpha : (n,) float64
        Spectral indices, normal about −0.7 with σ = 0.2.
    """
    rng = np.random.default_rng(seed)
    half = 0.45 * fov_rad
    lm = rng.uniform(-half, half, size=(n, 2))
    flux = np.minimum(0.02 * (1.0 - rng.uniform(0.0, 1.0, n)) ** (-1.0 / 1.5), 2.0)
    alpha = rng.normal(-0.7, 0.2, n)
    return lm, flux, alpha


def _random_field(n: int, seed, fov: float, ra0, dec0, nu0: float) -> list[Component]:
    from uvlab.gpu.geometry import lmn_to_radec

    lm, flux, alpha = random_layout(n, seed, fov)
    ra, dec = lmn_to_radec(lm[:, 0], lm[:, 1], ra0, dec0)  # all at once: ~3x faster
    width = len(str(n - 1))
    return [
        Component(
            f"rnd{k:0{width}d}",
            ra_deg=math.degrees(r),
            dec_deg=math.degrees(d),
            kind="point",
            stokes=(i, 0.0, 0.0, 0.0),
            ref_freq_hz=nu0,
            spectral_index=a,
        )
        for k, (r, d, i, a) in enumerate(
            zip(ra.tolist(), dec.tolist(), flux.tolist(), alpha.tolist(), strict=True)
        )
    ]


def check_random_count(n) -> int:
    """``n`` as the source count of ``random``, or :class:`SkyModelError` / memory refusal.

    At most :data:`MAX_RANDOM_SOURCES`, and no more than the available memory holds.
    """
    from uvlab.app.runtime.memory import check_memory

    try:
        whole = float(n).is_integer() and n >= 1
    except (TypeError, ValueError, OverflowError):
        whole = False
    if not whole:
        raise SkyModelError(f"n must be a positive integer, got {n!r}")
    if n > MAX_RANDOM_SOURCES:
        raise SkyModelError(
            f"random sky of {int(n)} sources refused: at most {MAX_RANDOM_SOURCES} "
            "(put a larger model in a sky file)"
        )
    check_memory(
        _RANDOM_SOURCE_BYTES * float(n), f"a random sky of {int(n)} sources", hint="use a smaller n"
    )
    return int(n)


def demo_sky(
    name: str,
    ra0_deg: float,
    dec0_deg: float,
    *,
    freq_hz: float = 1.4e9,
    fov_deg: float = 1.0,
    n: int = 20,
    seed: int | None = 0,
) -> SkyModel:
    """A built-in sky about the phase centre (``ra0_deg``, ``dec0_deg``).

    Parameters
    ----------
    name : str
        One of :data:`DEMO_SKIES`.
    ra0_deg, dec0_deg : float
        Phase centre, degrees.
    freq_hz : float
        Reference frequency given to every component, Hz.
    fov_deg : float
        Full field of view, degrees; layouts scale with it.
    n : int
        Number of sources for ``random``.
    seed : int or None
        Seed for ``random`` (``np.random.default_rng``).

    Returns
    -------
    SkyModel
        Named ``"demo:<name>"``, relative: ``centre_deg`` is (``ra0_deg``, ``dec0_deg``).
    """
    key = name.strip().lower()
    if key not in DEMO_SKIES:
        raise SkyModelError(f"unknown demo sky {name!r} (choose from {', '.join(DEMO_SKIES)})")
    if not (math.isfinite(fov_deg) and 0.0 < fov_deg <= 90.0):
        raise SkyModelError(f"fov_deg must be in (0, 90], got {fov_deg!r}")
    if not (-90.0 <= dec0_deg <= 90.0):
        raise SkyModelError(f"phase centre Dec {dec0_deg!r} is outside [-90, 90]")
    ra0, dec0 = math.radians(ra0_deg), math.radians(dec0_deg)
    fov = math.radians(fov_deg)
    size = fov_deg * _DEG_TO_ARCSEC  # arcsec per FoV
    common = {"ref_freq_hz": freq_hz}
    point = {"kind": "point", **common}

    if key == "point":
        comps = [
            Component("centre", ra_deg=ra0_deg, dec_deg=dec0_deg, stokes=(1.0, 0, 0, 0), **point)
        ]
    elif key == "polarised":
        stokes = (1.0, 0.3, -0.2, 0.05)
        comps = [Component("polarised", ra_deg=ra0_deg, dec_deg=dec0_deg, stokes=stokes, **point)]
    elif key == "pair":
        comps = [
            _at("bright", 0.15 * fov, 0.10 * fov, ra0, dec0, stokes=(1.0, 0, 0, 0), **point),
            _at("faint", -0.10 * fov, -0.20 * fov, ra0, dec0, stokes=(0.5, 0, 0, 0), **point),
        ]
    elif key == "gaussian":
        comps = [
            Component(
                "blob",
                kind="gaussian",
                ra_deg=ra0_deg,
                dec_deg=dec0_deg,
                stokes=(1.0, 0, 0, 0),
                major_arcsec=0.05 * size,
                minor_arcsec=0.025 * size,
                pa_deg=30.0,
                **common,
            )
        ]
    elif key == "teaching":
        comps = [
            Component("bright", ra_deg=ra0_deg, dec_deg=dec0_deg, stokes=(1.0, 0, 0, 0), **point),
            _at("faint1", 0.20 * fov, 0.05 * fov, ra0, dec0, stokes=(0.1, 0, 0, 0), **point),
            _at("faint2", -0.15 * fov, 0.22 * fov, ra0, dec0, stokes=(0.05, 0, 0, 0), **point),
            _at("faint3", 0.06 * fov, -0.25 * fov, ra0, dec0, stokes=(0.03, 0, 0, 0), **point),
            _at(
                "lobe",
                -0.25 * fov,
                -0.10 * fov,
                ra0,
                dec0,
                kind="gaussian",
                stokes=(0.2, 0, 0, 0),
                major_arcsec=0.03 * size,
                minor_arcsec=0.015 * size,
                pa_deg=60.0,
                **common,
            ),
        ]
    else:  # random
        comps = _random_field(check_random_count(n), seed, fov, ra0, dec0, freq_hz)
    return SkyModel(tuple(comps), f"demo:{key}", (ra0_deg, dec0_deg))
