"""2-D real FFTs of the client's (2N)² convolutions with one array where NumPy allows it.

NumPy's ``rfft2`` makes the real transform's output and then a second array for the
complex transform along the other axis; ``irfft2`` likewise. At 2880² each (2N)² array is
0.25 GiB, and CLEAN's sub-minor loop (:class:`~uvlab.gpu.deconvolution.subminor.
PsfConvolver`) and the restore (:func:`~uvlab.gpu.deconvolution.restore.convolve_beam`)
run them on the client while it holds the images (issue 27's memory target). With NumPy ≥
2 (``out=``) both stages write into one array: the same transforms, the same bits. CuPy
and older NumPy take the plain calls.
"""

from __future__ import annotations

import numpy as np

from uvlab.gpu.backend import get_xp

_OUT = int(np.__version__.split(".")[0]) >= 2


def rfft2(a):
    """``xp.fft.rfft2(a)`` of a real (M, M') array: (M, M'/2 + 1) complex."""
    xp = get_xp(a)
    if xp is not np or not _OUT:
        return xp.fft.rfft2(a)
    out = np.empty((a.shape[0], a.shape[1] // 2 + 1), dtype=np.result_type(a.dtype, 1j))
    return np.fft.rfft2(a, out=out)


def irfft2_spent(ft, s: tuple[int, int]):
    """``xp.fft.irfft2(ft, s=s)``; ``ft`` is spent (its axis-0 transform made in place)."""
    xp = get_xp(ft)
    if xp is not np or not _OUT:
        return xp.fft.irfft2(ft, s=s)
    np.fft.ifft(ft, n=s[0], axis=0, out=ft)
    return np.fft.irfft(ft, n=s[1], axis=1)
