"""Primary beams (E-Jones): analytic voltage patterns, beam cubes and the parallactic angle.

A dish of diameter D sees a source at angular distance θ from its pointing with the
**voltage** gain E(θ, ν); the visibility of baseline pq carries E_p·conj(E_q), so a
source's apparent flux is |E|² (the power beam) when the dishes are alike. Every model
here is a scalar voltage pattern (the same on both feeds, no leakage), normalised to
E(0) = 1, with r = sinθ = √(l² + m²) and λ = c/ν:

- ``"airy"``: the uniformly illuminated circular aperture (Born & Wolf §8.5.2),
  ``E = 2·J1(x)/x``, ``x = π·D·r/λ``. Power half-maximum at x = 1.6163 (FWHM
  1.029·λ/D), first null at x = 3.8317 (r = 1.2197·λ/D).
- ``"gaussian"``: ``E = exp(−2 ln 2·r²/θ²)``, θ = k·λ/D the FWHM of the *power*
  pattern |E|²; k = :data:`GAUSSIAN_K` = 1.029 by default, the Airy disk's own
  half-power width, so the two models differ only past the main lobe.
- ``"cos3"``: MeqTrees' WSRT model (``Meq::WSRTCos3Beam``),
  ``E = cos³(min(β·(D/25 m)·ν·r, 1.0881))`` with β = 65e-9 s: for a 25 m dish at
  1.4 GHz a power FWHM of 35.6′ (1.21·λ/D), flat at E = 0.0997 (1 % in power) beyond the
  clip; here scaled to any D.

J1 is the rational approximation of Abramowitz & Stegun 9.4.4 (|x| ≤ 3, error
< 1.3e-8) and 9.4.6 (x > 3, error < 4e-8 on f1 and 9e-8 on θ1), written with the array
module so that NumPy and CuPy give the same numbers (tests check it against
``scipy.special.j1`` to 1e-7).

Beam cubes (:func:`sample_cube`) are sampled as Montblanc and codex-africanus'
``beam_cube_dde`` do: the sky direction rotated by the parallactic angle χ into the
dish's frame (``l' = l·cosχ − m·sinχ``, ``m' = l·sinχ + m·cosχ``), then trilinear
interpolation in (l', m', ν); zero outside the cube's (l, m) extent, the first or last
plane outside its frequency range. A cube may be scalar ``(freq, m, l)`` or a full
Jones cube ``(freq, m, l, 2, 2)`` (``[[xx, xy], [yx, yy]]`` or ``[[rr, rl], [lr, ll]]``,
the codex-africanus / Montblanc layout); trailing axes pass through the interpolation.

Layouts: a per-antenna beam is ``(time, ant, chan, src)`` (any of time and ant may be 1,
broadcasting), or ``(time, ant, chan, src, 2, 2)`` for Jones matrices E — the shapes the
predict paths take (:func:`uvlab.gpu.predict.predict_antennas`). A source's term on
baseline pq is ``E_p·X·E_qᴴ`` (E_p·conj(E_q)·X for scalar beams). The Stokes-I power
beam (:func:`power_beam`) is ``A = ½·Σ_ij |E_ij|²`` = ½·tr(E·Eᴴ), the response to an
unpolarised source, which is |E|² for a scalar beam (E·𝟙).
"""

from __future__ import annotations

import math

import numpy as np

from uvlab.gpu.constants import C_LIGHT

#: Beam models by name.
MODELS = ("airy", "gaussian", "cos3")

#: Default k of the Gaussian model's power FWHM k·λ/D: the Airy disk's half-power width.
GAUSSIAN_K = 1.029

#: MeqTrees' WSRT cos³ constants: β (seconds, for a 25 m dish) and the argument's clip.
COS3_BETA_S = 65e-9
COS3_DISH_M = 25.0
COS3_CLIP = 1.0881

# Abramowitz & Stegun 9.4.4 (J1(x)/x in (x/3)², |x| ≤ 3) and 9.4.6 (f1, θ1 in 3/x).
_AS_SMALL = (0.5, -0.56249985, 0.21093573, -0.03954289, 0.00443319, -0.00031761, 0.00001109)
_AS_F1 = (0.79788456, 0.00000156, 0.01659667, 0.00017105, -0.00249511, 0.00113653, -0.00020033)
_AS_T1 = (-2.35619449, 0.12499612, 0.00005650, -0.00637879, 0.00074348, 0.00079824, -0.00029166)


def _poly(coef, y):
    out = coef[-1] + 0 * y
    for c in coef[-2::-1]:
        out = out * y + c
    return out


def airy_ratio(x, xp=np):
    """2·J1(x)/x for real x (1 at x = 0), Abramowitz & Stegun 9.4.4 / 9.4.6."""
    x = xp.abs(xp.asarray(x, dtype=xp.float64))
    small = x <= 3.0
    xs = xp.where(small, x, 3.0)
    inner = 2.0 * _poly(_AS_SMALL, (xs / 3.0) ** 2)
    xl = xp.where(small, 3.0, x)
    y = 3.0 / xl
    f1 = _poly(_AS_F1, y)
    theta1 = xl + _poly(_AS_T1, y)
    outer = 2.0 * f1 * xp.cos(theta1) / xl**1.5
    return xp.where(small, inner, outer)


def voltage_pattern(model: str, r, freq_hz, dish_m, *, gaussian_k: float = GAUSSIAN_K, xp=np):
    """Scalar voltage pattern E(r, ν; D) of an analytic model, E(0) = 1.

    Parameters
    ----------
    model : {"airy", "gaussian", "cos3"}
    r : array, sinθ = √(l² + m²) of the direction from the pointing centre
    freq_hz : array broadcasting against ``r``, Hz
    dish_m : array broadcasting against ``r``, dish diameter in metres
    gaussian_k : float — the Gaussian's power FWHM in units of λ/D

    Returns
    -------
    float64 array, the broadcast shape of the inputs
    """
    r = xp.asarray(r, dtype=xp.float64)
    nu = xp.asarray(freq_hz, dtype=xp.float64)
    dish = xp.asarray(dish_m, dtype=xp.float64)
    if model == "airy":
        return airy_ratio(math.pi * dish * nu * r / C_LIGHT, xp)
    if model == "gaussian":
        fwhm = gaussian_k * C_LIGHT / (nu * dish)
        return xp.exp(-2.0 * math.log(2.0) * (r / fwhm) ** 2)
    if model == "cos3":
        arg = xp.minimum(COS3_BETA_S * (dish / COS3_DISH_M) * nu * r, COS3_CLIP)
        return xp.cos(arg) ** 3
    raise ValueError(f"beam model {model!r} is not one of {', '.join(MODELS)}")


def antenna_beams(model: str, lmn, freq_hz, dish_m, *, gaussian_k: float = GAUSSIAN_K, xp=np):
    """Per-antenna voltage beams of an analytic model at the sources, (1, ant, chan, src).

    Parameters
    ----------
    model : {"airy", "gaussian", "cos3"}
    lmn : (src, 3) float64 — the sources' direction cosines about the pointing centre
    freq_hz : (chan,) Hz
    dish_m : float or (ant,) float — dish diameters, metres; when they are all equal the
        antenna axis has length 1 (it broadcasts)

    Returns
    -------
    (1, ant or 1, chan, src) float64. Circularly symmetric: the parallactic angle does not
    change it.
    """
    lmn = xp.asarray(lmn, dtype=xp.float64)
    r = xp.sqrt(lmn[:, 0] ** 2 + lmn[:, 1] ** 2)
    dish = np.atleast_1d(np.asarray(dish_m, dtype=np.float64))
    if dish.size > 1 and np.all(dish == dish[0]):
        dish = dish[:1]
    if not np.all(np.isfinite(dish) & (dish > 0)):
        raise ValueError("dish diameters must be finite and > 0 m")
    nu = xp.asarray(freq_hz, dtype=xp.float64)
    e = voltage_pattern(
        model,
        r[None, None, :],
        nu[None, :, None],
        xp.asarray(dish)[:, None, None],
        gaussian_k=gaussian_k,
        xp=xp,
    )
    return e[None]


def is_jones(beam) -> bool:
    """True for 2×2 Jones beams (time, ant, chan, src, 2, 2), False for scalar ones."""
    return beam is not None and beam.ndim == 6 and tuple(beam.shape[-2:]) == (2, 2)


def check_jones_mode(mode: str) -> None:
    """A 2×2 Jones beam acts on the correlations of ``mode``: "linear" or "circular" only."""
    if mode not in ("linear", "circular"):
        raise ValueError(f"2×2 Jones beams need mode 'linear' or 'circular', not {mode!r}")


def power_beam(e, jones: bool, xp=np):
    """The Stokes-I power beam of voltage beams: ``|E|²`` (scalar), ``½·Σ_ij |E_ij|²`` (2×2).

    ``e`` is (…) scalar or, with ``jones``, (…, 2, 2) Jones matrices (the flag, not the
    shape, decides: a scalar beam's last axes may have length 2). ½·Σ|E_ij|² = ½·tr(E·Eᴴ)
    is what an unpolarised 1 Jy source (B = 𝟙) shows in Stokes I = ½(XX + YY) (or
    ½(RR + LL)) through two alike antennas; for E·𝟙 it is |E|². Returns the leading shape,
    real.
    """
    e = xp.asarray(e)
    p = e.real**2 + e.imag**2 if e.dtype.kind == "c" else e * e
    return 0.5 * p.sum(axis=(-2, -1)) if jones else p


def beam_times(beam, sl: slice):
    """The beams (time or 1, ant, chan, src[, 2, 2]) of times ``sl``: all of them when the
    time axis has length 1 (one beam for every time), None for None."""
    if beam is None or beam.shape[0] == 1:
        return beam
    return beam[sl]


def parallactic_angle(ha_rad, dec_rad, lat_rad, xp=np):
    """Parallactic angle χ of a source at hour angle H and declination δ from latitude φ.

    ``χ = atan2(cosφ·sinH, sinφ·cosδ − cosφ·sinδ·cosH)`` (Meeus, eq. 14.1): the angle
    from the direction to the north celestial pole to the zenith, positive west of the
    meridian (H > 0). Inputs broadcast; radians in and out.
    """
    h = xp.asarray(ha_rad, dtype=xp.float64)
    d = xp.asarray(dec_rad, dtype=xp.float64)
    p = xp.asarray(lat_rad, dtype=xp.float64)
    return xp.arctan2(
        xp.cos(p) * xp.sin(h), xp.sin(p) * xp.cos(d) - xp.cos(p) * xp.sin(d) * xp.cos(h)
    )


def _axis_weights(x, x0: float, dx: float, n: int, xp, clamp: bool):
    """Lower index and weight of the upper neighbour along a regular axis x0 + i·dx."""
    f = (x - x0) / dx
    if clamp:
        f = xp.clip(f, 0.0, n - 1.0)
    i0 = xp.clip(xp.floor(f), 0, max(n - 2, 0)).astype(xp.int64)
    w = f - i0
    if n == 1:
        w = xp.zeros_like(f)
    inside = (f >= -1e-9) & (f <= n - 1 + 1e-9)
    return i0, w, inside


def sample_cube(cube, l_axis, m_axis, freq_axis, l, m, freq_hz, chi=None, xp=np):
    """Trilinear interpolation of a beam cube at sky directions, with parallactic rotation.

    As codex-africanus' ``beam_cube_dde``, χ rotates only the sampling coordinates (the
    sky turns over an alt-az dish): the 2×2 matrices of a Jones cube are returned as the
    cube holds them, in the dish's feed frame. The rotation of the feeds against the
    sky's polarisation frame is a separate term (P-Jones, africanus' ``feed_rotation``),
    which is not applied here.

    Parameters
    ----------
    cube : (freq, m, l, *trail) real or complex — voltage pattern planes on a regular
        grid; ``trail`` is () for a scalar beam, (2, 2) for Jones matrices, and passes
        through the interpolation (every element is interpolated alike)
    l_axis, m_axis : (start, step, count) of the l and m axes (direction cosines)
    freq_axis : (start_hz, step_hz, count) of the frequency axis (one plane: step ignored)
    l, m : (src,) direction cosines of the sources
    freq_hz : (chan,) Hz
    chi : (time, ant) parallactic angles, radians, or None (no rotation: one time, one
        antenna)

    Returns
    -------
    (time, ant, chan, src, *trail) of ``cube``'s dtype (at least float64), 0 where
    (l', m') lies outside the cube.
    """
    cube = xp.asarray(cube)
    trail = (None,) * (cube.ndim - 3)  # the weights broadcast over the trailing axes
    l = xp.asarray(l, dtype=xp.float64)
    m = xp.asarray(m, dtype=xp.float64)
    chi = xp.zeros((1, 1)) if chi is None else xp.asarray(chi, dtype=xp.float64)
    c, s = xp.cos(chi)[..., None], xp.sin(chi)[..., None]  # (time, ant, 1)
    lr = l * c - m * s  # (time, ant, src)
    mr = l * s + m * c
    il, wl, in_l = _axis_weights(lr, l_axis[0], l_axis[1], int(l_axis[2]), xp, False)
    im, wm, in_m = _axis_weights(mr, m_axis[0], m_axis[1], int(m_axis[2]), xp, False)
    nu = xp.asarray(freq_hz, dtype=xp.float64)
    step = freq_axis[1] if int(freq_axis[2]) > 1 else 1.0
    iv, wv, _ = _axis_weights(nu, freq_axis[0], step, int(freq_axis[2]), xp, True)
    nl, nm, nv = int(l_axis[2]), int(m_axis[2]), int(freq_axis[2])
    out = 0
    for dv, fv in ((0, 1 - wv), (1, wv)):
        v = xp.minimum(iv + dv, nv - 1)[None, None, :, None]
        for dm_, fm in ((0, 1 - wm), (1, wm)):
            jm = xp.minimum(im + dm_, nm - 1)[:, :, None, :]
            for dl_, fl in ((0, 1 - wl), (1, wl)):
                jl = xp.minimum(il + dl_, nl - 1)[:, :, None, :]
                w = fv[None, None, :, None] * (fm * fl)[:, :, None, :]
                out = out + w[(..., *trail)] * cube[v, jm, jl]
    inside = (in_l & in_m)[:, :, None, :]
    return xp.where(inside[(..., *trail)], out, 0)
