"""Progress of the headless commands' stages: one helper for every stage of every command.

:func:`progress_bar` is a context manager around one stage (read, weights, grid, FFT,
CLEAN, write, ...) whose value is a callback ``update(fraction, stage="")``, the
signature the engines take. What it shows depends on where stderr goes
(:mod:`uvlab.app.runtime.logs` sets the options):

- stderr a terminal: a tqdm bar with the rate and the time left, on stderr;
- stderr not a terminal (a pipe, a file, a batch job): a plain ``INFO`` line
  ``uvlab CMD: read 40% (12 s, about 18 s left)`` every :data:`PLAIN_SECONDS` seconds
  (``UVLAB_PROGRESS_SECONDS`` sets another period; 0: every update), no carriage returns;
- ``--quiet``: nothing.

Whatever is shown, each stage logs its start and its time at ``DEBUG`` (``--verbose``,
``--log-file``). tqdm was chosen over rich because it writes to any stream with no
console object to share with logging, and degrades to nothing on a non-terminal.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)

#: Seconds between plain progress lines when stderr is not a terminal.
PLAIN_SECONDS = 5.0

#: Seconds between redraws of a terminal's bar at least.
BAR_SECONDS = 0.1


def _is_tty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _plain_seconds() -> float:
    text = os.environ.get("UVLAB_PROGRESS_SECONDS", "")
    try:
        return max(0.0, float(text)) if text else PLAIN_SECONDS
    except ValueError:
        return PLAIN_SECONDS


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
    minutes, s = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {s:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


class _PlainLines:
    """``desc 40% (12 s, about 18 s left)`` as a log line every ``period`` seconds."""

    def __init__(self, desc: str, period: float):
        self.desc, self.period = desc, period
        self._t0 = self._last = time.monotonic()

    def update(self, fraction: float, stage: str = "") -> None:
        now = time.monotonic()
        if now - self._last < self.period or fraction >= 1.0:
            return
        self._last = now
        elapsed = now - self._t0
        left = elapsed * (1 - fraction) / fraction if fraction > 0 else math.nan
        when = f"{_duration(elapsed)}" + (
            f", about {_duration(left)} left" if math.isfinite(left) else ""
        )
        log.info("%s %3.0f%% (%s)%s", self.desc, 100 * fraction, when, f" {stage}" if stage else "")

    def close(self) -> None:
        return None


class _TqdmBar:
    """A tqdm bar over ``total`` units (percent when there is no natural unit)."""

    def __init__(self, desc: str, total: float | None, unit: str):
        from tqdm import tqdm

        self.total = float(total) if total else 100.0
        self._bar = tqdm(
            total=self.total, desc=desc, unit=unit if total else "%", file=sys.stderr,
            leave=False, dynamic_ncols=True, unit_scale=bool(total), mininterval=BAR_SECONDS,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}, "
            "{rate_fmt}]{postfix}",
        )  # fmt: skip
        self._stage = ""

    def update(self, fraction: float, stage: str = "") -> None:
        target = self.total * min(max(float(fraction), 0.0), 1.0)
        if stage != self._stage:
            self._stage = stage
            self._bar.set_postfix_str(stage, refresh=False)
        if target > self._bar.n:
            self._bar.update(target - self._bar.n)

    def close(self) -> None:
        self._bar.close()


def _noop(fraction: float, stage: str = "") -> None:
    return None


def _display(desc: str, total: float | None, unit: str):
    from uvlab.app.runtime.logs import quiet

    if quiet():
        return None
    if _is_tty(sys.stderr):
        try:
            return _TqdmBar(desc, total, unit)
        except ImportError:  # tqdm is a dependency; a broken install still runs
            pass
    return _PlainLines(desc, _plain_seconds())


@contextmanager
def progress_bar(
    desc: str, *, total: float | None = None, unit: str = "it"
) -> Iterator[Callable[..., None]]:
    """Progress of one stage: a callback ``update(fraction, stage="")`` while in use.

    Parameters
    ----------
    desc : str
        The stage ("read", "grid + FFT", "CLEAN", "write", ...), in front of the bar
        and in the log lines.
    total : float, optional
        The stage's size in ``unit`` (CLEAN's ``niter``, rows): the bar's rate is in
        ``unit``/s; by default the rate is in percent per second.
    unit : str
    """
    log.debug("%s: started", desc)
    t0 = time.perf_counter()
    display = _display(desc, total, unit)
    try:
        yield _noop if display is None else display.update
    finally:
        if display is not None:
            display.close()
    log.debug("%s: done in %.3f s", desc, time.perf_counter() - t0)
