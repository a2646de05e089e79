"""A terminal progress bar for the headless commands.

:func:`progress_bar` returns a context manager whose value is a callback
``update(fraction, stage="")``, the signature the engines take. It draws with
tqdm when it is importable, else with a small bar of its own, on stderr; when
stdout is not a terminal (a pipe, a file, a test) it draws nothing.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO


def _is_tty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class _SimpleBar:
    """A one-line ``desc [#####-----] 42% stage`` bar, redrawn at most 10 times a second."""

    def __init__(self, desc: str, stream: TextIO, width: int = 30):
        self.desc, self.stream, self.width = desc, stream, width
        self._last = 0.0

    def update(self, fraction: float, stage: str = "") -> None:
        now = time.monotonic()
        if fraction < 1.0 and now - self._last < 0.1:
            return
        self._last = now
        done = round(self.width * fraction)
        bar = "#" * done + "-" * (self.width - done)
        self.stream.write(f"\r{self.desc} [{bar}] {100 * fraction:3.0f}% {stage:<20}")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


class _TqdmBar:
    def __init__(self, desc: str, stream: TextIO):
        from tqdm import tqdm

        self._bar = tqdm(
            total=1000,
            desc=desc,
            file=stream,
            leave=True,
            bar_format="{desc} {bar} {percentage:3.0f}% {postfix} [{elapsed}]",
        )
        self._stage = ""

    def update(self, fraction: float, stage: str = "") -> None:
        target = round(1000 * min(max(fraction, 0.0), 1.0))
        if stage != self._stage:
            self._stage = stage
            self._bar.set_postfix_str(stage, refresh=False)
        if target > self._bar.n:
            self._bar.update(target - self._bar.n)

    def close(self) -> None:
        self._bar.close()


def _noop(fraction: float, stage: str = "") -> None:
    return None


@contextmanager
def progress_bar(
    desc: str, *, enabled: bool | None = None, stream: TextIO | None = None
) -> Iterator[Callable[..., None]]:
    """A progress callback ``update(fraction, stage="")`` drawing a bar while in use.

    Parameters
    ----------
    desc : str
        Label in front of the bar.
    enabled : bool, optional
        Force drawing on or off; by default on only when stdout is a terminal.
    stream : file, optional
        Where to draw (default stderr).
    """
    if enabled is None:
        enabled = _is_tty(sys.stdout)
    if not enabled:
        yield _noop
        return
    stream = stream or sys.stderr
    try:
        bar = _TqdmBar(desc, stream)
    except ImportError:
        bar = _SimpleBar(desc, stream)
    try:
        yield bar.update
    finally:
        bar.close()
