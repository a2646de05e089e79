"""The size of a simulated observation, known from its spec alone, and its refusal.

Before anything is computed or written, :func:`check_simulation` sizes the
observation from its spec alone (integrations × baselines × channels ×
correlations) and refuses it (:class:`~uvlab.app.runtime.memory.InsufficientMemoryError`,
:class:`~uvlab.app.runtime.diskspace.InsufficientSpaceError`, one line naming the sizes)
when the memory cannot hold one written chunk with the observation, or the
disk cannot hold the MS (:func:`uvlab.app.ms.simulate.simulate_ms` calls it first). The
estimates (:func:`simulation_estimate`, :func:`ms_bytes`, :func:`stokes_i_estimate`) are
upper bounds from peaks measured with NumPy on the CPU:

- the observation: ~80 bytes per row (uvw, flags and their temporaries);
- one written chunk (whole integrations, ~64 MiB of correlations, at least one
  integration): 512 bytes per (row, channel) sample with the per-antenna
  product (point sources, no smearing; measured 472), 256 summing rows
  directly (smearing or Gaussians; measured 237), noise included; plus the
  predict's own temporaries, 256 MiB or, for the per-antenna product, one
  integration's K operands if more (channels × antennas × sources × 48 bytes
  per Stokes parameter predicted);
- a whole Stokes-I prediction in memory (``uvlab compare``, the lab): 64 bytes
  per sample while predicted (measured ≤ 54), then the visibilities and flags
  next to the imaging's own estimate (:func:`uvlab.app.runtime.memory.imaging_estimate`);
- on disk: DATA (complex64) and FLAG (a byte, an upper bound on casacore's
  bits) per correlation, ~200 bytes per row for the other columns (measured
  150–190) and 4 MiB of subtables (measured 2.3 MB).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from uvlab.app.runtime.memory import MemoryEstimate, check_memory

#: Bytes per row the observation holds while it is simulated and written.
OBS_ROW_BYTES = 80
#: Peak bytes per (row, channel) sample of one written chunk, 4 correlations, by predict path.
CHUNK_SAMPLE_BYTES = {"factored": 512, "direct": 256}
#: Peak bytes per sample of a whole Stokes-I prediction held in memory (flags included).
STOKES_I_SAMPLE_BYTES = 64
#: Fixed temporaries of the MS writer and casacore.
WRITER_FIXED_BYTES = 64 * 2**20
#: Bytes on disk per main-table row besides DATA and FLAG.
MS_ROW_BYTES = 200
#: Bytes on disk of a new MS's subtables and table files.
MS_FIXED_BYTES = 4 * 2**20
#: The refusals' advice.
SMALLER = "use fewer channels or integrations (a longer --int-s), or a smaller array"


@dataclass(frozen=True)
class ObservationSize:
    """The shape of an observation, known from its spec without simulating it."""

    ntime: int
    nant: int
    nchan: int

    @property
    def nbl(self) -> int:
        return self.nant * (self.nant - 1) // 2

    @property
    def nrow(self) -> int:
        return self.ntime * self.nbl

    @property
    def nsamples(self) -> int:
        """(row, channel) samples."""
        return self.nrow * self.nchan

    def describe(self, ncorr: int | None = None) -> str:
        """``"900 integrations × 2016 baselines × 4096 channels × 4 correlations"``."""

        def n(count, word):
            return f"{count} {word}{'' if count == 1 else 's'}"

        text = " × ".join(
            [n(self.ntime, "integration"), n(self.nbl, "baseline"), n(self.nchan, "channel")]
        )
        return text if ncorr is None else f"{text} × {n(ncorr, 'correlation')}"


def observation_size(spec) -> ObservationSize:
    """Integrations, antennas and channels of ``spec``, as :func:`simulate_observation` makes them.

    Only the layout is loaded: nothing the size of the observation is allocated.
    """
    from uvlab.app.observing.layouts import ArrayLayout, load_layout
    from uvlab.app.observing.observation import SIDEREAL_RATE

    layout = spec.layout if isinstance(spec.layout, ArrayLayout) else load_layout(spec.layout)
    if spec.ha_mode:
        start, stop = spec.ha_range_h
        span_s = (stop - start) * 3600.0 / SIDEREAL_RATE
    else:
        span_s = float(spec.duration_h) * 3600.0
    return ObservationSize(max(round(span_s / spec.int_s), 1), layout.nant, int(spec.nchan))


def predict_path(sky, smearing: bool) -> str:
    """``"factored"`` (points, no smearing: the per-antenna product) or ``"direct"``."""
    gaussians = any(getattr(c, "kind", "point") == "gaussian" for c in sky)
    return "direct" if smearing or gaussians else "factored"


def predict_temporaries(size: ObservationSize, nsrc: int, path: str, npol: int = 4) -> float:
    """Bytes of the predict's own temporaries: its CPU budget, or one integration's K operands."""
    from uvlab.gpu.predict.chunking import CPU_BUDGET_BYTES
    from uvlab.gpu.predict.factored import BYTES_PER_K

    one_time = 0.0
    if path == "factored":
        one_time = float(size.nchan) * size.nant * max(int(nsrc), 1) * BYTES_PER_K * npol
    return max(float(CPU_BUDGET_BYTES), one_time)


def chunk_rows(size: ObservationSize, ncorr: int = 4) -> int:
    """Rows :func:`~uvlab.app.ms.writer.write_ms` writes at once (whole integrations)."""
    from uvlab.app.ms.writer import CHUNK_BYTES

    per_row = size.nchan * max(ncorr, 4) * 40
    return min(max(1, CHUNK_BYTES // per_row // max(size.nbl, 1)) * size.nbl, size.nrow)


def simulation_estimate(
    size: ObservationSize, *, nsrc: int = 1, path: str = "factored", ncorr: int = 4
) -> MemoryEstimate:
    """Memory :func:`simulate_ms` holds at once: the observation and one written chunk."""
    samples = float(chunk_rows(size, ncorr)) * size.nchan
    return MemoryEstimate(
        {
            "observation": float(OBS_ROW_BYTES) * size.nrow,
            "visibility chunk": CHUNK_SAMPLE_BYTES[path] * max(ncorr, 4) / 4 * samples,
            "predict temporaries": predict_temporaries(size, nsrc, path),
            "writer": float(WRITER_FIXED_BYTES),
        }
    )


def ms_bytes(size: ObservationSize, ncorr: int = 4) -> float:
    """Bytes the MS of ``size`` takes on disk (an upper bound)."""
    per_sample = ncorr * (8 + 1)  # DATA complex64 and FLAG per correlation
    return float(size.nsamples) * per_sample + float(MS_ROW_BYTES) * size.nrow + MS_FIXED_BYTES


def stokes_i_estimate(
    size: ObservationSize,
    *,
    nsrc: int = 1,
    path: str = "direct",
    itemsize: int = 16,
    flag_bytes: int = 1,
    extra_row_bytes: int = 0,
    imaging: MemoryEstimate | None = None,
) -> MemoryEstimate:
    """Memory to predict a whole Stokes-I data set in memory, then image it.

    The observation and the visibilities (``itemsize``) and flags
    (``flag_bytes`` per sample) stay; the prediction's temporaries come first,
    the imaging (``imaging``, default its per-sample part) after: the larger counts.
    """
    ns = float(size.nsamples)
    held = MemoryEstimate(
        {
            "observation": float(OBS_ROW_BYTES + extra_row_bytes) * size.nrow,
            "visibilities": (itemsize + flag_bytes) * ns,
        }
    )
    predict = MemoryEstimate(
        {
            "prediction": max(STOKES_I_SAMPLE_BYTES - itemsize - flag_bytes, 0) * ns
            + predict_temporaries(size, nsrc, path, npol=1)
        }
    )
    imaging = imaging if imaging is not None else MemoryEstimate({"samples": 128.0 * ns})
    return held + max(predict, imaging, key=lambda e: e.total)


def check_simulation(
    spec,
    path: str | os.PathLike | None = None,
    *,
    nsrc: int = 1,
    predict: str = "factored",
    ncorr: int = 4,
) -> ObservationSize:
    """Refuse a simulation the memory or the disk cannot hold, before anything is made.

    Raises :class:`~uvlab.app.runtime.memory.InsufficientMemoryError` or (with ``path``,
    the MS to write) :class:`~uvlab.app.runtime.diskspace.InsufficientSpaceError`.
    """
    from uvlab.app.runtime.diskspace import check_space

    size = observation_size(spec)
    what = size.describe(ncorr)
    check_memory(
        simulation_estimate(size, nsrc=nsrc, path=predict, ncorr=ncorr),
        f"simulating {what}",
        hint=SMALLER,
    )
    if path is not None:
        check_space(path, ms_bytes(size, ncorr), f"a MeasurementSet of {what}")
    return size
