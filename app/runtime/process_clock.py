"""Seconds since this process started: the window's "first image after N s".

On Linux from ``/proc`` (the kernel's start time of the process, so the
interpreter's own start and every import count); elsewhere from the first
import of this module, which :mod:`uvlab.app.cli` imports first.
"""

from __future__ import annotations

import os
import time

_IMPORTED = time.monotonic()


def process_age_s() -> float:
    """Seconds since the process started (10 ms resolution on Linux)."""
    try:
        with open("/proc/self/stat") as f:
            after_name = f.read().rsplit(")", 1)[1].split()  # the name may hold spaces
        start_ticks = int(after_name[19])  # field 22 of proc(5), counted from field 3
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return time.monotonic() - _IMPORTED
