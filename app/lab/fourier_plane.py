"""The sky's Fourier plane: |FT(sky)| on the uv grid of the image, for the window's view.

The visibility of a sky ``I(l, m)`` is ``V(u, v) = Σ I(l, m)·exp(+2πi(u·l + v·m))``
(DESIGN §1, small field, w-term left out). On the image grid (``img[j, i]`` at
``l_i = −(i − N/2)·cell``, ``m_j = (j − N/2)·cell``) it is sampled by the FFT at
``u_k = (k − N/2)·du``, ``v_q = (q − N/2)·du``, ``du = 1/(N·cell)``: along m an
inverse DFT (times N), along l (which runs against the column index) a forward one.
:func:`sky_amplitude` returns ``|V|[q, k]`` laid out that way, which a view
places with its centre pixel at u = v = 0.
"""

from __future__ import annotations

import numpy as np

#: Largest image whose amplitude is computed (the lab's images go to 4096²: 64 MB of float32).
MAX_NPIX = 4096


def sky_amplitude(model: np.ndarray, cell_rad: float, xp=np) -> tuple[np.ndarray, float]:
    """(|V(u_k, v_q)| (N, N) float32 Jy, du in wavelengths) of ``model`` (N, N, even) Jy/pixel.

    ``amp[q, k]`` is at ``u = (k − N/2)·du``, ``v = (q − N/2)·du``. One real
    FFT: with ``F = FFT2(ifftshift(model))``, ``V(u_k, v_q) = F[−q', k']``
    (``q' = q − N/2``, ``k' = k − N/2``, indices mod N), and
    ``|F[−q', k']| = |F[q', −k']|`` for a real sky, so the half-plane
    ``rfft2`` gives is enough. ``xp``: the array module that runs the FFT (CuPy
    on a GPU job: 1024² in ~1 ms instead of ~10 on the host); the result is NumPy.
    """
    from uvlab.gpu.backend import to_numpy

    img = np.asarray(model, dtype=np.float64)
    n = img.shape[0]
    if img.ndim != 2 or img.shape != (n, n) or n % 2:
        raise ValueError(f"the model must be square (N, N), N even, got shape {img.shape}")
    half = xp.abs(xp.fft.rfft2(xp.fft.ifftshift(xp.asarray(img)))).astype(xp.float32)  # (N, N/2+1)
    q = xp.arange(n) - n // 2
    amp = xp.empty((n, n), dtype=xp.float32)  # laid out where the FFT ran, one copy back
    amp[:, n // 2 :] = half[(-q) % n, : n // 2]  # k' = 0 … N/2 − 1
    amp[:, : n // 2] = half[q % n, n // 2 : 0 : -1]  # k' = −N/2 … −1, from −k'
    return to_numpy(amp), 1.0 / (n * float(cell_rad))
