"""uvlab.gpu: the compute engine.

Pure functions on arrays, with a NumPy backend and a CuPy backend behind one
API. This package imports with NumPy alone; CuPy is loaded lazily when a GPU
is asked for. It never imports Qt, astropy or casacore.
"""

from uvlab.gpu.backend import device_info, get_xp, resolve_device, to_numpy
from uvlab.gpu.constants import C_LIGHT, OMEGA_EARTH
from uvlab.gpu.geometry import baseline_uvw, lmn_to_radec, radec_to_lmn, uvw_rate
from uvlab.gpu.sources import SourceArrays

__all__ = [
    "C_LIGHT",
    "OMEGA_EARTH",
    "SourceArrays",
    "baseline_uvw",
    "device_info",
    "get_xp",
    "lmn_to_radec",
    "radec_to_lmn",
    "resolve_device",
    "to_numpy",
    "uvw_rate",
]
