"""Fault injection for the MeasurementSet writers' tests: stop the process at a named step.

``UVLAB_FAULT=<step>:<SIGNAL>`` makes :func:`fault_point` send the process that
signal (SIGKILL when none is named) the first time the named step is reached.
``UVLAB_FAULT=<step>:FILLDISK:<FILE>`` instead fills the disk there: it writes
``FILE`` until the file system has no byte left (another process filling the
disk in the middle of a write).
"""

from __future__ import annotations

import os
import signal

#: The steps at which :func:`fault_point` can stop the process, in the order they run.
STEPS = (
    "journal-begun",
    "journal-written",
    "column-added",
    "rows-written",
    "filled",
    "flushed",
    "renamed-old",
    "renamed-new",
    "switch-flushed",
    "snapshot-switched",
    "committed",
    "old-removed",
    "old-flushed",
    "journal-retired",
    "recovery-restoring",
)


def fault_point(step: str) -> None:
    """Send this process the signal named in ``UVLAB_FAULT`` when ``step`` matches (tests)."""
    spec = os.environ.get("UVLAB_FAULT")
    if not spec:
        return
    name, _, sig = spec.partition(":")
    if name == step:
        os.environ.pop("UVLAB_FAULT", None)  # once
        if sig.startswith("FILLDISK:"):
            _fill_disk(sig.removeprefix("FILLDISK:"))
            return
        os.kill(os.getpid(), getattr(signal, sig or "SIGKILL"))


def _fill_disk(path: str) -> None:
    block = b"\0" * 65536
    with open(path, "ab", buffering=0) as f:
        try:
            while True:
                f.write(block)
        except OSError:
            pass
        try:
            while True:
                f.write(b"\0")
        except OSError:
            pass
