"""SIGINT and SIGTERM as a cancel: one exception, deferred inside critical sections.

Every command runs inside :func:`handled` (``uvlab.app.cli.main`` does): there
SIGINT (Ctrl-C) and SIGTERM (``timeout``, systemd, Slurm, ``kill``) raise
:class:`Interrupted` in the main thread, so ``finally`` blocks and rollbacks run
exactly as for Ctrl-C, and the command exits with ``128 + signal`` (130 or 143).

A block that must not be cut in two (a rollback, the switch-over of a commit)
runs inside :func:`critical`: a signal that arrives there is remembered and
raised when the block ends. Outside the main thread (the GUI's workers) signals
cannot be handled, and :func:`critical` does nothing.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

#: The signals treated as a request to cancel.
CANCEL_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """The process was asked to stop by a signal (``signum``).

    A write that the signal stopped says what became of it in ``outcome``
    (e.g. "the write of DATA was rolled back, the MeasurementSet is as it
    was"); ``completed`` is true when the signal came after the write's commit
    point and the write was completed (the command then exits 0).
    """

    def __init__(self, signum: int = signal.SIGINT):
        self.signum = int(signum)
        self.outcome: str | None = None
        self.completed = False
        super().__init__(signal_name(self.signum))

    @property
    def exit_code(self) -> int:
        """The shell's convention: 128 + the signal number."""
        return 128 + self.signum


def signal_name(signum: int) -> str:
    """``2`` → ``"SIGINT"``."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def exit_code(exc: BaseException) -> int:
    """130 for Ctrl-C (a plain KeyboardInterrupt), else the signal's 128 + n."""
    return exc.exit_code if isinstance(exc, Interrupted) else 128 + signal.SIGINT


def interrupt_report(exc: BaseException, command: str) -> tuple[int, str]:
    """(exit code, one line for stderr) for a command stopped by ``exc``.

    - the signal came after a write's commit point (``exc.completed``): exit 0,
      "uvlab predict: SIGTERM arrived after the commit point: the write of DATA
      was completed";
    - a write was rolled back (``exc.outcome``): 130 / 143, "uvlab predict:
      interrupted (SIGTERM); the write of DATA was rolled back, the
      MeasurementSet is as it was";
    - otherwise: 130 / 143, "uvlab CMD: interrupted (SIGTERM); nothing
      half-written was left".
    """
    code = exit_code(exc)
    name = signal_name(code - 128)
    outcome = getattr(exc, "outcome", None)
    if getattr(exc, "completed", False):
        return 0, f"{command}: {name} arrived after the commit point: {outcome}"
    return code, f"{command}: interrupted ({name}); {outcome or 'nothing half-written was left'}"


_state = threading.local()


def _raise(signum, frame) -> None:
    if getattr(_state, "depth", 0):
        _state.pending = signum
        return
    raise Interrupted(signum)


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """SIGINT and SIGTERM raise :class:`Interrupted` inside the block; old handlers after."""
    if not _in_main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in CANCEL_SIGNALS}
    for sig in CANCEL_SIGNALS:
        signal.signal(sig, _raise)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


@contextlib.contextmanager
def critical() -> Iterator[None]:
    """Hold SIGINT and SIGTERM until the block ends, then raise :class:`Interrupted`.

    Nested blocks raise once, when the outermost ends. If the block itself
    raises, that exception wins and a held signal is raised by the next
    :func:`critical` block's end or, failing that, is dropped only when the
    process had no handler installed.
    """
    if not _in_main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in CANCEL_SIGNALS}
    ours = all(h is _raise for h in previous.values())
    if not ours:  # not installed (library use): defer with a temporary handler
        for s in CANCEL_SIGNALS:
            signal.signal(s, _raise)
    depth = getattr(_state, "depth", 0)
    _state.depth = depth + 1
    try:
        yield
    finally:
        _state.depth = depth
        if not ours:
            for s, h in previous.items():
                signal.signal(s, h)
    if depth == 0:
        pending = getattr(_state, "pending", None)
        _state.pending = None
        if pending is not None:
            if ours:
                raise Interrupted(pending)
            # Restore what would have happened without us: the old handler.
            old = previous[pending]
            if callable(old):
                old(pending, None)
            elif old == signal.SIG_DFL:
                signal.raise_signal(pending)
