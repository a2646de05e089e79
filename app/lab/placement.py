"""Placing things before anything is simulated: a named sky, antennas moved by hand.

- :func:`demo_sky_for`: a sky by name, a demo sky spread over a fraction of
  the image's field of view (:func:`estimate_cell_rad` pixels);
- :func:`layout_with_enu`: an array layout with antennas at new positions.

Both run on the window's own thread (a sky chosen, an antenna dragged) and in
:meth:`uvlab.app.lab.session.SessionState.resolved`, so they use only the
layout, never the simulated observation.
"""

from __future__ import annotations

import math

import numpy as np

from uvlab.app.lab.imaging import ImagingOptions
from uvlab.app.observing.observation import ObservationSpec
from uvlab.app.skymodel import SkyModel


def layout_with_enu(layout, enu):
    """A copy of an :class:`~uvlab.app.observing.layouts.ArrayLayout` with new ENU positions.

    Parameters
    ----------
    layout : ArrayLayout
    enu : (nant, 3) float, metres about the layout's site
    """
    from uvlab.app.observing.layouts import ArrayLayout
    from uvlab.app.observing.sites import enu_matrix

    enu = np.asarray(enu, dtype=np.float64).reshape(-1, 3)
    if enu.shape[0] != layout.nant:
        raise ValueError(f"{enu.shape[0]} positions for {layout.nant} antennas")
    rot = enu_matrix(layout.site_lon_rad, layout.site_lat_rad)
    ecef = layout.site_ecef() + enu @ rot
    name = layout.name if layout.name.endswith("(modified)") else f"{layout.name} (modified)"
    return ArrayLayout(
        name,
        layout.antenna_names,
        ecef,
        layout.dish_diameter,
        layout.site_lon_rad,
        layout.site_lat_rad,
        layout.site_height_m,
        layout.source,
        layout.subarray,
    )


def estimate_cell_rad(observation: ObservationSpec, imaging: ImagingOptions) -> float:
    """The pixel size before any uvw exist: the given one, else 1/(3·B_max/λ_min).

    Used to lay out demo skies over the field of view on the GUI thread; the
    job itself derives the cell from the projected uvw (slightly smaller u_max).
    """
    from uvlab.app.observing.layouts import ArrayLayout, load_layout
    from uvlab.gpu.constants import C_LIGHT
    from uvlab.gpu.image_spec import ARCSEC, default_cell_rad

    if imaging.cell_arcsec:
        return imaging.cell_arcsec * ARCSEC
    lay = observation.layout
    lay = lay if isinstance(lay, ArrayLayout) else load_layout(lay)
    o = observation
    f_max = max(o.freq_hz, o.freq_hz + (o.nchan - 1) * o.chan_width_hz)
    return default_cell_rad(lay.max_baseline_m() * f_max / C_LIGHT)


def demo_sky_for(
    name: str, observation: ObservationSpec, imaging: ImagingOptions, fov_fraction: float = 0.6
) -> SkyModel:
    """A sky by name, a demo sky spread over ``fov_fraction`` of the image.

    The field of view is ``npix`` pixels of :func:`estimate_cell_rad`: known
    before anything is simulated, so the window places a sky on its own thread.
    ``uvlab demo`` and the window place a named sky alike.
    """
    from uvlab.app.skymodel import load_sky

    fov_deg = math.degrees(imaging.npix * estimate_cell_rad(observation, imaging)) * fov_fraction
    return load_sky(
        name,
        ra0_deg=observation.ra_deg,
        dec0_deg=observation.dec_deg,
        freq_hz=observation.freq_hz,
        fov_deg=fov_deg,
    )
