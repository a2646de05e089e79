"""Whether a CUDA device is there (through CuPy): the ``gpu`` marker skips without one."""

from __future__ import annotations

from uvlab.gpu.backend import device_info

HAS_GPU = device_info().gpu_available
