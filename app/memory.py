"""Estimate the memory a read or an image needs, and refuse it before allocating.

The estimates are upper bounds built from the sizes the engine allocates
(see :mod:`uvlab.gpu.gridders.separable` and :mod:`uvlab.gpu.imaging`):

- reading (``read_visibilities``): per selected sample the Stokes product,
  weight and flag (13–25 bytes), per row uvw/time/antennas (40 bytes), plus
  its fixed 64 MiB chunk of temporaries;
- imaging, per usable sample: the flattened u, v, w, visibility, weight,
  imaging weight and the half-plane copies (~128 bytes);
- a gridder's half-plane grid ``Mv × (Mu/2 + 1)`` (``Mu``, ``Mv`` the grid
  sides of its axis plans) held as real and imaginary sums, the folded
  complex grid and the FFT's temporaries (~64 bytes per half-plane cell), plus
  the tap chunk (``GridParams.chunk`` entries, ~40 bytes each);
- the ``dft`` reference: its two (chunk × N) complex factor matrices and their
  temporaries (4 × 16 bytes per entry) with chunk = min(nvis, 65536);
- the images themselves (float64, a few of them).

Available memory is ``MemAvailable`` from ``/proc/meminfo`` (Linux), else
``sysconf(SC_AVPHYS_PAGES)``; when neither is known nothing is refused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

#: Fraction of the available memory one job may plan to use.
USABLE_FRACTION = 0.9
_READ_CHUNK_BYTES = 64 * 2**20
_DFT_CHUNK = 65536


class InsufficientMemoryError(MemoryError):
    """The planned work needs more memory than is available (message says how much)."""


def available_bytes() -> int | None:
    """Memory available to a new allocation, bytes, or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def format_bytes(n: float) -> str:
    """``1536`` → ``"1.5 KiB"`` (binary units)."""
    n, units, i = float(n), ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"), 0
    while abs(n) >= 1024 and i < len(units) - 1:
        n, i = n / 1024, i + 1
    return f"{n:.0f} B" if i == 0 else f"{n:.1f} {units[i]}"


@dataclass(frozen=True)
class MemoryEstimate:
    """Bytes per part of a job; ``total`` is their sum."""

    parts: dict[str, float] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return float(sum(self.parts.values()))

    def __add__(self, other: MemoryEstimate) -> MemoryEstimate:
        parts = dict(self.parts)
        for k, v in other.parts.items():
            parts[k] = parts.get(k, 0.0) + v
        return MemoryEstimate(parts)

    def describe(self) -> str:
        """``"grid 2.0 GiB + samples 10 MiB"``, largest part first."""
        items = sorted(self.parts.items(), key=lambda kv: -kv[1])
        return " + ".join(f"{k} {format_bytes(v)}" for k, v in items if v > 0)


def read_estimate(nrow: int, nchan: int, ncorr: int = 4) -> MemoryEstimate:
    """What ``read_visibilities`` holds for ``nrow`` rows × ``nchan`` channels."""
    per_sample = 8 + 4 + 1  # complex64 vis, float32 weight, bool flag
    return MemoryEstimate(
        {
            "visibilities read": float(nrow) * nchan * per_sample + 40.0 * nrow,
            "read chunk": float(min(_READ_CHUNK_BYTES, nrow * nchan * ncorr * 16 * 3)),
        }
    )


def imaging_estimate(
    npix: int,
    algorithm: str,
    params=None,
    *,
    pad: float = 2.0,
    nvis: int = 0,
    nimages: int = 4,
) -> MemoryEstimate:
    """Memory to image ``nvis`` samples on an ``npix``² image with ``algorithm``.

    Parameters
    ----------
    npix : int
        Image side.
    algorithm : str
        ``"dft"`` or a gridder name.
    params : GridParams, optional
        Gridder parameters (default ``GridParams()``).
    pad : float
        The ImageSpec's padding factor.
    nvis : int
        Usable samples (an upper bound is fine).
    nimages : int
        N² float64 images kept at once (dirty, PSF, copies).
    """
    npix = int(npix)
    parts = {"images": 8.0 * npix * npix * nimages, "samples": 128.0 * nvis}
    if algorithm == "dft":
        chunk = min(max(int(nvis), 1), _DFT_CHUNK)
        parts["dft factors"] = 4.0 * 16 * chunk * npix
        return MemoryEstimate(parts)
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.gridders.registry import axis_plans
    from uvlab.gpu.imaging.spec import ImageSpec

    params = params or GridParams()
    plan_u, plan_v = axis_plans(algorithm, ImageSpec(npix, 1.0e-6, pad), params)
    parts["grid"] = 64.0 * plan_v.n_grid * (plan_u.n_grid // 2 + 1)
    parts["fft grid"] = 16.0 * plan_v.n_fft * (plan_u.n_fft // 2 + 1)
    parts["tap chunk"] = 40.0 * min(int(params.chunk), max(nvis, 1) * params.support**2)
    return MemoryEstimate(parts)


def check_memory(
    estimate: MemoryEstimate | float,
    what: str,
    *,
    available: int | None = None,
    fraction: float = USABLE_FRACTION,
) -> None:
    """Raise :class:`InsufficientMemoryError` when ``estimate`` exceeds the available memory.

    Parameters
    ----------
    estimate : MemoryEstimate or float
        Bytes needed.
    what : str
        What the memory is for, e.g. ``"a 200000² image with conv"``.
    available : int, optional
        Bytes available (default :func:`available_bytes`).
    fraction : float
        Fraction of the available memory that may be planned.
    """
    est = estimate if isinstance(estimate, MemoryEstimate) else MemoryEstimate({"": estimate})
    avail = available_bytes() if available is None else available
    if avail is None:
        return
    if est.total > fraction * avail:
        detail = est.describe()
        detail = f" ({detail})" if detail and len(est.parts) > 1 else ""
        raise InsufficientMemoryError(
            f"{what} needs about {format_bytes(est.total)}{detail}, but only "
            f"{format_bytes(avail)} of memory is available; use a smaller image or fewer data"
        )
