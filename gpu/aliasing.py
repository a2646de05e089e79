"""Aliasing maps of the gridding algorithms (DESIGN §3; Muscat 2021 §2.3, §8).

- :func:`error_map`: the measured ``|I_algo − I_dft| / peak(I_dft)`` with its
  RMS over the central half (the central N/2 × N/2, Muscat §8.1.2), over the
  full image, and its maximum.
- :func:`analytic_map`: the data-independent bound from the algorithms'
  1-D transfer functions. One unit record at sub-cell offset δ is run through
  an axis's chain (grid, prune, FFT, crop, correct; :class:`AxisPlan.transfer
  <uvlab.gpu.gridders.axis.AxisPlan>`), giving ``L(δ, x)`` — Muscat's
  ``l_co(δξ, x)·h_co(x)`` of eq. 2.16–2.20 for any algorithm. Then
  ``E(l, m) = sup_{δu, δv} |L_u(δu, l)·L_v(δv, m) − 1|`` bounds the error of
  any data set in the units of the normalised dirty image:
  ``|I_algo − I_dft| ≤ (Σ|w·V| / Σw) · E``. The RMS over δ is the
  expected error of one record; for ``conv`` with an exact kernel it is
  ``√(Σ_{b≠0} ĉ(x+b)²)/ĉ(x)`` in one dimension. :func:`axis_bound_samples`
  and :func:`bound_map` are its steps, for callers that thin or cancel.
- :func:`point_source_scan`: Muscat's ``R(X) = |1 − I(X, X)|`` for a unit
  point source placed exactly on pixel (X, X) from the centre (§8.2.2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uvlab.gpu.blocks import block_done
from uvlab.gpu.gridders.compress import rule_units
from uvlab.gpu.gridders.correction import pixel_offsets
from uvlab.gpu.gridders.registry import axis_plans, get_gridder
from uvlab.gpu.gridders.tables import TableTaps


def central_half(npix: int) -> slice:
    """Index range of the central N/2 pixels of an N-pixel axis."""
    return slice(npix // 4, npix // 4 + npix // 2)


def error_map(img, img_dft) -> tuple[np.ndarray, dict]:
    """Measured aliasing error of an image against the exact DFT image.

    Parameters
    ----------
    img, img_dft : (N, N) float
        The algorithm's image and the DFT reference, same normalisation.

    Returns
    -------
    map : (N, N) float64
        ``|img − img_dft| / max|img_dft|``.
    metrics : dict
        ``rms_central`` (central N/2 × N/2), ``rms_full``, ``max_error``.
    """
    img = np.asarray(img, dtype=np.float64)
    ref = np.asarray(img_dft, dtype=np.float64)
    if img.shape != ref.shape or img.ndim != 2:
        raise ValueError(f"images differ in shape: {img.shape} vs {ref.shape}")
    peak = np.abs(ref).max()
    if not peak > 0:
        raise ValueError("the reference image is zero: no peak to normalise by")
    err = np.abs(img - ref) / peak
    c = central_half(err.shape[0]), central_half(err.shape[1])
    metrics = {
        "rms_central": float(np.sqrt(np.mean(err[c] ** 2))),
        "rms_full": float(np.sqrt(np.mean(err**2))),
        "max_error": float(err.max()),
    }
    return err, metrics


def fine_factor(plan) -> int:
    """Fine cells (nearest-cell steps) per FFT-grid cell of an axis plan."""
    return plan.n_grid // plan.n_fft * int(getattr(plan.rule, "oversample", 1))


def is_stepwise(plan) -> bool:
    """Whether a record's grid contents are constant between nearest-cell ties.

    True for nearest-cell gridding and nearest table lookup (the record is
    moved to a fine point first); False for an exactly evaluated kernel and a
    table read by linear interpolation (the taps move with the record).
    """
    return rule_units(plan.rule) > 0


#: Record offsets per FFT cell at which an exactly evaluated kernel's L is
#: sampled for the bound (plus both sides of its window jump).
EXACT_OFFSETS = 64
#: Offset (FFT cells) either side of an exact kernel's window jump: its two limits.
JUMP_SIDE = 1e-12
#: Grid images K whose harmonics in δ are taken to dominate an exact kernel's L.
ALIAS_HARMONICS = 2


def delta_samples(plan, n_delta: int | None = None, on_fine_grid: bool = False) -> np.ndarray:
    """Sub-cell offsets ``δ_j = −½ + j/n`` (FFT-grid cells) for an axis plan.

    Regular samples for the RMS over δ (``analytic_map(kind="rms")``): by
    default n is 8 samples per fine cell (at least 64), which gives the mean
    to a fraction of a percent; ``n_delta`` overrides it. ``on_fine_grid``
    puts every δ on a fine-grid point instead (n = the fine factor): the
    transfer of records that the nearest-cell step does not move. The bound
    (kind "max") does not use these: see :func:`bound_samples`.
    """
    if on_fine_grid:
        n_delta = fine_factor(plan)
    elif n_delta is None:
        n_delta = max(64, 8 * fine_factor(plan))
    return -0.5 + np.arange(int(n_delta)) / int(n_delta)


def transfer_functions(
    algorithm: str, spec, params, n_delta: int | None = None, on_fine_grid: bool = False
):
    """Corrected 1-D transfer functions of both axes of an algorithm.

    Returns
    -------
    Lu : (nδu, N) complex
        ``L_u(δu, ·)`` over the image columns i.
    Lv : (nδv, N) complex
        ``L_v(δv, ·)`` over the image rows j.
    """
    plan_u, plan_v = axis_plans(algorithm, spec, params)
    lu = plan_u.transfer(delta_samples(plan_u, n_delta, on_fine_grid))
    if plan_v is plan_u:
        return lu, lu
    return lu, plan_v.transfer(delta_samples(plan_v, n_delta, on_fine_grid))


@dataclass(frozen=True)
class BoundSamples:
    """What the supremum of ``|L_u·L_v − 1|`` over all record offsets needs from one axis.

    Attributes
    ----------
    values : (k, n) complex
        ``L(δ_c, x)`` at k offsets δ_c, on the n pixels asked for.
    halfwidth : (n,) float
        Radians: each value stands for the offsets ``|δ − δ_c| ≤ 1/(2F)``,
        over which ``L(δ, x) = L(δ_c, x)·exp(−iθ)`` with ``|θ| ≤ halfwidth``
        (zeros when the values are point samples).
    spacing : float
        FFT cells between point samples of a smooth L (0: stepwise, exact).
    """

    values: np.ndarray
    halfwidth: np.ndarray
    spacing: float = 0.0


def bound_samples(
    plan, pixels: int = 1, n_exact: int = EXACT_OFFSETS, chunk_cells: int = 1 << 22
) -> BoundSamples:
    """Offsets and L of one axis for the bound, on every ``pixels``-th pixel.

    Stepwise rules (:func:`is_stepwise`): a record between two rounding ties
    is moved to the same fine point q, so the grid, and everything after it,
    is fixed; only the exact ``exp(2πi·δ·n/n_fft)`` that L is divided by
    moves. On the closed piece ``|δ − q/F| ≤ 1/(2F)`` (F fine cells per FFT
    cell; both ties included, so either rounding of a tie is covered) L is
    therefore ``L(q/F, n)·exp(−iθ)``, ``|θ| ≤ π·|n|/(F·n_fft)``: F values
    (one per piece of a period) and that half-width describe L exactly.

    Exact kernels: L moves smoothly with δ except where the S-cell window
    steps (``ξ − S/2`` an integer), so it is sampled at ``n_exact`` offsets
    per FFT cell plus :data:`JUMP_SIDE` either side of the step (both limits);
    :func:`iter_bound_rows` covers the shortfall between samples.
    """
    n = pixel_offsets(plan.npix)[::pixels]
    if is_stepwise(plan):
        f = fine_factor(plan)
        delta = (np.arange(f) - f // 2) / f
        spacing = 0.0
        half = np.pi * np.abs(n) / (f * plan.n_fft)
    else:
        ratio = plan.n_grid // plan.n_fft
        if isinstance(plan.rule, TableTaps):  # linear lookup: L kinks at the table's nodes
            n_exact = max(n_exact, 2 * fine_factor(plan))  # every node, and between each pair
        first = (plan.rule.support / 2.0 / ratio) % (1.0 / ratio)
        jumps = (first + np.arange(ratio) / ratio + 0.5) % 1.0 - 0.5
        delta = np.concatenate(
            [-0.5 + np.arange(n_exact) / n_exact, jumps - JUMP_SIDE, jumps + JUMP_SIDE]
        )
        half = np.zeros(n.size)
        spacing = 1.0 / n_exact
    per = max(1, chunk_cells // plan.n_grid)
    values = np.concatenate(
        [plan.transfer(delta[s : s + per])[:, ::pixels] for s in range(0, delta.size, per)]
    )
    return BoundSamples(values, half, spacing)


def iter_bound_rows(su: BoundSamples, sv: BoundSamples, rows: int | None = None):
    """Yield ``(row slice, E[rows, :])``: the supremum of ``|L_u·L_v − 1|``, row blocks.

    For a value ``c = L_u·L_v`` standing for ``c·exp(−iθ)``, ``|θ| ≤ H`` (H
    the sum of the axes' half-widths, at most π), the supremum of
    ``|c·exp(−iθ) − 1|`` is attained at the θ that brings ``arg c`` nearest
    to π: ``|c'− 1|`` with ``c' = (Re c + i|Im c|)·exp(iH)``, or ``|c| + 1``
    when that rotation passes π (``Im c' < 0``). No angles and no
    ``|c|² + 1 − 2 Re c``, which would lose E ≲ 1e-7 to cancellation.

    Point samples of a smooth L (exact kernels, spacing h) can miss the top
    of ``g = |L_u·L_v − 1|²`` by ``½·max|g''|·(h/2)²`` per axis. Taking g's
    dependence on each δ as a trigonometric polynomial of degree
    ``2·``:data:`ALIAS_HARMONICS` (the grid images ``|b| ≤ 2`` of the
    aliasing sum; further ones are far smaller for every GCF offered),
    Bernstein's inequality ``max|g''| ≤ (4πK)²·max g`` bounds that, and the
    result is divided by ``√(1 − 2(πK)²(h_u² + h_v²))`` (1.02 at h = 1/64;
    measured shortfall of 64 samples per cell against 1024: 1.7e-3).
    """
    nv, nu = sv.values.shape[1], su.values.shape[1]
    k = ALIAS_HARMONICS
    widen = 1.0 / np.sqrt(1.0 - 2.0 * (np.pi * k) ** 2 * (su.spacing**2 + sv.spacing**2))
    rows = rows or max(1, (1 << 22) // max(1, su.values.size))
    for r0 in range(0, nv, rows):
        sl = slice(r0, min(nv, r0 + rows))
        h = sv.halfwidth[sl, None] + su.halfwidth[None, :]  # (r, Nu)
        cos_h, sin_h = np.cos(h)[:, None, :], np.sin(h)[:, None, :]
        best = np.zeros((sl.stop - sl.start, nu))
        for row in sv.values[:, sl]:
            c = row[:, None, None] * su.values[None, :, :]  # (r, ku, Nu)
            re, im = c.real, np.abs(c.imag)
            rot_re = re * cos_h - im * sin_h
            rot_im = im * cos_h + re * sin_h
            sup = np.where(rot_im >= 0, np.hypot(rot_re - 1.0, rot_im), np.abs(c) + 1.0)
            np.maximum(best, sup.max(axis=1), out=best)
        yield sl, best * widen if widen != 1.0 else best


def axis_bound_samples(algorithm: str, spec, params, pixels: int = 1):
    """``(su, sv)``: :func:`bound_samples` of the gridder's u and v axes (one when they agree)."""
    plan_u, plan_v = axis_plans(algorithm, spec, params)
    su = bound_samples(plan_u, pixels)
    return su, su if plan_v is plan_u else bound_samples(plan_v, pixels)


def bound_map(su: BoundSamples, sv: BoundSamples, on_block=None) -> np.ndarray:
    """(rows of sv, columns of su) float64: the bound, block of rows by block.

    ``on_block()``, when given, is called after each block (a cancel check).
    """
    out = np.empty((sv.values.shape[1], su.values.shape[1]))
    for sl, rows in iter_bound_rows(su, sv):
        out[sl] = rows
        block_done(on_block)
    return out


def analytic_map(
    algorithm: str,
    spec,
    params,
    n_delta: int | None = None,
    kind: str = "max",
    on_fine_grid: bool = False,
    pixels: int = 1,
) -> np.ndarray:
    """Data-independent aliasing map ``E[j, i]`` of an algorithm.

    ``kind="max"`` is a true bound: ``|I_algo − I_dft| ≤ (Σ|w·V|/Σw)·E``
    pixel by pixel for any data (images normalised by Σw), to float
    rounding. It is the supremum over all record offsets (δu, δv), not a
    maximum over samples: nearest-cell steps and nearest table lookup make L
    jump at every rounding tie and the worst pair sits at the ties, so each
    closed piece between ties is taken whole (:func:`bound_samples`,
    :func:`iter_bound_rows`; exact for those steps at any β). For an exactly
    evaluated kernel, L is smooth between its window steps and sampled at
    :data:`EXACT_OFFSETS` per cell and both sides of each step, and the
    shortfall between samples is covered by a 2 % widening (Bernstein's
    inequality, see :func:`iter_bound_rows`). Cost: ``(N/pixels)²·k_u·k_v``
    (k: pieces or samples per cell: F for stepwise axes, 66 for exact).

    Parameters
    ----------
    algorithm : str
        A gridder name (``conv`` is analysed with its NumPy chain).
    spec : ImageSpec
    params : GridParams
    n_delta : int, optional
        ``kind="rms"`` only: regular offsets per axis (see :func:`delta_samples`).
    kind : {"max", "rms"}
        The bound (supremum over (δu, δv)) or the RMS over regular offsets.
    on_fine_grid : bool
        ``kind="rms"`` only: only records on the fine grid.
    pixels : int
        ``kind="max"`` only: evaluate on every ``pixels``-th pixel per axis
        (pixels 0, k, 2k, …, as a subsampled DFT reference).

    Returns
    -------
    (N/pixels, N/pixels) float64
    """
    if kind not in ("max", "rms"):
        raise ValueError(f"kind must be 'max' or 'rms', got {kind!r}")
    if kind == "max":
        return bound_map(*axis_bound_samples(algorithm, spec, params, pixels))
    lu, lv = transfer_functions(algorithm, spec, params, n_delta, on_fine_grid)
    out = np.zeros((lv.shape[1], lu.shape[1]))
    for row in lv:
        dev = np.abs(row[:, None, None] * lu[None, :, :] - 1.0)  # (N_j, nδu, N_i)
        out += (dev**2).mean(axis=1)
    return np.sqrt(out / lv.shape[0])


def point_source_scan(
    algorithm: str, spec, params, u, v, weights=None, xs=None, xp=np
) -> tuple[np.ndarray, np.ndarray]:
    """Muscat's R(X): a unit source on pixel (X, X) from the centre, imaged.

    Parameters
    ----------
    algorithm : str
        Gridder name.
    spec : ImageSpec
    params : GridParams
    u, v : (nvis,) float
        uv coverage, wavelengths (e.g. a real array's).
    weights : (nvis,) float, optional
        Imaging weights (default 1).
    xs : (k,) int, optional
        Diagonal offsets X (default 0 … N/2 − 1).
    xp : module, optional
        NumPy or CuPy: where the records and the gridder live (default NumPy).

    Returns
    -------
    X : (k,) int
    R : (k,) float64
        ``|1 − I(X, X)|`` with I normalised by Σw (the DFT gives exactly 1).
    """
    u = xp.asarray(u, dtype=xp.float64)
    v = xp.asarray(v, dtype=xp.float64)
    wt = xp.ones_like(u) if weights is None else xp.asarray(weights, dtype=xp.float64)
    xs = np.arange(spec.npix // 2) if xs is None else np.asarray(xs, dtype=int)
    gridder = get_gridder(algorithm, xp=xp)
    wsum, c = float(wt.sum()), spec.npix // 2
    r = np.empty(xs.size)
    for k, x in enumerate(xs):
        # pixel (i, j) = (c + x, c + x) is at l = −x·cell, m = +x·cell (ImageSpec)
        l0, m0 = -x * spec.cell_rad, x * spec.cell_rad
        wvis = wt * xp.exp(2j * np.pi * (u * l0 + v * m0))
        img = gridder(u, v, wvis, spec, params)
        r[k] = abs(1.0 - float(img[c + x, c + x]) / wsum)
    return xs, r
