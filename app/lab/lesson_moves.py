"""The two moves a scene makes as the window makes them by hand (no Qt).

- :func:`switch_layout`: another array; when its site cannot see the field
  above the elevation limit, the declination moves to the nearest one it sees
  (:func:`uvlab.app.observing.elevation.with_visible_declination`);
- :func:`with_declination`: the field moved to another declination (the
  one-click "Use Dec X" fix).

A relative sky (a demo sky: :attr:`~uvlab.app.skymodel.SkyModel.centre_deg`
set) moves with the phase centre, each component keeping its direction
cosines about it (:meth:`~uvlab.app.skymodel.SkyModel.moved_to`); an absolute
one (a sky file) stays where it is on the sky; a sky given by name is placed
about the new centre when resolved.
"""

from __future__ import annotations

from dataclasses import replace

from uvlab.app.lab.session import SessionState
from uvlab.app.observing.elevation import with_visible_declination
from uvlab.app.observing.observation import ObservationSpec


def _moved_sky(sky, centre: ObservationSpec):
    """The sky as the window keeps it for a new phase centre: a relative sky moved there."""
    move = getattr(sky, "moved_to", None)  # a SkyModel; a NamedSky is placed when resolved
    return sky if move is None else move(centre.ra_deg, centre.dec_deg)


def with_declination(state: SessionState, dec_deg: float) -> SessionState:
    """``state`` with the phase centre at ``dec_deg`` (a relative sky moved with it).

    The one-click fix that goes with :func:`uvlab.app.observing.elevation.field_visibility`:
    ``with_declination(state, visible_declination_for(state.observation))``.
    """
    obs = replace(state.observation, dec_deg=float(dec_deg))
    return replace(state, observation=obs, sky=_moved_sky(state.sky, obs))


def switch_layout(state: SessionState, layout: str) -> tuple[SessionState, str | None]:
    """``state`` observed with another array; the declination moved if the site cannot see it.

    Antennas moved by hand are dropped (they belonged to the old array). When
    the new site sees the field below the elevation limit for all or most of
    the hour-angle range (:func:`uvlab.app.observing.elevation.field_visibility`), the
    declination becomes the nearest one it sees for the whole range, and the
    line returned says so (for the status bar and the log); else None.
    """
    obs = replace(state.observation, layout=str(layout))
    moved, note = with_visible_declination(obs)
    new = replace(state, observation=obs, modified_antennas_enu=None)
    if moved.dec_deg != obs.dec_deg:
        new = with_declination(new, moved.dec_deg)
    return new, note
