"""tclean's density-cell scale of a MeasurementSet: ν_LSRK/ν_TOPO of its field, mid-track.

``uvlab image --density-frame lsrk`` counts uniform and Briggs densities on uv scaled by
it, as tclean does (``docs/conventions.md``, Weighting). One number per selection: over a
day the ratio changes by < 2e-6 (the Earth's rotation), which moves a cell boundary by
< 1e-4 of a cell at the band's edge of a 128² grid.
"""

from __future__ import annotations

import numpy as np

from uvlab.app.ms.metadata import read_fields
from uvlab.app.ms.tables import MSTables, translated
from uvlab.app.observing.lsrk import lsrk_ratio


def lsrk_density_scale(path, field: int | str) -> float:
    """ν_LSRK/ν_TOPO of ``field`` (index or name) of the MS at ``path``.

    At the median TIME of the field's rows, seen from the mean ANTENNA position (ITRF).
    Raises ``ValueError`` in one line when the MS has no such field or no rows of it.
    """
    with MSTables(path) as ms:
        fields = read_fields(ms)
        match = [f for f in fields if f.id == field or f.name == str(field)]
        if not match:
            raise ValueError(f"{ms.path}: no field {field!r}")
        info = match[0]
        with translated(ms.path):
            time = ms.main.getcol("TIME")
            ids = ms.main.getcol("FIELD_ID")
            positions = ms.sub("ANTENNA").getcol("POSITION")
    time = np.asarray(time)[np.asarray(ids) == info.id]
    if not time.size:
        raise ValueError(f"{ms.path}: field {field!r} has no rows")
    site = np.asarray(positions, dtype=float).reshape(-1, 3).mean(axis=0)
    return lsrk_ratio(float(np.median(time)), info.ra_rad, info.dec_rad, site)
