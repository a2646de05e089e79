"""``--spw``: which spectral windows ``uvlab image`` and ``uvlab compare`` read.

The option itself (:func:`~uvlab.app.commands.ms_args.spw_list`) is
:mod:`uvlab.app.commands.ms_imaging`'s, with the other selection options.

Without ``--spw`` every window holding rows of the field is read, and ``uvlab image``
makes one multi-frequency-synthesis image of them all (WSClean's default, tclean's
``specmode='mfs'``); ``--spw 1`` or ``--spw 0,2`` chooses. An unknown window is a usage
error (exit 2) naming ``--spw`` and listing those the MS holds.
"""

from __future__ import annotations


def resolve_spws(args) -> tuple[int, ...]:
    """The windows to read: ``--spw``'s, checked against the MS, or every one with rows.

    Sets ``args.spw`` to the window when there is one (what a single-window read takes).
    An unknown window exits 2 (``args.parser.error``) before anything is read.
    """
    from uvlab.app.commands.validate import field_arg
    from uvlab.app.ms.metadata import read_spws
    from uvlab.app.ms.spw_set import field_spws
    from uvlab.app.ms.tables import MSTables

    with MSTables(args.ms) as ms:
        spws = read_spws(ms)
    given = args.spw
    if given is not None:
        unknown = [s for s in given if s >= len(spws)]
        if unknown:
            listing = ", ".join(
                f"{s.id} ({s.nchan} ch at {s.freq_hz[0] / 1e6:.3f} MHz)" for s in spws if s.nchan
            )
            args.parser.error(
                f"--spw {unknown[0]}: {args.ms} has no spectral window {unknown[0]}; "
                f"it has {len(spws)}: {listing or 'none'}"
            )
        chosen = tuple(given)
    else:
        chosen = field_spws(args.ms, field_arg(args.field)) or (0,)  # none: the read says why
    args.spw = chosen[0] if len(chosen) == 1 else chosen
    return chosen


def read_spw_set(args, spws, cache, progress=None):
    """(SpwSet, seconds): each of ``spws`` read as the single-window path reads one.

    ``cache`` (:class:`~uvlab.app.lab.samples.WorkCache`) reads each with the same
    selection (rows, uv range, phase centre) but its window; a window's non-finite
    values are said on stderr, as for one window.
    """
    from dataclasses import replace

    from uvlab.app.commands.ms_imaging import ms_selection, warn
    from uvlab.app.ms.spw_set import SpwSet

    sel = ms_selection(args)
    parts, seconds = [], 0.0
    for i, spw in enumerate(spws):

        def report(f, i=i, spw=spw):
            if progress is not None:
                progress((i + f) / len(spws), f"read spw {spw}")

        data, t = cache.ms_data(replace(sel, spw=spw), progress=report)
        if data.bad_values_note:
            warn(args, f"spw {spw}: {data.bad_values_note}")
        parts.append(data)
        seconds += t
    return SpwSet(tuple(parts)), seconds
