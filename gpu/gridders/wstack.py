"""W-stacking around any separable gridder: the w-term by gridding in w too.

The dirty image with the w-term is
``I(l, m) = Re Σ a·exp(−2πi(u·l + v·m + w·(n − 1)))`` (DESIGN §1). As in
ducc0's w-gridder (Arras et al. 2021; Ye et al. 2021), each record is also
convolved along w with an ES kernel of support ``params.support`` onto planes
``w_k = w0 + k·Δw``; each plane is gridded, pruned and transformed with the
algorithm's own (u, v) plans — each plane an image of that gridder (``conv``,
``nn``, ``nn-oversampled``, ``hybrid``, ``pruned-nn``) — multiplied by
``exp(−2πi·w_k·(n − 1))`` and summed; the sum is divided by the w kernel's
transform ``ĉ_w((n − 1)·Δw)`` and by the plans' correctors. With
``Δw = 1/(4·max|n − 1|)`` the w kernel works at padding 2. The u/v error is
then that of the algorithm's flat image; the w kernel adds ~its ε at S.

Records are first moved to the u ≥ 0 half plane with ``(u, v, w, V) →
(−u, −v, −w, V*)``, which keeps ``Re(…)``. A plane's image is complex, so
both ``Re Σ c·e`` and ``Im Σ c·e = Re Σ (−i·c)·e`` are formed with the c2r
pipeline (:func:`plane_images`: one gridding, two folds).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.correction import kernel_ft, pixel_offsets
from uvlab.gpu.gridders.gcf import kernel_function
from uvlab.gpu.gridders.half_image import fold_half, half_to_image
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.separable import grid_extended, plans_dirty
from uvlab.gpu.gridders.tables import ExactTaps
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.timing import timed


def n_minus_one(spec: ImageSpec) -> np.ndarray:
    """(N, N) ``n − 1 = √(1 − l² − m²) − 1`` at ``[j, i]`` (0 beyond the horizon)."""
    l, m = np.meshgrid(spec.l_axis(), spec.m_axis())
    return np.sqrt(np.clip(1.0 - l * l - m * m, 0.0, None)) - 1.0


def w_planes(spec: ImageSpec, params: GridParams, w):
    """(n − 1, Δw, support, the w taps) of the w-stacking, or None where there is no w-term.

    ``Δw = 1/(4·max|n − 1|)``; the w kernel is ES with the conv support (at least 2),
    evaluated exactly. None when the field is a point (n − 1 = 0) or every w is 0.
    """
    nm1 = n_minus_one(spec)
    span = float(np.abs(nm1).max())
    if span == 0.0 or not np.any(w):
        return None
    support = max(int(params.support), 2)
    return nm1, 0.25 / span, support, ExactTaps(kernel_function("es", support, sigma=2.0), support)


def half_plane_flip(plan_u: AxisPlan, u):
    """(ξu wrapped into [−Mu/2, Mu/2], ±1): −1 for the records the w-stacking mirrors.

    Mirrored records are taken as ``(−u, −v, −w, V*)`` by the gridder and the
    degridder alike, so that both put every record on the same w planes.
    """
    xu = plan_u.coords(u)
    xu = xu - plan_u.n_grid * np.round(xu / plan_u.n_grid)
    return xu, np.where(xu < 0, -1.0, 1.0)


def plane_images(xu, xv, vis, plan_u: AxisPlan, plan_v: AxisPlan, chunk: int, timer, on_block):
    """(Re, Im) of one w plane's uncorrected image ``Σ vis·exp(2πi·k·n/M)``, (N, N) each.

    The c2r chain of :func:`~uvlab.gpu.gridders.separable.records_to_image`
    forms ``Re Σ c·e`` of a Hermitian grid; ``Im Σ c·e = Re Σ (−i·c)·e``. Both come
    from one gridding and one v pruning (linear, with real even taps: it commutes
    with the Hermitian fold), then each is folded and transformed. A pruned u axis
    (``pruned-nn``) is instead pruned once on the full periodic grid and both parts
    taken from one complex FFT.
    """
    pad = plan_u.rule.support // 2 + 1
    ext = grid_extended(xu, xv, vis, plan_u, plan_v, chunk, timer, on_block)
    if plan_v.pruner is not None:
        with timed(timer, "prune"):
            ext = plan_v.pruner.apply(ext, axis=0, on_block=on_block)
    if plan_u.pruner is not None:
        return _complex_plane(ext, plan_u, pad, timer, on_block)
    images = []
    for part in (ext, -1j * ext):
        with timed(timer, "grid"):
            half = fold_half(part, plan_u.n_grid, pad, on_block)
        with timed(timer, "FFT"):
            images.append(half_to_image(half, plan_u.n_fft, plan_u.npix, on_block))
    return images


def _complex_plane(ext, plan_u: AxisPlan, pad: int, timer, on_block):
    """(Re, Im) of ``Σ_k G_k·exp(2πi·k·n/M)``, G the unfolded grid ``ext`` on the full u axis."""
    mu = plan_u.n_grid
    with timed(timer, "grid"):
        full = np.zeros((ext.shape[0], mu), dtype=np.complex128)
        np.add.at(full, (slice(None), (np.arange(ext.shape[1]) - pad) % mu), ext)
    with timed(timer, "prune"):
        full = plan_u.pruner.apply(full, axis=1, on_block=on_block)
    with timed(timer, "FFT"):
        n = pixel_offsets(plan_u.npix)
        img = np.fft.ifft2(full)[np.ix_(n % full.shape[0], n % full.shape[1])] * full.size
    return [img.real, img.imag]


def refuse_wprojection(params: GridParams) -> None:
    """ValueError where ``params`` asks for w-projection of a gridder that has none."""
    if params.wprojplanes:
        raise ValueError("w-projection (wprojplanes) is conv's only: use wstack with this gridder")


def dirty_with_w(
    u, v, wvis, spec: ImageSpec, params: GridParams, plans, *, w=None, timer=None, on_block=None
) -> np.ndarray:
    """An algorithm's dirty image: w-stacked with ``params.wstack`` and ``w`` given, else flat.

    ``plans`` is the algorithm's ``(AxisPlan u, AxisPlan v)``; every separable
    algorithm's ``dirty`` is this with its plans
    (:func:`~uvlab.gpu.gridders.separable.plans_dirty` when flat). ValueError with
    ``params.wprojplanes``: w-projection is ``conv``'s own (:mod:`~uvlab.gpu.gridders.wproject`).
    """
    refuse_wprojection(params)
    if params.wstack and w is not None:
        return dirty_wstack(
            u, v, w, wvis, spec, params, plans=plans, timer=timer, on_block=on_block
        )
    return plans_dirty(u, v, wvis, plans, params, timer=timer, on_block=on_block)


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
    on_block=None,
):
    """Unnormalised dirty image with the w-term, by an algorithm's gridding and w-stacking.

    Parameters
    ----------
    u, v, w : (nvis,) float
        Wavelengths.
    wvis : (nvis,) complex
    spec : ImageSpec
    params : GridParams
        The algorithm's; the w kernel is ES with support ``params.support``
        (at least 2), evaluated exactly.
    plans : (AxisPlan, AxisPlan)
        The algorithm's (u, v) plans (e.g.
        :func:`uvlab.gpu.gridders.conv.conv_plans`; the algorithm modules
        call this one, so the plans are passed in, not imported back).
    timer : StageTimer, optional
    on_block : callable() -> None, optional
        Called between blocks of work (a cancel check, :mod:`uvlab.gpu.blocks`).

    Returns
    -------
    (N, N) float64
    """
    plan_u, plan_v = plans
    w = np.asarray(w, dtype=np.float64)
    planes = w_planes(spec, params, w)
    if planes is None:
        return plans_dirty(u, v, wvis, plans, params, timer=timer, on_block=on_block)
    nm1, dw, support, wrule = planes
    with timed(timer, "sort / bin"):
        xu, flip = half_plane_flip(plan_u, u)
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
        planes = plane_images(
            xu[lo:hi], xv[lo:hi], c, plan_u, plan_v, params.chunk, timer, on_block
        )
        with timed(timer, "correct"):
            phase = -2.0 * np.pi * (w0 + k * dw) * nm1
            img += planes[0] * np.cos(phase) - planes[1] * np.sin(phase)
    with timed(timer, "correct"):
        for j in range(spec.npix):  # row by row: bounded memory
            img[j] /= kernel_ft(wrule.kernel, support, nm1[j] * dw)
        img *= plan_v.corrector[:, None] * plan_u.corrector[None, :]
    return img


def predict_wstack(
    img,
    u,
    v,
    w,
    spec: ImageSpec,
    params: GridParams,
    *,
    plans: tuple[AxisPlan, AxisPlan],
    flat_predict,
    timer=None,
) -> np.ndarray:
    """Visibilities ``Σ img·exp(+2πi(u·l + v·m + w·(n − 1)))`` by w-stacked degridding.

    The adjoint of :func:`dirty_wstack` with the same planes and kernels
    (records mirrored into the half plane as the gridder mirrors them): the
    image, divided by the w kernel's transform ``ĉ_w((n − 1)·Δw)``, is taken to
    each plane ``w_k`` by ``exp(+2πi·w_k·(n − 1))`` and degridded there
    (``flat_predict``, the flat degridder, which the plans' correction undoes
    as in the flat case); each record sums its planes with the ES taps of its
    w. A complex image is degridded as its real and imaginary parts.
    Cotton–Schwab major cycles with ``params.wstack`` use it so that the model
    is subtracted with the w-term the dirty image was made with.

    Parameters
    ----------
    img : (N, N) float or complex
        Jy per pixel, ``img[j, i]`` at ``l_i``, ``m_j``.
    u, v, w : (nvis,) float
        Wavelengths.
    spec : ImageSpec
    params : GridParams
    plans : (AxisPlan, AxisPlan)
        The algorithm's (u, v) plans (passed in: the degrid module calls this one).
    flat_predict : callable
        :func:`uvlab.gpu.gridders.degrid.separable_predict` (passed in, as the plans are:
        the degrid module calls this one).
    timer : StageTimer, optional

    Returns
    -------
    (nvis,) complex128
    """
    separable_predict = flat_predict
    plan_u, plan_v = plans
    w = np.asarray(w, dtype=np.float64)
    planes = w_planes(spec, params, w)
    if planes is None:
        return separable_predict(img, u, v, plan_u, plan_v, chunk=params.chunk, timer=timer)
    if np.iscomplexobj(img):  # the mirroring below holds for a real image
        re, im = (
            predict_wstack(
                part, u, v, w, spec, params, plans=plans, flat_predict=flat_predict, timer=timer
            )
            for part in (np.real(img), np.imag(img))
        )
        return re + 1j * im
    nm1, dw, support, wrule = planes
    with timed(timer, "sort / bin"):
        _, flip = half_plane_flip(plan_u, u)
        u, v = np.asarray(u, dtype=np.float64) * flip, np.asarray(v, dtype=np.float64) * flip
        w = w * flip
        w0 = w.min()
        k0, wt = wrule.taps((w - w0) / dw)
        order = np.argsort(k0, kind="stable")
        k0s = k0[order]
    with timed(timer, "correct"):
        src = np.array(img, dtype=np.complex128)
        for j in range(spec.npix):  # row by row: bounded memory
            src[j] /= kernel_ft(wrule.kernel, support, nm1[j] * dw)
    vis = np.zeros(u.shape, dtype=np.complex128)
    for k in range(int(k0s[0]), int(k0s[-1]) + support):
        lo, hi = np.searchsorted(k0s, [k - support + 1, k + 1])
        if lo == hi:
            continue
        idx = order[lo:hi]
        with timed(timer, "correct"):
            plane = src * np.exp(2j * np.pi * (w0 + k * dw) * nm1)
        part = separable_predict(plane, u[idx], v[idx], plan_u, plan_v, chunk=params.chunk,
                                 timer=timer)  # fmt: skip
        vis[idx] += part * wt[idx, k - k0[idx]]
    return np.where(flip < 0, np.conj(vis), vis)
