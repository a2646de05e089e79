"""Optional w-stacking for ``conv``: the w-term by gridding in w too.

The dirty image with the w-term is
``I(l, m) = Re Σ a·exp(−2πi(u·l + v·m + w·(n − 1)))`` (DESIGN §1). As in
ducc0's w-gridder (Arras et al. 2021; Ye et al. 2021), each record is also
convolved along w with an ES kernel of the conv support onto planes
``w_k = w0 + k·Δw``; each plane is gridded and transformed like a plain
``conv`` image, multiplied by ``exp(−2πi·w_k·(n − 1))`` and summed; the sum
is divided by the kernel's transform ``ĉ_w((n − 1)·Δw)``. With
``Δw = 1/(4·max|n − 1|)`` the w kernel works at padding 2.

Records are first moved to the u ≥ 0 half plane with ``(u, v, w, V) →
(−u, −v, −w, V*)``, which keeps ``Re(…)``. A plane's image is complex, so
both ``Re Σ c·e`` and ``Im Σ c·e = Re Σ (−i·c)·e`` are formed with the c2r
pipeline.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.correction import kernel_ft
from uvlab.gpu.gridders.gcf import kernel_function
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.separable import grid_half_plane, half_to_image, separable_dirty
from uvlab.gpu.gridders.tables import ExactTaps
from uvlab.gpu.imaging.spec import ImageSpec
from uvlab.gpu.timing import timed


def n_minus_one(spec: ImageSpec) -> np.ndarray:
    """(N, N) ``n − 1 = √(1 − l² − m²) − 1`` at ``[j, i]`` (0 beyond the horizon)."""
    l, m = np.meshgrid(spec.l_axis(), spec.m_axis())
    return np.sqrt(np.clip(1.0 - l * l - m * m, 0.0, None)) - 1.0


def dirty_wstack(
    u,
    v,
    w,
    wvis,
    spec: ImageSpec,
    params: GridParams,
    *,
    plans: tuple[AxisPlan, AxisPlan],
    timer=None,
):
    """Unnormalised dirty image with the w-term, by conv gridding and w-stacking.

    Parameters
    ----------
    u, v, w : (nvis,) float
        Wavelengths.
    wvis : (nvis,) complex
    spec : ImageSpec
    params : GridParams
        The conv kernel, support and table/exact choice; the w kernel is ES
        with the same support, evaluated exactly.
    plans : (AxisPlan, AxisPlan)
        The (u, v) plans of the conv chain
        (:func:`uvlab.gpu.gridders.conv.conv_plans`), which calls this
        module: the plans are passed in, not imported back.
    timer : StageTimer, optional

    Returns
    -------
    (N, N) float64
    """
    plan_u, plan_v = plans
    nm1 = n_minus_one(spec)
    span = float(np.abs(nm1).max())
    w = np.asarray(w, dtype=np.float64)
    if span == 0.0 or not np.any(w):
        return separable_dirty(u, v, wvis, plan_u, plan_v, chunk=params.chunk, timer=timer)
    dw = 0.25 / span
    support = max(int(params.support), 2)
    wrule = ExactTaps(kernel_function("es", support, sigma=2.0), support)
    with timed(timer, "sort / bin"):
        xu = plan_u.coords(u)
        xu = xu - plan_u.n_grid * np.round(xu / plan_u.n_grid)
        flip = np.where(xu < 0, -1.0, 1.0)
        xu, xv, ws = xu * flip, -plan_v.coords(v) * flip, w * flip
        vis = np.where(flip < 0, np.conj(wvis), wvis).astype(np.complex128)
        w0 = ws.min()
        k0, wt = wrule.taps((ws - w0) / dw)
        order = np.argsort(k0, kind="stable")
        k0, wt, xu, xv, vis = k0[order], wt[order], xu[order], xv[order], vis[order]
    img = np.zeros((spec.npix, spec.npix))
    for k in range(int(k0[0]), int(k0[-1]) + support):
        lo, hi = np.searchsorted(k0, [k - support + 1, k + 1])
        if lo == hi:
            continue
        c = vis[lo:hi] * wt[np.arange(lo, hi), k - k0[lo:hi]]
        planes = []
        for val in (c, -1j * c):
            half = grid_half_plane(xu[lo:hi], xv[lo:hi], val, plan_u, plan_v, params.chunk, timer)
            with timed(timer, "FFT"):
                planes.append(half_to_image(half, plan_u.n_fft, spec.npix))
        with timed(timer, "correct"):
            phase = -2.0 * np.pi * (w0 + k * dw) * nm1
            img += planes[0] * np.cos(phase) - planes[1] * np.sin(phase)
    with timed(timer, "correct"):
        for j in range(spec.npix):  # row by row: bounded memory
            img[j] /= kernel_ft(wrule.kernel, support, nm1[j] * dw)
        img *= plan_v.corrector[:, None] * plan_u.corrector[None, :]
    return img
