"""W-projection for ``conv``: gridding and degridding with one 2-D kernel per w-plane.

Cornwell, Golap & Bhatnagar (2008); tclean's ``gridder='wproject'``. Each record is
convolved onto conv's padded grid (``good_size(σ·N)`` cells) with the kernel of its
nearest w-plane (:mod:`~uvlab.gpu.gridders.wkernels`), which carries the w-term
``exp(−2πi·w_k·(n − 1))`` times the ES taper; one FFT and the division by the taper
give ``I(l, m) = Re Σ a·exp(−2πi(u·l + v·m + w·(n − 1)))`` (DESIGN §1) with ``w``
rounded to ``w_k``. Unlike w-stacking (:mod:`~uvlab.gpu.gridders.wstack`), which
FFTs a grid per w plane, there is one grid and one FFT; the cost moves into the
kernels (``S_k²`` taps per record, S_k growing with |w|) and their construction.

Records are moved to the Hermitian half plane as every gridder moves them
(:func:`~uvlab.gpu.gridders.half_plane.half_plane_coords`):
``(u, v, w, V) → (−u, −v, −w, V*)``, which keeps ``Re(…)``; a record left with
w < 0 grids with the conjugate kernel. The grid is folded and transformed by the
separable chain's c2r steps (:func:`~uvlab.gpu.gridders.half_image.fold_half`,
:func:`~uvlab.gpu.gridders.half_image.half_to_image`).

The degridder is the exact transpose: correct, pad, forward real FFT
(:func:`~uvlab.gpu.gridders.half_plane.image_to_half`), then each record reads
``Σ conj K(k − ξ)·F(k)`` (conjugated back for a mirrored record), so Cotton–Schwab
subtracts its model with the same w-planes.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.blocks import block_done
from uvlab.gpu.gridders.half_image import fold_half, half_to_image
from uvlab.gpu.gridders.half_plane import half_plane_coords, image_to_half, read_half
from uvlab.gpu.gridders.params import GridParams, good_size
from uvlab.gpu.gridders.wkernels import WPlanes, taps, w_planes
from uvlab.gpu.image_spec import ImageSpec
from uvlab.gpu.timing import timed


def wproject_planes(spec: ImageSpec, params: GridParams, w) -> WPlanes:
    """The w-planes on conv's padded grid for ``params`` and these w (wavelengths)."""
    if params.kernel == "lm":
        raise ValueError("w-projection makes its own kernels: the least-misfit table has none")
    return w_planes(spec, params, good_size(float(params.sigma) * spec.npix), w)


def _records(u, v, w, planes: WPlanes):
    """(ξu, ξv, w, mirrored) of the records on the half plane of the padded grid."""
    scale = planes.n_grid * planes.cell_rad
    xu = np.asarray(u, dtype=np.float64) * scale
    xv = -np.asarray(v, dtype=np.float64) * scale
    xu, xv, neg = half_plane_coords(xu, xv, planes.n_grid)
    return xu, xv, np.where(neg, -np.asarray(w, dtype=np.float64), w), neg


def _groups(planes: WPlanes, w, chunk: int):
    """(plane k, conjugate?, record indices) per plane and sign of w, in chunks of taps."""
    k = planes.plane_of(w)
    key = 2 * k + (np.asarray(w) < 0)
    order = np.argsort(key, kind="stable")
    bounds = np.flatnonzero(np.diff(key[order])) + 1
    for idx in np.split(order, bounds):
        if idx.size == 0:
            continue
        plane, conj = int(k[idx[0]]), bool(w[idx[0]] < 0)
        s = planes.kernel(plane).support
        step = max(1, int(chunk) // (s * s))
        for lo in range(0, idx.size, step):
            yield plane, conj, idx[lo : lo + step]


class _TapBuffer:
    """Taps gathered over plane groups and added to the grid a chunk at a time.

    One ``np.bincount`` per chunk of ``chunk`` taps instead of one per plane: the
    bincount's cost in grid cells is paid once per chunk.
    """

    def __init__(self, flat: np.ndarray, chunk: int):
        self.flat, self.chunk = flat, int(chunk)
        self.cells, self.vals, self.size = [], [], 0

    def add(self, cells, vals) -> None:
        self.cells.append(cells)
        self.vals.append(vals)
        self.size += cells.size
        if self.size >= self.chunk:
            self.flush()

    def flush(self) -> None:
        if not self.cells:
            return
        cells, vals = np.concatenate(self.cells), np.concatenate(self.vals)
        self.flat.real += np.bincount(cells, vals.real, minlength=self.flat.size)
        self.flat.imag += np.bincount(cells, vals.imag, minlength=self.flat.size)
        self.cells, self.vals, self.size = [], [], 0


def wproject_dirty(
    u, v, w, wvis, spec: ImageSpec, params: GridParams, *, timer=None, on_block=None
) -> np.ndarray:
    """Unnormalised dirty image with the w-term by w-projection.

    Parameters
    ----------
    u, v, w : (nvis,) float
        Wavelengths.
    wvis : (nvis,) complex
        Weight × visibility.
    spec : ImageSpec
    params : GridParams
        ``wprojplanes`` (−1: tclean's automatic count), ``eps`` (the kernels'
        truncation, :meth:`~uvlab.gpu.gridders.params.GridParams.accuracy`), ``sigma``
        (padding), ``chunk`` (taps per bincount).
    timer : StageTimer, optional
    on_block : callable() -> None, optional
        Called between chunks (a cancel check).

    Returns
    -------
    (N, N) float64
        ``Re Σ wvis·exp(−2πi(u·l + v·m + w_k·(n − 1)))``, ``w_k`` the nearest plane's w.
    """
    with timed(timer, "sort / bin"):
        planes = wproject_planes(spec, params, w)
        xu, xv, ws, neg = _records(u, v, w, planes)
        vis = np.where(neg, np.conj(wvis), wvis).astype(np.complex128)
    m = planes.n_grid
    with timed(timer, "sort / bin"):
        smax = max(planes.kernel(int(k)).support for k in np.unique(planes.plane_of(ws)))
    pad = smax // 2 + 1
    width = m // 2 + 1 + 2 * pad
    ext = np.zeros((m, width), dtype=np.complex128)
    buffer = _TapBuffer(ext.reshape(-1), params.chunk)
    for plane, conj, idx in _groups(planes, ws, params.chunk):
        block_done(on_block)
        kern = planes.kernel(plane)
        with timed(timer, "sort / bin"):
            k0u, k0v, vals = taps(xu[idx], xv[idx], kern, planes.oversample)
            if conj:
                vals = np.conj(vals)
            j = np.arange(kern.support)
            rows = ((k0v[:, None] + j) % m) * width
            cells = (rows[:, :, None] + (k0u[:, None] + j + pad)[:, None, :]).ravel()
        with timed(timer, "grid"):
            buffer.add(cells, (vals * vis[idx, None, None]).ravel())
    with timed(timer, "grid"):
        buffer.flush()
        half = fold_half(ext, m, pad, on_block, inplace=True)
    with timed(timer, "FFT"):
        img = half_to_image(half, m, spec.npix, on_block)
    with timed(timer, "correct"):
        corr = planes.corrector()
        img *= corr[:, None] * corr[None, :]
    return img


def wproject_predict(
    img, u, v, w, spec: ImageSpec, params: GridParams, *, timer=None
) -> np.ndarray:
    """Visibilities ``Σ img·exp(+2πi(u·l + v·m + w_k·(n − 1)))`` by w-projected degridding.

    The transpose of :func:`wproject_dirty` with the same planes and kernels. A complex
    image is degridded as its real and imaginary parts.

    Parameters
    ----------
    img : (N, N) float or complex
        Jy per pixel, ``img[j, i]`` at ``l_i``, ``m_j``.
    u, v, w : (nvis,) float
        Wavelengths.
    spec : ImageSpec
    params : GridParams
    timer : StageTimer, optional

    Returns
    -------
    (nvis,) complex128
    """
    img = np.asarray(img)
    if np.iscomplexobj(img):
        re, im = (wproject_predict(p, u, v, w, spec, params, timer=timer)
                  for p in (img.real, img.imag))  # fmt: skip
        return re + 1j * im
    with timed(timer, "sort / bin"):
        planes = wproject_planes(spec, params, w)
        xu, xv, ws, neg = _records(u, v, w, planes)
    m = planes.n_grid
    with timed(timer, "FFT"):
        corr = planes.corrector()
        half = image_to_half(img, corr, corr, m, m)
    out = np.zeros(xu.size, dtype=np.complex128)
    for plane, conj, idx in _groups(planes, ws, params.chunk):
        kern = planes.kernel(plane)
        with timed(timer, "grid"):
            k0u, k0v, vals = taps(xu[idx], xv[idx], kern, planes.oversample)
            j = np.arange(kern.support)
            rows = (k0v[:, None] + j)[:, :, None]
            cols = (k0u[:, None] + j)[:, None, :]
            grid = read_half(half, rows, cols, m)
            # Σ conj(K)·F: the kernel of a w < 0 record is conj K, so K itself there
            out[idx] = np.einsum("nab,nab->n", vals if conj else np.conj(vals), grid)
    return np.where(neg, np.conj(out), out)
