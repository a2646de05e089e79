"""The Jones terms of a simulated observation: primary beams (E) and antenna gains (G).

:class:`JonesOptions` is what the command line asks for (``--primary-beam``,
``--dish-diameter-m``, ``--gain-*``, ``--gains``); :class:`ObservationJones` turns it
into the arrays :func:`uvlab.gpu.predict.predict_antennas` takes, integration chunk by
chunk (:func:`uvlab.app.observing.predict_obs.predict_integrations`):

- ``beam(times)``: (time or 1, ant or 1, chan, src) voltage beams at the sources. An
  analytic model (:mod:`uvlab.gpu.predict.beams`) from each antenna's dish diameter in
  the layout, or ``dish_diameter_m`` for all; circularly symmetric, so the same at every
  time. A FITS cube (:mod:`uvlab.app.instrument.beam_cube`) is rotated by each antenna's
  parallactic angle at each integration (alt-az mounts): χ from the antenna's latitude,
  the phase centre's hour angle at the antenna's longitude and its declination. A
  pattern set (``beam_$(corr)_$(reim).fits``, :mod:`uvlab.app.instrument.beam_pattern`) gives
  (time, ant, chan, src, 2, 2) Jones matrices in its feed basis, sampled the same way
  (χ turns the sampling direction, not the matrices: no feed rotation).
- ``gains(times)``: (time, ant, chan) scalar gains, or (time, ant, chan, 2, 2) Jones
  matrices: random (:func:`uvlab.gpu.predict.gains.random_gains`, independent per feed
  in full polarisation) or from a table (:mod:`uvlab.app.instrument.gains_table`).

The beams point at the phase centre (the pointing centre is the phase centre). The rows
of a MeasurementSet (``uvlab predict``) have their own:
:class:`~uvlab.app.instrument.row_jones.RowJones`; the angles are
:mod:`~uvlab.app.instrument.parallactic`'s.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from uvlab.app.instrument.parallactic import antenna_parallactic

if TYPE_CHECKING:
    from uvlab.app.observing.observation import Observation
    from uvlab.gpu.sources import SourceArrays

#: Analytic beam models by name; anything else (a path) is a FITS beam cube.
ANALYTIC = ("airy", "gaussian", "cos3")


@dataclass(frozen=True)
class JonesOptions:
    """Primary beam and gain options (all off by default).

    Attributes
    ----------
    primary_beam : "none", "airy", "gaussian", "cos3", the path of a FITS beam cube, or a
        pattern of FITS files per Jones element (``beam_$(corr)_$(reim).fits``)
    dish_diameter_m : float or None — every antenna's diameter (None: the layout's)
    gaussian_k : float — the Gaussian model's power FWHM in λ/D
    gain_amp_rms, gain_phase_rms_deg : float — RMS of the random amplitude (fractional)
        and phase (degrees) errors; 0 and 0: no random gains
    gain_corr_time_s : float — correlation time of the random gains
    gain_seed : int or None
    gains_file : str or None — a gains table instead of random gains
    feed_rotation : bool — P-Jones: the feeds of alt-az dishes turn by the parallactic
        angle plus the receptor angle (:mod:`uvlab.gpu.predict.feed_rotation`)
    """

    primary_beam: str = "none"
    dish_diameter_m: float | None = None
    gaussian_k: float = 1.029
    gain_amp_rms: float = 0.0
    gain_phase_rms_deg: float = 0.0
    gain_corr_time_s: float = 3600.0
    gain_seed: int | None = None
    gains_file: str | None = None
    feed_rotation: bool = False

    @property
    def has_beam(self) -> bool:
        return self.primary_beam not in ("none", "", None)

    @property
    def has_gains(self) -> bool:
        return bool(self.gains_file) or self.gain_amp_rms > 0 or self.gain_phase_rms_deg > 0

    @property
    def active(self) -> bool:
        return self.has_beam or self.has_gains or self.feed_rotation

    def load_cube(self):
        """The FITS beam cube (a Jones cube for a pattern), or None for an analytic model.

        Errors name the file (:class:`~uvlab.app.instrument.beam_cube.BeamCubeError`).
        """
        if not self.has_beam or self.primary_beam in ANALYTIC:
            return None
        return _read_cube(self.primary_beam, _file_stamps(self.primary_beam))

    def dishes(self, dish_m) -> np.ndarray:
        """Each antenna's dish diameter: ``dish_m`` (the layout's or the MS's), or
        ``dish_diameter_m`` for every antenna when it is given."""
        dish = np.asarray(dish_m, dtype=np.float64)
        if self.dish_diameter_m is None:
            return dish
        return np.full(dish.shape, float(self.dish_diameter_m))

    def analytic_beams(self, lmn, freq_hz, dish_m):
        """(1, ant or 1, chan, src) voltage beams of the analytic model at the sources."""
        from uvlab.gpu.predict.beams import antenna_beams

        return antenna_beams(self.primary_beam, lmn, freq_hz, dish_m, gaussian_k=self.gaussian_k)

    def random_gains(self, rel_times_s, nant: int, feeds: int):
        """(time, ant, 1[, 2, 2]) random gains at ``rel_times_s`` (a flat bandpass: one
        channel, broadcast by the caller); ``feeds`` 1 (scalar) or 2 (independent per feed)."""
        from uvlab.gpu.predict.gains import random_gains

        return random_gains(
            rel_times_s, nant, 1, amp_rms=self.gain_amp_rms,
            phase_rms_rad=math.radians(self.gain_phase_rms_deg),
            corr_time_s=self.gain_corr_time_s, seed=self.gain_seed, feeds=feeds,
        )  # fmt: skip


def check_beam_feeds(cube, feeds: str) -> None:
    """Refuse a Jones cube of the other feed basis than the predict's ``feeds``.

    A linear-feed beam (xx, xy, yx, yy) cannot predict circular correlations nor the
    reverse (no basis change is made); "scalar" (Stokes I) takes either
    (:func:`uvlab.app.observing.predict_obs.predict_integrations`). One line naming the pattern.
    """
    if cube is None or not cube.jones or feeds in ("scalar", cube.feeds):
        return
    from uvlab.app.instrument.beam_cube import BeamCubeError
    from uvlab.app.instrument.beam_pattern import CORRELATIONS

    raise BeamCubeError(
        f"{cube.source}: a beam of {cube.feeds} feeds ({', '.join(CORRELATIONS[cube.feeds])}) "
        f"cannot predict {feeds} feeds; give a {feeds}-feed beam or predict {cube.feeds} feeds"
    )


def check_feed_rotation(cube, feeds: str) -> None:
    """Refuse feed rotation where there are no feeds to turn: a Stokes-I predict."""
    if feeds not in ("linear", "circular"):
        raise ValueError("--feed-rotation needs a polarised predict (linear or circular feeds)")


def turned_beam(e, p):
    """``E·P``: a 2×2 beam pattern (time, ant, chan, src, 2, 2), sampled in the feeds'
    frame, after the feed rotation P (time, ant, 2, 2) that takes the sky's frame to it —
    the antenna's ``J = G·E·P``, so P joins the beam, not the gains."""
    return np.matmul(e, np.asarray(p)[:, :, None, None])


def p_in_beam(options: JonesOptions, cube) -> bool:
    """Whether the feed rotation P joins the beam (:func:`turned_beam`): with
    ``options.feed_rotation`` and a 2×2 beam pattern ``cube``; else it joins the gains."""
    return options.feed_rotation and cube is not None and cube.jones


def _file_stamps(beam: str) -> tuple:
    """(name, mtime, size) of each file a cube or pattern names that is there: a beam read
    again only when one of its files changed."""
    from uvlab.app.instrument.beam_pattern import CORRELATIONS, is_pattern, pattern_filenames

    if is_pattern(beam):
        names = [n for feeds in CORRELATIONS for n in pattern_filenames(beam, feeds).values()]
    else:
        names = [beam]
    stamps = []
    for name in names:
        try:
            st = Path(name).stat()
        except OSError:
            continue
        stamps.append((name, st.st_mtime_ns, st.st_size))
    return tuple(stamps)


@functools.lru_cache(maxsize=4)
def _read_cube(beam: str, stamps: tuple):
    """The beam cube or pattern set ``beam`` (``stamps``: :func:`_file_stamps`, the key).

    The window predicts anew at every change, and each prediction asks for the beam: the
    files are read once while they stay the same.
    """
    from uvlab.app.instrument.beam_cube import BeamCubeError, load_beam_cube
    from uvlab.app.instrument.beam_pattern import is_pattern, load_beam_pattern

    if is_pattern(beam):
        cube = load_beam_pattern(beam)
    elif not stamps:
        raise BeamCubeError(f"{beam}: no such beam cube (or give none, airy, gaussian, cos3)")
    else:
        cube = load_beam_cube(beam)
    cube.data.setflags(write=False)  # shared by every later caller
    return cube


class ObservationJones:
    """Beams and gains of ``obs`` for ``sources``, per chunk of integrations.

    Parameters
    ----------
    obs : Observation
    sources : SourceArrays — the sky about the phase centre
    options : JonesOptions
    feeds : "scalar", "linear" or "circular" — the predict mode; random gains are one
        scalar per antenna in "scalar", independent per feed otherwise; a Jones beam
        must be of ``feeds``' basis (any for "scalar": :func:`check_beam_feeds`)
    receptor_angle_rad : float — the first receptor's angle (FEED::RECEPTOR_ANGLE), added
        to the parallactic angle with ``options.feed_rotation``
    """

    def __init__(
        self, obs: Observation, sources: SourceArrays, options: JonesOptions, feeds: str,
        receptor_angle_rad: float = 0.0,
    ):  # fmt: skip
        self.obs, self.sources, self.options = obs, sources, options
        self._cube = options.load_cube()
        check_beam_feeds(self._cube, feeds)
        self._analytic = None
        self._gains = None
        if options.has_beam and self._cube is None:
            dish = options.dishes(obs.layout.dish_diameter)
            self._analytic = options.analytic_beams(sources.lmn, obs.freq_hz, dish)
        if options.gains_file:
            from uvlab.app.instrument.gains_table import read_gains_table

            table = read_gains_table(options.gains_file, obs.layout.antenna_names)
            if feeds == "scalar" and table.two_feeds:
                from uvlab.app.instrument.gains_table import GainsTableError

                raise GainsTableError(
                    f"{options.gains_file}: per-feed gains need a polarised predict"
                )
            self._gains = table.evaluate(
                obs.times_mjd_s, obs.freq_hz, obs.layout.nant, tolerance_s=obs.int_s / 2
            )
        elif options.has_gains:  # one channel: a flat bandpass, broadcast in gains()
            rel = obs.times_mjd_s - obs.times_mjd_s[0]
            self._gains = options.random_gains(rel, obs.layout.nant, 1 if feeds == "scalar" else 2)
        self._feeds, self._receptor = feeds, float(receptor_angle_rad)
        if options.feed_rotation:
            check_feed_rotation(self._cube, feeds)

    @property
    def beam_feeds(self) -> str | None:
        """The feed basis of a Jones beam ("linear" or "circular"), else None."""
        return None if self._cube is None else self._cube.feeds

    def beam(self, times: slice):
        """(time or 1, ant or 1, chan, src[, 2, 2]) voltage beams, or None without a beam."""
        if self._analytic is not None:
            return self._analytic
        if self._cube is None:
            return None
        chi = antenna_parallactic(self.obs, times)
        e = self._cube.sample(self.sources.lmn, self.obs.freq_hz, chi)
        if self._p_in_beam:
            from uvlab.gpu.predict.feed_rotation import feed_rotation

            e = turned_beam(e, feed_rotation(chi + self._receptor, self._feeds))
        return e

    @property
    def _p_in_beam(self) -> bool:
        return p_in_beam(self.options, self._cube)

    def gains(self, times: slice):
        """(time, ant, chan) or (time, ant, chan, 2, 2) gains of ``times``, or None.

        With feed rotation, ``G·P`` (:func:`~uvlab.gpu.predict.feed_rotation.rotated_gains`):
        every dish alt-az, χ plus the first receptor's angle (``receptor_angle_rad``, what
        the MS's FEED table says); with a 2×2 beam pattern P is in the beam instead.
        """
        nchan = self.obs.freq_hz.size
        g = None if self._gains is None else self._gains[times]
        if g is not None and g.shape[2] != nchan:  # contiguous: CuPy copies it as it is
            g = np.ascontiguousarray(np.broadcast_to(g, (*g.shape[:2], nchan, *g.shape[3:])))
        if not self.options.feed_rotation or self._p_in_beam:
            return g
        from uvlab.gpu.predict.feed_rotation import feed_rotation, rotated_gains

        chi = antenna_parallactic(self.obs, times) + self._receptor
        return rotated_gains(g, feed_rotation(chi, self._feeds), nchan)
