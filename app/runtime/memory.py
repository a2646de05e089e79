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

The available memory is :func:`uvlab.app.runtime.memory_limits.available_memory`
(free memory, cgroup limits, ``ulimit -v``); a refusal names the limit that was
binding ("… of memory is available (cgroup limit)"), and when nothing is known
nothing is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from uvlab.app.runtime.memory_limits import available_memory

#: Fraction of the available memory one job may plan to use.
USABLE_FRACTION = 0.9
_READ_CHUNK_BYTES = 64 * 2**20
_DFT_CHUNK = 65536


class InsufficientMemoryError(MemoryError):
    """The planned work needs more memory than is available (message says how much)."""


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
    nvis: int = 0,
    nimages: int = 4,
) -> MemoryEstimate:
    """Memory to image ``nvis`` samples on an ``npix``² image with ``algorithm``.

    Parameters
    ----------
    npix : int
        Image side.
    algorithm : str
        A name of the algorithm catalogue: ``"dft"`` or a gridder.
    params : GridParams, optional
        Gridder parameters, σ included (default ``GridParams()``).
    nvis : int
        Usable samples (an upper bound is fine).
    nimages : int
        N² float64 images kept at once (dirty, PSF, copies).
    """
    from uvlab.gpu.gridders import registry
    from uvlab.gpu.gridders.params import GridParams
    from uvlab.gpu.image_spec import ImageSpec

    npix = int(npix)
    parts = {"images": 8.0 * npix * npix * nimages, "samples": 128.0 * nvis}
    if not registry.algorithm(algorithm).is_gridder:  # the DFT
        chunk = min(max(int(nvis), 1), _DFT_CHUNK)
        parts["dft factors"] = 4.0 * 16 * chunk * npix
        return MemoryEstimate(parts)

    params = params or GridParams()
    plan_u, plan_v = registry.axis_plans(algorithm, ImageSpec(npix, 1.0e-6), params)
    parts["grid"] = 64.0 * plan_v.n_grid * (plan_u.n_grid // 2 + 1)
    parts["fft grid"] = 16.0 * plan_v.n_fft * (plan_u.n_fft // 2 + 1)
    parts["tap chunk"] = 40.0 * min(int(params.chunk), max(nvis, 1) * params.support**2)
    return MemoryEstimate(parts)


def clean_estimate(
    npix: int, algorithm: str, params=None, *, nvis: int = 0, deconvolver: str = "hogbom"
) -> MemoryEstimate:
    """Memory CLEAN adds to an ``npix``² image (``uvlab image --niter``).

    The PSF of side 2N (:func:`uvlab.app.lab.deconvolve.wide_psf`: its image and the
    gridding of a 2N² grid), the model, residual, restored image and mask (N²
    each); Cotton–Schwab also holds the selected visibilities again (u, v,
    complex128 data, weights, the degridded model and the residual: ~64 bytes
    per sample) and grids the residual on an N² grid in every major cycle.
    """
    psf = imaging_estimate(2 * int(npix), algorithm, params, nvis=nvis, nimages=1)
    parts = {
        "CLEAN PSF (2N)": psf.total,
        "CLEAN images": 8.0 * int(npix) ** 2 * 4,
    }
    if deconvolver == "cotton-schwab":
        grid = imaging_estimate(int(npix), algorithm, params, nvis=0, nimages=1)
        parts["major-cycle visibilities"] = 64.0 * nvis
        parts["major-cycle grid"] = grid.total
    return MemoryEstimate(parts)


def check_memory(
    estimate: MemoryEstimate | float,
    what: str,
    *,
    available: int | None = None,
    fraction: float = USABLE_FRACTION,
    hint: str = "use a smaller image or fewer data",
) -> None:
    """Raise :class:`InsufficientMemoryError` when ``estimate`` exceeds the available memory.

    Parameters
    ----------
    estimate : MemoryEstimate or float
        Bytes needed.
    what : str
        What the memory is for, e.g. ``"a 200000² image with conv"``.
    available : int, optional
        Bytes available (default :func:`available_memory`, whose binding limit
        the message names).
    fraction : float
        Fraction of the available memory that may be planned.
    hint : str
        What to do instead, ending the message.
    """
    est = estimate if isinstance(estimate, MemoryEstimate) else MemoryEstimate({"": estimate})
    if available is None:
        found = available_memory()
        if found is None:
            return
        avail, limit = found.bytes, f" ({found.limit})"
    else:
        avail, limit = available, ""
    if est.total > fraction * avail:
        detail = est.describe()
        detail = f" ({detail})" if detail and len(est.parts) > 1 else ""
        if est.total > avail:
            room = f"but only {format_bytes(avail)} of memory is available{limit}"
        else:  # compare like for like: what may be planned, not all that is free
            room = (
                f"more than the {format_bytes(fraction * avail)} uvlab plans at most "
                f"({fraction:.0%} of the {format_bytes(avail)} of memory available{limit})"
            )
        raise InsufficientMemoryError(
            f"{what} needs about {format_bytes(est.total)}{detail}, {room}; {hint}"
        )
