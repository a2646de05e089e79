"""The Jones terms of MeasurementSet rows (``uvlab predict``): :class:`RowJones`.

What :class:`~uvlab.app.instrument.jones.ObservationJones` is to a simulated observation,
chunk by chunk of rows of an MS: beams at the sources for :func:`uvlab.gpu.predict.predict_rows`
(a FITS cube or pattern sampled at each antenna's parallactic angle of each TIME,
:mod:`uvlab.app.instrument.parallactic`), and each row's antenna gains (random, over
every distinct TIME of the MS, or from a table), with the feed rotation P in the beam
(a 2×2 pattern) or in the gains.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from uvlab.app.instrument.jones import p_in_beam, turned_beam
from uvlab.app.instrument.parallactic import parallactic_angles

if TYPE_CHECKING:
    from uvlab.app.instrument.jones import JonesOptions
    from uvlab.gpu.sources import SourceArrays


class RowJones:
    """Beams and gains of MeasurementSet rows (``uvlab predict``), chunk by chunk.

    Parameters
    ----------
    options : JonesOptions
    antenna_names : (nant,) str — the ANTENNA table's NAME
    dish_m : (nant,) float — its DISH_DIAMETER (replaced by ``options.dish_diameter_m``)
    ecef : (nant, 3) float — its POSITION (ITRF, metres), for the parallactic angles
    times_mjd_s : (ntime,) — every distinct TIME of the MS, for random gains
    feeds : FeedGeometry, optional — the mounts and receptor angles
        (:mod:`uvlab.app.ms.feeds`); needed with ``options.feed_rotation``
    """

    def __init__(
        self, options: JonesOptions, antenna_names, dish_m, ecef, times_mjd_s, feeds=None
    ):  # fmt: skip
        from uvlab.app.observing.sites import ecef_to_geodetic

        self.options = options
        self.names = tuple(antenna_names)
        dish = options.dishes(dish_m)
        if options.has_beam and not np.all(np.isfinite(dish) & (dish > 0)):
            raise ValueError(
                "the ANTENNA table's DISH_DIAMETER is missing or ≤ 0; give --dish-diameter-m"
            )
        self.dish = dish
        lon, lat, _ = ecef_to_geodetic(np.asarray(ecef, dtype=np.float64))
        self.lon, self.lat = np.atleast_1d(lon), np.atleast_1d(lat)
        self.cube = options.load_cube()
        if options.feed_rotation and feeds is None:
            raise ValueError("feed rotation needs the antennas' mounts and receptor angles")
        self.feeds = feeds
        self.times = np.unique(np.asarray(times_mjd_s, dtype=np.float64))
        self.table = None
        self.random = None
        if options.gains_file:
            from uvlab.app.instrument.gains_table import read_gains_table

            self.table = read_gains_table(options.gains_file, self.names)
        elif options.has_gains:
            self.random = options.random_gains(self.times - self.times[0], len(self.names), 2)

    def row_beam(self, sources: SourceArrays, freq_hz, time_mjd_s, a1, a2, ra0, dec0,
                 rotation=None):  # fmt: skip
        """``(E, t, p, q)`` for :func:`uvlab.gpu.predict.predict_rows`, or None.

        E is (time, ant, chan, src, 2, 2) for a Jones cube (``self.cube.jones``); with feed
        rotation (``rotation`` as :meth:`row_gains` takes it) it is ``E·P``
        (:func:`~uvlab.app.instrument.jones.turned_beam`), and the gains stay unturned.
        """
        if not self.options.has_beam:
            return None
        a1, a2 = np.asarray(a1), np.asarray(a2)
        if self.cube is None:
            e = self.options.analytic_beams(sources.lmn, freq_hz, self.dish)
            zero = np.zeros(len(a1), dtype=np.int64)
            if e.shape[1] == 1:
                return e, zero, zero, zero
            return e, zero, a1, a2
        times, index = np.unique(np.asarray(time_mjd_s, dtype=np.float64), return_inverse=True)
        chi = parallactic_angles(times, ra0, dec0, self.lon, self.lat)
        e = self.cube.sample(sources.lmn, freq_hz, chi)
        if self._p_in_beam:
            from uvlab.gpu.predict.feed_rotation import feed_rotation

            _, _, feeds, spw = rotation
            e = turned_beam(e, feed_rotation(self.feeds.angles(chi, spw), feeds))
        return e, index, a1, a2

    @property
    def _p_in_beam(self) -> bool:
        return p_in_beam(self.options, self.cube)

    def row_gains(self, freq_hz, time_mjd_s, a1, a2, interval_s: float = 0.0, *, rotation=None):
        """(g_p, g_q) per row: (row, chan, 2, 2) or (row, chan) complex, or None.

        With feed rotation, ``rotation`` is (ra0_rad, dec0_rad, feeds, spw) of the rows
        and the gains are ``G·P`` (:func:`~uvlab.gpu.predict.feed_rotation.rotated_gains`):
        P by the parallactic angle where the antenna's mount turns its feeds, plus its
        receptor angle (``self.feeds``).
        """
        turn = self.options.feed_rotation and not self._p_in_beam
        if self.table is None and self.random is None and not turn:
            return None
        t = np.asarray(time_mjd_s, dtype=np.float64)
        times, index = np.unique(t, return_inverse=True)
        g = None
        if self.table is not None:
            g = self.table.evaluate(times, freq_hz, len(self.names), tolerance_s=interval_s / 2)
        elif self.random is not None:
            g = self.random[np.searchsorted(self.times, times)]
            g = np.broadcast_to(g, (len(times), g.shape[1], len(freq_hz), 2, 2))
        if turn:
            from uvlab.gpu.predict.feed_rotation import feed_rotation, rotated_gains

            ra0, dec0, feeds, spw = rotation
            chi = parallactic_angles(times, ra0, dec0, self.lon, self.lat)
            p = feed_rotation(self.feeds.angles(chi, spw), feeds)
            g = rotated_gains(g, p, len(freq_hz))
        return g[index, np.asarray(a1)], g[index, np.asarray(a2)]
