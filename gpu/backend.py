"""Backend selection: NumPy on the CPU, CuPy on an NVIDIA GPU.

``resolve_device("auto")`` picks the GPU when CuPy imports and a CUDA device
answers, the CPU otherwise. The environment variable ``UVLAB_DEVICE``
(``cpu`` or ``gpu``) overrides ``"auto"``.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

import numpy as np

DEVICES = ("auto", "cpu", "gpu")


class DeviceError(RuntimeError):
    """The requested compute device cannot be used."""


@dataclass(frozen=True)
class DeviceInfo:
    """What compute device is usable, and why not when it is not."""

    gpu_available: bool
    name: str
    total_bytes: int = 0
    reason: str = ""

    def describe(self) -> str:
        if self.gpu_available:
            return f"GPU: {self.name} ({self.total_bytes / 2**30:.0f} GiB)"
        return f"CPU (no GPU: {self.reason})"


@functools.lru_cache(maxsize=1)
def device_info() -> DeviceInfo:
    """Probe once for a usable CUDA device through CuPy."""
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install
        return DeviceInfo(False, "cpu", reason=f"CuPy is not importable ({exc.__class__.__name__})")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
        if count < 1:
            return DeviceInfo(False, "cpu", reason="no CUDA device found")
        props = cupy.cuda.runtime.getDeviceProperties(0)
        name = props["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        return DeviceInfo(True, name, int(props["totalGlobalMem"]))
    except Exception as exc:
        return DeviceInfo(False, "cpu", reason=f"CUDA driver/runtime unusable: {exc}")


def resolve_device(device: str = "auto") -> str:
    """Return ``"cpu"`` or ``"gpu"`` for a requested device.

    Parameters
    ----------
    device : {"auto", "cpu", "gpu"}
        ``"auto"`` honours ``UVLAB_DEVICE`` and then picks the GPU if usable.

    Raises
    ------
    DeviceError
        When ``"gpu"`` is asked for and no usable CUDA device exists.
    """
    device = (device or "auto").lower()
    if device == "auto":
        env = os.environ.get("UVLAB_DEVICE", "").strip().lower()
        if env in ("cpu", "gpu"):
            device = env
        elif env:
            raise DeviceError(f"UVLAB_DEVICE={env!r} is not one of cpu, gpu")
    if device not in DEVICES:
        raise DeviceError(f"device {device!r} is not one of {', '.join(DEVICES)}")
    if device == "cpu":
        return "cpu"
    info = device_info()
    if device == "gpu" and not info.gpu_available:
        raise DeviceError(f"a GPU was requested but none is usable: {info.reason}")
    return "gpu" if info.gpu_available else "cpu"


def get_xp(obj=None, device: str | None = None):
    """Return the array module (numpy or cupy) for an array or a device name."""
    if device is not None:
        if resolve_device(device) == "gpu":
            import cupy

            return cupy
        return np
    if obj is not None and type(obj).__module__.startswith("cupy"):
        import cupy

        return cupy
    return np


def to_numpy(a):
    """Copy a CuPy array to the host; NumPy arrays pass through."""
    if type(a).__module__.startswith("cupy"):
        return a.get()
    return np.asarray(a)


def free_device_bytes() -> int:
    """Free memory on the current CUDA device, counting CuPy's pool as free."""
    import cupy

    free, _total = cupy.cuda.runtime.memGetInfo()
    pool = cupy.get_default_memory_pool()
    return int(free + pool.free_bytes())
