"""Flag and zero the non-finite values of a chunk read, so that none reaches an image.

Rows whose UVW is not finite are flagged whole (UVW, visibility and weight set to 0),
and samples whose visibility is not finite in a correlation used are flagged
(visibility and weight set to 0). :func:`flag_nonfinite` counts what the MS had not
flagged already: :class:`~uvlab.app.ms.vis_data.VisData`'s ``nonfinite_uvw_rows`` and
``nonfinite_vis_samples``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from uvlab.app.ms.row_chunk import Chunk


def flag_nonfinite(chunk: Chunk, used: list[int], *others: list[int]) -> list[tuple[int, int]]:
    """Flag and zero non-finite UVW rows and visibilities in ``chunk``, in place.

    One NaN would otherwise spread over a whole image. Returns (rows with
    non-finite UVW, other samples with a non-finite correlation in ``used``),
    counting only what the MS had not flagged already; with ``others`` (the
    correlations of further products formed from the same chunk), one such pair
    per product. What is flagged and zeroed is per correlation, the same whichever
    products are formed.
    """
    uses = (used, *others)
    bad_row = ~np.isfinite(chunk.uvw).all(axis=1)
    if not bad_row.any() and np.isfinite(chunk.data.sum()):  # a NaN or inf makes the sum so
        return [(0, 0)] * len(uses)  # (an overflow of finite values only sends it the long way)
    bad = ~np.isfinite(chunk.data)
    if not (bad.any() or bad_row.any()):
        return [(0, 0)] * len(uses)
    counts = []
    for u in uses:
        was = chunk.flag[..., u].any(axis=-1)  # (nrow, nchan) flagged in the MS
        bad_used = bad[..., u].any(axis=-1) & ~bad_row[:, None]
        nrows = int(np.count_nonzero(bad_row & ~was.all(axis=1)))
        counts.append((nrows, int(np.count_nonzero(bad_used & ~was))))
    bad = bad | bad_row[:, None, None]
    chunk.flag, chunk.data = chunk.flag | bad, np.where(bad, 0, chunk.data)
    chunk.weight = np.where(bad, np.float32(0), chunk.weight)
    chunk.uvw = np.where(bad_row[:, None], 0.0, chunk.uvw)
    return counts
