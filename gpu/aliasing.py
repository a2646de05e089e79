"""Aliasing maps of the gridding algorithms (DESIGN §3; Muscat 2021 §2.3, §8).

- :func:`error_map`: the measured ``|I_algo − I_dft| / peak(I_dft)`` with its
  RMS over the central half (the central N/2 × N/2, Muscat §8.1.2), over the
  full image, and its maximum.
- :func:`analytic_map`: the data-independent bound from the algorithms'
  1-D transfer functions. One unit record at sub-cell offset δ is run through
  an axis's chain (grid, prune, FFT, crop, correct; :class:`AxisPlan.transfer
  <uvlab.gpu.gridders.axis.AxisPlan>`), giving ``L(δ, x)`` — Muscat's
  ``l_co(δξ, x)·h_co(x)`` of eq. 2.16–2.20 for any algorithm. Then
  ``E(l, m) = max_{δu, δv} |L_u(δu, l)·L_v(δv, m) − 1|`` bounds the error of
  any data set: ``|I_algo − I_dft| ≤ Σ|w·V| · E``. The RMS over δ is the
  expected error of one record; for ``conv`` with an exact kernel it is
  ``√(Σ_{b≠0} ĉ(x+b)²)/ĉ(x)`` in one dimension.
- :func:`point_source_scan`: Muscat's ``R(X) = |1 − I(X, X)|`` for a unit
  point source placed exactly on pixel (X, X) from the centre (§8.2.2).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.gridders.registry import axis_plans, get_gridder


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


def delta_samples(plan, n_delta: int | None = None, on_fine_grid: bool = False) -> np.ndarray:
    """Sub-cell offsets ``δ_j = −½ + j/n`` (FFT-grid cells) for an axis plan.

    Nearest-cell steps (on a fine grid or in a table) make L jump at the
    fine half-cells. By default n is 8 samples per fine cell (at least 64),
    which samples every jump and gives the mean over δ to a fraction of a
    percent; ``n_delta`` overrides it. ``on_fine_grid`` puts every δ on a
    fine-grid point instead (n = the fine factor): the transfer of records
    that the nearest-cell step does not move.
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


def analytic_map(
    algorithm: str,
    spec,
    params,
    n_delta: int | None = None,
    kind: str = "max",
    on_fine_grid: bool = False,
) -> np.ndarray:
    """Data-independent aliasing map ``E[j, i]`` of an algorithm.

    Parameters
    ----------
    algorithm : str
        A gridder name (``conv`` is analysed with its NumPy chain).
    spec : ImageSpec
    params : GridParams
    n_delta : int, optional
        Sub-cell offsets per axis (default: enough for the fine steps).
    kind : {"max", "rms"}
        Worst case over (δu, δv) — the bound — or the RMS over them.
    on_fine_grid : bool
        Only records on the fine grid (see :func:`delta_samples`).

    Returns
    -------
    (N, N) float64
    """
    if kind not in ("max", "rms"):
        raise ValueError(f"kind must be 'max' or 'rms', got {kind!r}")
    lu, lv = transfer_functions(algorithm, spec, params, n_delta, on_fine_grid)
    out = np.zeros((lv.shape[1], lu.shape[1]))
    for row in lv:
        dev = np.abs(row[:, None, None] * lu[None, :, :] - 1.0)  # (N_j, nδu, N_i)
        if kind == "max":
            np.maximum(out, dev.max(axis=1), out=out)
        else:
            out += (dev**2).mean(axis=1)
    return out if kind == "max" else np.sqrt(out / lv.shape[0])


def point_source_scan(
    algorithm: str, spec, params, u, v, weights=None, xs=None
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

    Returns
    -------
    X : (k,) int
    R : (k,) float64
        ``|1 − I(X, X)|`` with I normalised by Σw (the DFT gives exactly 1).
    """
    u = np.asarray(u, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    wt = np.ones_like(u) if weights is None else np.asarray(weights, dtype=np.float64)
    xs = np.arange(spec.npix // 2) if xs is None else np.asarray(xs, dtype=int)
    gridder = get_gridder(algorithm)
    r = np.empty(xs.size)
    for k, x in enumerate(xs):
        l0, m0 = -x * spec.cell_rad, x * spec.cell_rad
        wvis = wt * np.exp(2j * np.pi * (u * l0 + v * m0))
        img = gridder(u, v, wvis, spec, params)
        r[k] = abs(1.0 - img[spec.npix // 2 + x, spec.npix // 2 + x] / wt.sum())
    return xs, r
