"""The lab's MeasurementSet source: open an MS, its summary first, and read the selection (no Qt).

:func:`iter_measurement_set` yields :class:`~uvlab.app.lab.jobs.Progress` and
:class:`~uvlab.app.lab.jobs.Partial` events and returns imaging-ready
:class:`~uvlab.app.lab.samples.Samples` (``samples = yield from ...``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from uvlab.app.lab.image_notes import image_note, outside_image_note
from uvlab.app.lab.jobs import JobRequest, Partial, Progress
from uvlab.app.lab.samples import (
    Samples,
    WorkCache,
    antennas_from_ecef,
    check,
    image_spec_for,
    ms_key,
    uv_rows,
)

#: What the window does with an MS the memory cannot hold (:func:`check_read_memory`'s hint).
STREAMED_HINT = "imaged in row chunks on a Dask cluster instead (docs/scaling.md)"


def check_read_memory(request: JobRequest, info, hint: str | None = None) -> None:
    """Refuse, before reading, an MS the memory cannot hold with its image (one line).

    Counted as ``uvlab image`` counts it: every row at the largest window's channels, the
    read's arrays and the imaging of ``request``'s algorithm. The one place that decides
    whether the lab reads an MS whole or streams it (:mod:`uvlab.app.lab.ms_streamed`).
    The message ends with ``hint``, by default the command that images an MS of any size
    in row chunks.
    Raises :class:`~uvlab.app.runtime.memory.InsufficientMemoryError`.
    """
    from uvlab.app.runtime.memory import check_memory, imaging_estimate, read_estimate

    im = request.imaging
    nrow, nchan = int(info.nrows), max((s.nchan for s in info.spws), default=1)
    est = read_estimate(nrow, nchan) + imaging_estimate(
        im.npix, im.algorithm, im.grid_params(), nvis=nrow * nchan
    )
    name = os.path.basename(os.path.normpath(info.path))
    check_memory(
        est, f"opening {name} ({nrow} rows × {nchan} channels) with a {im.npix}² image",
        hint=hint or f"image it in row chunks of bounded memory from the command line: uvlab "
        f"image --ms {info.path} --npix N --cell-arcsec C --abs-mem GB (docs/scaling.md)",
    )  # fmt: skip


def iter_measurement_set(
    request: JobRequest, cache: WorkCache, cancelled=None, report=None, stream: bool = False
) -> Iterator:
    """Open and read an MS (summary first, as an urgent partial); returns Samples.

    An MS the memory cannot hold (:func:`check_read_memory`) is refused, or with
    ``stream`` (the window's jobs) not read: its summary comes back as a
    :class:`~uvlab.app.lab.ms_streamed.Streamed`, for the task to image in row chunks.
    """
    report = report or (lambda f, s: None)
    sel = request.ms
    yield Progress(0.0, "read MS")
    info = cache.ms_info(sel.path)
    antennas = antennas_from_ecef(info.antenna_positions, info.antenna_names, info.dish_diameter_m)
    yield Partial("read MS", 0.0, info=info, antennas=antennas, urgent=True)
    check(cancelled)
    if not cache.has_ms_data(sel):
        from uvlab.app.runtime.memory import InsufficientMemoryError

        try:
            check_read_memory(request, info, STREAMED_HINT if stream else None)
        except InsufficientMemoryError as exc:
            if not stream:
                raise
            from uvlab.app.lab.ms_streamed import Streamed

            yield Partial("read MS", 0.0, urgent=True, warning=str(exc))
            return Streamed(info, antennas, str(exc))
    data, t_read = cache.ms_data(
        sel, progress=lambda f: report(0.6 * f, "read MS"), cancelled=cancelled
    )
    check(cancelled)
    spec = image_spec_for(request, data.uvw, data.freq_hz)
    if horizon := image_note(request, spec):
        yield Partial("read MS", 0.6, urgent=True, warning=horizon)
    uv = cache.derived(
        "uv",
        ms_key(sel),
        lambda: uv_rows(
            data.uvw,
            data.time,
            data.ant1,
            data.ant2,
            info.nant,
            data.freq_hz,
            ~data.flag.all(axis=1),
        ),
    )
    note = data.bad_values_note  # non-finite UVW or visibilities flagged by the reader
    yield Partial("read MS", 0.6, uv=uv, spec=spec, urgent=note is not None, warning=note)
    sources = request.sky.sources_for(data.ra0_rad, data.dec0_rad)
    if sky_note := outside_image_note(request.sky, spec, data.ra0_rad, data.dec0_rad):
        yield Partial("read MS", 0.6, urgent=True, warning=sky_note)
    what = (
        f"{os.path.basename(data.path)}: field {data.field} '{data.field_name}', spw "
        f"{data.spw}, {data.column} {data.stokes}, {data.nrow} rows × {data.nchan} ch"
    )
    return Samples(
        "ms",
        data.uvw,
        data.freq_hz,
        data.vis,
        data.weight,
        data.flag,
        spec,
        data.ra0_rad,
        data.dec0_rad,
        uv,
        antennas,
        sources,
        {"read MS": t_read} if t_read else {},
        info=info,
        description=what,
        sky_key=(request.sky, ms_key(sel)),
        raw=data,
    )
