"""Observing: where and when an array looks, and what it sees of a sky (below the instrument).

- arrays: :mod:`~uvlab.app.observing.layouts` (built-in and user layouts),
  :mod:`~uvlab.app.observing.layout_files` (their file formats),
  :mod:`~uvlab.app.observing.array_layout` (:class:`ArrayLayout`),
  :mod:`~uvlab.app.observing.sites` (WGS84 and the observatories);
- time and the sky's place: :mod:`~uvlab.app.observing.eop` and
  :mod:`~uvlab.app.observing.iers_cache` (Earth orientation),
  :mod:`~uvlab.app.observing.apparent` (apparent place, sidereal time),
  :mod:`~uvlab.app.observing.elevation` (what a site sees above its limit);
- :mod:`~uvlab.app.observing.observation` (synthetic observations: times, uvw, flags) and
  :mod:`~uvlab.app.observing.predict_obs` (their visibilities, the one predict).
"""
