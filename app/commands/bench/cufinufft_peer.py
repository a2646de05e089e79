"""What the benchmarks share to run cuFINUFFT, the GPU peer, on uvlab's data (never in uvlab.gpu).

uvlab's image ``img[j, i]`` has ``l_i = −(i − N/2)·cell`` and ``m_j = (j − N/2)·cell``
(DESIGN §1). cuFINUFFT's modes run over ``[−N/2, N/2)`` on points
``x = −2π·u·cell``, ``y = 2π·v·cell`` (:func:`points`); its type 1 with isign −1
is uvlab's gridding and its type 2 with isign +1 uvlab's degridding, on the
transposed image (axis 0 pairs with x, that is with l).
"""

from __future__ import annotations


def points(u, v, spec, precision: str):
    """(x, y): cuFINUFFT's non-uniform points for u, v in wavelengths, in the precision's float."""
    import numpy as np

    real = np.float32 if precision == "single" else np.float64
    return (
        (-2 * np.pi * spec.cell_rad * u).astype(real),
        (2 * np.pi * spec.cell_rad * v).astype(real),
    )


def plan(cufinufft, nufft_type: int, npix: int, eps: float, dtype, method: int):
    """A cuFINUFFT plan of ``nufft_type`` (1: isign −1, 2: isign +1), or None where it refuses.

    A refusal (an ε it cannot reach in single precision, a method it lacks) is printed, one line.
    """
    import numpy as np

    try:
        return cufinufft.Plan(
            nufft_type, (npix, npix), eps=eps, isign=-1 if nufft_type == 1 else 1,
            dtype=np.dtype(dtype).name, gpu_method=method,
        )  # fmt: skip
    except Exception as exc:
        print(f"cufinufft type {nufft_type} eps={eps:g} method {method}: {exc}")
        return None
