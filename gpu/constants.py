"""Physical constants used by the engine (SI units)."""

#: Speed of light in vacuum, m/s.
C_LIGHT = 299_792_458.0

#: Earth's rotation rate relative to the stars (sidereal), rad/s.
OMEGA_EARTH = 7.292_115_9e-5
