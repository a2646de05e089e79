"""Degridding: image → visibilities, the exact adjoint of the separable gridders.

The NumPy degridder runs :func:`~uvlab.gpu.gridders.separable.separable_dirty`
backwards, with the same :class:`~uvlab.gpu.gridders.axis.AxisPlan` pair:

1. **correct** — multiply the model image by the outer product of the two
   axis correctors (the same ``1/ρ`` the gridder applies);
2. **pad / FFT** — place pixel offset ``(n_v, n_u)`` at cell
   ``(n_v mod Mv, n_u mod Mu)`` of a zero grid and take the forward real FFT
   ``F(k) = Σ_n img'(n)·exp(−2πi·k·n/M)`` (the Hermitian half, u columns
   0 … Mu/2);
3. **interpolate** — every record is moved to the half plane as the gridder
   moves it (:func:`~uvlab.gpu.gridders.separable.to_half_plane`) and reads
   ``Σ_taps wv·wu·F`` with the same tap rule; cells outside columns
   0 … Mu/2 read ``conj F(−k)`` (the transpose of
   :func:`~uvlab.gpu.gridders.half_image.fold_half`), and a mirrored record
   returns the conjugate.

For a real image this is exactly the transpose of the gridder:
``Re⟨G x, y⟩ = Re vdot(Gᴴ y, x)``. A complex image is degridded as its real
and imaginary parts. With ``ξu = u·Mu·cell`` and ``ξv = −v·Mv·cell``,
``F(ξ) ≈ Σ img·exp(+2πi(u·l + v·m))``: DESIGN §1's predict without the
w-term. A pruned chain (hybrid, pruned-nn) transforms onto its FFT grid and
takes each pruned axis back to the fine grid with the pruner's transpose
(:mod:`~uvlab.gpu.gridders.unprune`) before step 3.

The algorithms' degridders (named by their catalogue records,
:mod:`~uvlab.gpu.gridders.registry`) share the signature
``predict(img, u, v, spec, params, *, w=None, timer=None) -> (nvis,) complex128``:
:func:`predict_conv`, :func:`predict_nn`, :func:`predict_nn_oversampled`,
:func:`predict_hybrid` and :func:`predict_pruned_nn`, each
:func:`predict_with_w` with its plans (w-stacked with ``params.wstack``).
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.gridders.axis import AxisPlan
from uvlab.gpu.gridders.conv import conv_plans
from uvlab.gpu.gridders.half_plane import half_plane_coords, image_to_half, padded_image, read_half
from uvlab.gpu.gridders.hybrid import hybrid_plans
from uvlab.gpu.gridders.jit_grid import cpu_rung, interpolate_numba
from uvlab.gpu.gridders.nn import nn_oversampled_plans, nn_plans
from uvlab.gpu.gridders.params import GridParams
from uvlab.gpu.gridders.pruned_nn import pruned_nn_plans
from uvlab.gpu.gridders.unprune import unprune
from uvlab.gpu.gridders.wproject import wproject_predict
from uvlab.gpu.gridders.wstack import predict_wstack, refuse_wprojection
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.timing import timed


def image_to_grid(img, plan_u: AxisPlan, plan_v: AxisPlan) -> np.ndarray:
    """The Hermitian half of the grid the records are read from (the gridded one's size).

    :func:`image_to_half` on the FFT grid, then each pruned axis taken back to its
    fine grid by the pruner's transpose (:func:`~uvlab.gpu.gridders.unprune.unprune`;
    the u axis from the full transform, of which columns 0 … Mu/2 are kept).

    Returns
    -------
    (Mv, Mu/2 + 1) complex128, Mu and Mv the ``n_grid`` of the plans.
    """
    cu, cv = plan_u.corrector, plan_v.corrector
    if plan_u.pruner is None:
        half = image_to_half(img, cu, cv, plan_u.n_grid, plan_v.n_fft)
    else:
        full = np.fft.fft2(padded_image(img, cu, cv, plan_u.n_fft, plan_v.n_fft))
        half = unprune(plan_u.pruner, full, axis=1)[:, : plan_u.n_grid // 2 + 1]
    if plan_v.pruner is not None:
        half = unprune(plan_v.pruner, half, axis=0)
    return half


def interpolate_half(half, xu, xv, plan_u: AxisPlan, plan_v: AxisPlan, chunk: int) -> np.ndarray:
    """``Σ_taps wv·wu·F`` of half-plane records (ξu ∈ [0, Mu/2]); (nvis,) complex128.

    NumPy (this) or, where numba imports, a compiled loop
    (:func:`~uvlab.gpu.gridders.jit_grid.interpolate_numba`, chosen by
    :func:`~uvlab.gpu.gridders.jit_grid.cpu_rung`); equal to rounding.
    """
    if cpu_rung() == "numba":
        return interpolate_numba(half, xu, xv, plan_u, plan_v, chunk)
    mu = plan_u.n_grid
    su, sv = plan_u.rule.support, plan_v.rule.support
    out = np.empty(xu.size, dtype=np.complex128)
    step = max(1, int(chunk) // (su * sv))
    ju, jv = np.arange(su), np.arange(sv)
    for s in range(0, xu.size, step):
        sl = slice(s, s + step)
        k0u, wu = plan_u.rule.taps(xu[sl])
        k0v, wv = plan_v.rule.taps(xv[sl])
        rows = (k0v[:, None] + jv)[:, :, None]
        cols = (k0u[:, None] + ju)[:, None, :]
        vals = read_half(half, rows, cols, mu)
        out[sl] = np.einsum("nab,na,nb->n", vals, wv, wu)
    return out


def separable_predict(
    img, u, v, plan_u: AxisPlan, plan_v: AxisPlan, *, chunk: int = 1 << 22, timer=None
) -> np.ndarray:
    """Visibilities ``Σ img·exp(+2πi(u·l + v·m))`` of a model image by degridding.

    Parameters
    ----------
    img : (N, N) float or complex
        Model image ``img[j, i]`` at ``l_i = −(i − N/2)·cell``,
        ``m_j = (j − N/2)·cell`` (Jy per pixel).
    u, v : (nvis,) float
        Wavelengths.
    plan_u, plan_v : AxisPlan
        The gridder's chain along l (u) and m (v), pruned or not.
    chunk : int
        Tap entries per chunk (memory bound).
    timer : StageTimer, optional
        Stages "correct" + "FFT" (pad and transform) and "grid" (interpolation).

    Returns
    -------
    (nvis,) complex128
    """
    img = np.asarray(img)
    if np.iscomplexobj(img):
        parts = (img.real, img.imag)
        re, im = (
            separable_predict(p, u, v, plan_u, plan_v, chunk=chunk, timer=timer) for p in parts
        )
        return re + 1j * im
    with timed(timer, "FFT"):
        half = image_to_grid(img, plan_u, plan_v)
    return read_grid(half, u, v, plan_u, plan_v, chunk=chunk, timer=timer)


def read_grid(half, u, v, plan_u: AxisPlan, plan_v: AxisPlan, *, chunk: int = 1 << 22,
              timer=None) -> np.ndarray:  # fmt: skip
    """Visibilities at ``(u, v)`` read from a model's grid (:func:`image_to_grid`): step 3.

    What :func:`separable_predict` gives for the image the grid was made of, without its
    FFT: a grid made once serves any number of sample sets (a major cycle's row chunks).

    Parameters
    ----------
    half : (Mv, Mu/2 + 1) complex128
    u, v : (nvis,) float
        Wavelengths.

    Returns
    -------
    (nvis,) complex128
    """
    with timed(timer, "sort / bin"):
        xu, xv, neg = half_plane_coords(plan_u.coords(u), -plan_v.coords(v), plan_u.n_grid)
    with timed(timer, "grid"):
        vis = interpolate_half(half, xu, xv, plan_u, plan_v, chunk)
        return np.where(neg, np.conj(vis), vis)


def predict_with_w(
    img, u, v, spec: ImageSpec, params: GridParams, plans, *, w=None, timer=None
) -> np.ndarray:
    """An algorithm's degridding with its (u, v) plans: w-stacked with ``params.wstack`` and ``w``.

    The adjoint of :func:`uvlab.gpu.gridders.wstack.dirty_with_w` with the same
    plans: :func:`~uvlab.gpu.gridders.wstack.predict_wstack` with ``params.wstack``
    and ``w`` given, else :func:`separable_predict` (flat, ``n − 1 = 0``).

    Parameters
    ----------
    img : (N, N) float or complex
        Model image, Jy per pixel, ``img[j, i]`` at ``l_i``, ``m_j``.
    u, v : (nvis,) float
        Wavelengths.
    spec : ImageSpec
    params : GridParams
    plans : (AxisPlan, AxisPlan)
        The algorithm's plans for ``spec`` and ``params``.
    w : (nvis,) float, optional
        Wavelengths; used only with ``params.wstack`` (w-stacking).
    timer : StageTimer, optional

    Returns
    -------
    (nvis,) complex128
    """
    refuse_wprojection(params)
    if params.wstack and w is not None:
        return predict_wstack(
            img, u, v, w, spec, params, plans=plans, flat_predict=separable_predict, timer=timer
        )
    plan_u, plan_v = plans
    return separable_predict(img, u, v, plan_u, plan_v, chunk=params.chunk, timer=timer)


def predict_conv(img, u, v, spec: ImageSpec, params: GridParams, *, w=None, timer=None):
    """Visibilities of a model image by convolutional degridding (:func:`predict_with_w`).

    With ``params.wprojplanes`` and ``w``: w-projected degridding
    (:func:`~uvlab.gpu.gridders.wproject.wproject_predict`).
    """
    if params.wprojplanes:
        if w is not None:
            return wproject_predict(img, u, v, w, spec, params, timer=timer)
        params = params.with_(wprojplanes=0)  # no w given: the flat predict
    return predict_with_w(img, u, v, spec, params, conv_plans(spec, params), w=w, timer=timer)


def predict_nn(img, u, v, spec: ImageSpec, params: GridParams, *, w=None, timer=None):
    """Visibilities by nearest-cell degridding from the N×N grid (uncorrected, like ``nn``)."""
    return predict_with_w(img, u, v, spec, params, nn_plans(spec, params), w=w, timer=timer)


def predict_nn_oversampled(img, u, v, spec: ImageSpec, params: GridParams, *, w=None, timer=None):
    """Visibilities by nearest-cell degridding from an Nβ×Nβ grid, 1/sinc-corrected."""
    plans = nn_oversampled_plans(spec, params)
    return predict_with_w(img, u, v, spec, params, plans, w=w, timer=timer)


def predict_hybrid(img, u, v, spec: ImageSpec, params: GridParams, *, w=None, timer=None):
    """Visibilities by hybrid degridding: GCF along u, column unpruner + nearest cell along v."""
    plans = hybrid_plans(spec, params)
    return predict_with_w(img, u, v, spec, params, plans, w=w, timer=timer)


def predict_pruned_nn(img, u, v, spec: ImageSpec, params: GridParams, *, w=None, timer=None):
    """Visibilities by pruned-NN degridding: both axes unpruned to Nβ, then the nearest cell."""
    plans = pruned_nn_plans(spec, params)
    return predict_with_w(img, u, v, spec, params, plans, w=w, timer=timer)
