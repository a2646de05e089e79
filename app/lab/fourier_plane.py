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


def sky_amplitude(model: np.ndarray, cell_rad: float) -> tuple[np.ndarray, float]:
    """(|V(u_k, v_q)| (N, N) Jy, du in wavelengths) of ``model`` (N, N) Jy/pixel.

    ``amp[q, k]`` is at ``u = (k − N/2)·du``, ``v = (q − N/2)·du``.
    """
    img = np.asarray(model, dtype=np.float64)
    n = img.shape[0]
    if img.ndim != 2 or img.shape != (n, n):
        raise ValueError(f"the model must be square (N, N), got shape {img.shape}")
    shifted = np.fft.ifftshift(img)  # pixel N/2 (l = m = 0) to index 0
    ft = np.fft.ifft(shifted, axis=0) * n  # m: exp(+2πi·v·m)
    ft = np.fft.fft(ft, axis=1)  # l = −x·cell: exp(−2πi·u·x·cell)
    return np.abs(np.fft.fftshift(ft)), 1.0 / (n * float(cell_rad))
