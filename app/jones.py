"""The Jones terms of a simulated observation: primary beams (E) and antenna gains (G).

:class:`JonesOptions` is what the command line asks for (``--primary-beam``,
``--dish-diameter-m``, ``--gain-*``, ``--gains``); :class:`ObservationJones` turns it
into the arrays :func:`uvlab.gpu.predict.predict_antennas` takes, integration chunk by
chunk (:func:`uvlab.app.predict_obs.predict_integrations`):

- ``beam(times)``: (time or 1, ant or 1, chan, src) voltage beams at the sources. An
  analytic model (:mod:`uvlab.gpu.predict.beams`) from each antenna's dish diameter in
  the layout, or ``dish_diameter_m`` for all; circularly symmetric, so the same at every
  time. A FITS cube (:mod:`uvlab.app.beam_cube`) is rotated by each antenna's
  parallactic angle at each integration (alt-az mounts): χ from the antenna's latitude,
  the phase centre's hour angle at the antenna's longitude and its declination.
- ``gains(times)``: (time, ant, chan) scalar gains, or (time, ant, chan, 2, 2) Jones
  matrices: random (:func:`uvlab.gpu.predict.gains.random_gains`, independent per feed
  in full polarisation) or from a table (:mod:`uvlab.app.gains_table`).

The beams point at the phase centre (the pointing centre is the phase centre).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from uvlab.app.observation import Observation
    from uvlab.gpu.sources import SourceArrays

#: Analytic beam models by name; anything else (a path) is a FITS beam cube.
ANALYTIC = ("airy", "gaussian", "cos3")


@dataclass(frozen=True)
class JonesOptions:
    """Primary beam and gain options (all off by default).

    Attributes
    ----------
    primary_beam : "none", "airy", "gaussian", "cos3" or the path of a FITS beam cube
    dish_diameter_m : float or None — every antenna's diameter (None: the layout's)
    gaussian_k : float — the Gaussian model's power FWHM in λ/D
    gain_amp_rms, gain_phase_rms_deg : float — RMS of the random amplitude (fractional)
        and phase (degrees) errors; 0 and 0: no random gains
    gain_corr_time_s : float — correlation time of the random gains
    gain_seed : int or None
    gains_file : str or None — a gains table instead of random gains
    """

    primary_beam: str = "none"
    dish_diameter_m: float | None = None
    gaussian_k: float = 1.029
    gain_amp_rms: float = 0.0
    gain_phase_rms_deg: float = 0.0
    gain_corr_time_s: float = 3600.0
    gain_seed: int | None = None
    gains_file: str | None = None

    @property
    def has_beam(self) -> bool:
        return self.primary_beam not in ("none", "", None)

    @property
    def has_gains(self) -> bool:
        return bool(self.gains_file) or self.gain_amp_rms > 0 or self.gain_phase_rms_deg > 0

    @property
    def active(self) -> bool:
        return self.has_beam or self.has_gains

    def load_cube(self):
        """The FITS beam cube, or None for an analytic model (errors name the file)."""
        if not self.has_beam or self.primary_beam in ANALYTIC:
            return None
        from uvlab.app.beam_cube import BeamCubeError, load_beam_cube

        if not Path(self.primary_beam).is_file():
            raise BeamCubeError(
                f"{self.primary_beam}: no such beam cube (or give none, airy, gaussian, cos3)"
            )
        return load_beam_cube(self.primary_beam)


def antenna_parallactic(obs: Observation, times: slice) -> np.ndarray:
    """(time, ant) parallactic angle of the phase centre at each antenna, radians.

    The angle from the J2000 north to the zenith at the phase centre, east of north: the
    parallactic angle of the apparent place (the hour angle at the antenna is the site's
    plus the antenna's longitude offset, the declination of date), plus the frame
    position angle between the apparent and the J2000 north (precession: ~3e-3 rad in
    2025 at Dec −50°), since the sky's (l, m) lie on J2000 axes.
    """
    from uvlab.app.apparent import apparent_place
    from uvlab.gpu.predict.beams import parallactic_angle

    lon, lat, _ = obs.layout.geodetic()
    mjd_s = obs.times_mjd_s[times]
    ra_d, dec_d, e_u0 = apparent_place(mjd_s, obs.ra0_rad, obs.dec0_rad)
    e_u = np.stack([-np.sin(ra_d), np.cos(ra_d), np.zeros_like(ra_d)], axis=-1)
    e_v = np.stack(
        [-np.sin(dec_d) * np.cos(ra_d), -np.sin(dec_d) * np.sin(ra_d), np.cos(dec_d)], axis=-1
    )
    frame = np.arctan2(np.sum(e_u0 * e_v, axis=-1), np.sum(e_u0 * e_u, axis=-1))
    ha = obs.ha_rad[times][:, None] + (lon - obs.layout.site_lon_rad)[None, :]
    chi = parallactic_angle(ha, dec_d[:, None], lat[None, :])
    return chi + frame[:, None]


class ObservationJones:
    """Beams and gains of ``obs`` for ``sources``, per chunk of integrations.

    Parameters
    ----------
    obs : Observation
    sources : SourceArrays — the sky about the phase centre
    options : JonesOptions
    feeds : "scalar", "linear" or "circular" — the predict mode; random gains are one
        scalar per antenna in "scalar", independent per feed otherwise
    """

    def __init__(self, obs: Observation, sources: SourceArrays, options: JonesOptions, feeds: str):
        self.obs, self.sources, self.options = obs, sources, options
        self._cube = options.load_cube()
        self._analytic = None
        self._gains = None
        if options.has_beam and self._cube is None:
            from uvlab.gpu.predict.beams import antenna_beams

            dish = (
                obs.layout.dish_diameter
                if options.dish_diameter_m is None
                else np.full(obs.layout.nant, float(options.dish_diameter_m))
            )
            self._analytic = antenna_beams(
                options.primary_beam, sources.lmn, obs.freq_hz, dish,
                gaussian_k=options.gaussian_k,
            )  # fmt: skip
        if options.gains_file:
            from uvlab.app.gains_table import read_gains_table

            table = read_gains_table(options.gains_file, obs.layout.antenna_names)
            if feeds == "scalar" and table.two_feeds:
                from uvlab.app.gains_table import GainsTableError

                raise GainsTableError(
                    f"{options.gains_file}: per-feed gains need a polarised predict"
                )
            self._gains = table.evaluate(
                obs.times_mjd_s, obs.freq_hz, obs.layout.nant, tolerance_s=obs.int_s / 2
            )
        elif options.has_gains:
            from uvlab.gpu.predict.gains import random_gains

            self._gains = random_gains(
                obs.times_mjd_s - obs.times_mjd_s[0],
                obs.layout.nant,
                1,
                amp_rms=options.gain_amp_rms,
                phase_rms_rad=math.radians(options.gain_phase_rms_deg),
                corr_time_s=options.gain_corr_time_s,
                seed=options.gain_seed,
                feeds=1 if feeds == "scalar" else 2,
            )  # one channel: a flat bandpass, broadcast in gains()

    def beam(self, times: slice):
        """(time or 1, ant or 1, chan, src) voltage beams, or None without a beam."""
        if self._analytic is not None:
            return self._analytic
        if self._cube is None:
            return None
        return self._cube.sample(
            self.sources.lmn, self.obs.freq_hz, antenna_parallactic(self.obs, times)
        )

    def gains(self, times: slice):
        """(time, ant, chan) or (time, ant, chan, 2, 2) gains of ``times``, or None."""
        if self._gains is None:
            return None
        g = self._gains[times]
        nchan = self.obs.freq_hz.size
        if g.shape[2] != nchan:
            g = np.broadcast_to(g, (g.shape[0], g.shape[1], nchan, *g.shape[3:]))
        return g
