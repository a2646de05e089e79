"""The row selection of ``uvlab image``'s chunked path (issue 27): the flags that pick rows
(``--timerange``, ``--antenna``, ``--phase-center``, ``--minuv-l``/``--maxuv-l``,
``--interval``) turned into what each :class:`~uvlab.app.scale.ms_read.MSRead` reads,
checked against the MS before any chunk is read."""

from __future__ import annotations


def row_selection(args) -> dict:
    """MSRead's row selection of ``--timerange``, ``--antenna``, ``--phase-center`` and
    ``--minuv-l``/``--maxuv-l``, parsed and checked here (MSError, naming the MS) before
    any chunk is read, as :func:`~uvlab.app.commands.ms_imaging.ms_selection` gives them."""
    import numpy as np

    from uvlab.app.commands.ms_imaging import ms_selection
    from uvlab.app.lab.samples import WorkCache
    from uvlab.app.ms.errors import MSError
    from uvlab.app.ms.rowselect import antenna_mask

    sel = ms_selection(args)
    out = dict(phase_centre=sel.phase_centre, uvrange=sel.uvrange)
    cache = WorkCache()
    if sel.timerange:
        out["time_range"] = cache.time_range(sel)
    if sel.antenna:
        names = tuple(cache.ms_info(args.ms).antenna_names)
        try:
            antenna_mask(sel.antenna, names, np.zeros(0, int), np.zeros(0, int))
        except ValueError as exc:
            raise MSError(f"{args.ms}: --antenna {sel.antenna!r}: {exc}") from None
        out.update(antenna=sel.antenna, antenna_names=names)
    return out


def with_interval(args, source):
    """``source`` with ``--interval A B`` made its time range: the A-th to the (B−1)-th of
    the distinct TIMEs it reads (those of its field, window and ``--timerange``), the
    timesteps the in-memory read keeps (:func:`~uvlab.app.ms.rowselect.interval_mask`)."""
    if getattr(args, "interval", None) is None:
        return source
    return source.interval(*args.interval, "--interval")
