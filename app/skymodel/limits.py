"""Physical caps on what a sky model (and the options that scale it) may hold.

Every reader refuses a value past these with one line naming the file and line
(:class:`~uvlab.app.skymodel.checks.SkyModelError`); the options are usage
errors naming the flag. No real sky comes near them (the brightest radio
sources, solar bursts included, stay below 1e9 Jy); they keep finite but
absurd values (``1e308`` Jy, a ``1e300″`` Gaussian, spectral terms of ``1e300``)
from overflowing into NaN or inf visibilities. What can still overflow within
them is refused before it is written (:mod:`uvlab.app.ms.finite`).
"""

from __future__ import annotations

#: |I|, |Q|, |U|, |V| of a component, and a linear spectral term, Jy.
MAX_FLUX_JY = 1.0e10
#: A Gaussian's FWHM, arcsec (180°: a source wider than half the sky is not a source).
MAX_SIZE_ARCSEC = 180.0 * 3600.0
#: |α| of a power law, and |c_k| of a logarithmic spectral term (real spectra: |α| < 5).
MAX_LOG_TERM = 100.0
#: The side of a FITS image sky's pixel, degrees; a picture's width, arcmin (180°).
MAX_PIXEL_DEG = 10.0
MAX_PICTURE_ARCMIN = 180.0 * 60.0
#: ``--gain-amp-rms``: the RMS of the fractional amplitude error (10: 1000 %).
MAX_GAIN_AMP_RMS = 10.0
#: ``--noise-jy``, ``--sefd-jy``: thermal noise σ or SEFD, Jy.
MAX_NOISE_JY = 1.0e10
