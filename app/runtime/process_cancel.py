"""SIGINT and SIGTERM for the whole ``uvlab`` process, not only while a command runs.

:func:`uvlab.app.cli.main` enters :func:`watch` first, before any heavy import,
and :func:`uvlab.app.runtime.signals.handled` inside it; together they make sure that
no cancel signal is lost between the first line of ``main`` and its return:

- every SIGINT / SIGTERM that reaches Python is recorded at delivery (CPython's
  wakeup file descriptor, written by its C-level handler), even one whose
  :class:`~uvlab.app.runtime.signals.Interrupted` was swallowed on the way (raised in a
  ``__del__`` or a library callback, where Python only prints "Exception
  ignored"), or one that was delivered while the handlers were being put back;
- at the end the two signals are blocked before the handlers are restored, and
  one that arrives in that instant waits at the kernel and is collected here
  instead of killing the process (SIGTERM) or raising a ``KeyboardInterrupt``
  with a traceback after ``main`` returned (SIGINT) (a signal that another
  thread takes meanwhile runs Python's C handler there, still ours until the
  handlers are back, and is recorded as above); for the process's own
  ``main`` the handlers are then the system's defaults, so a signal in the
  last instant before the process exits still gives 130 / 143, silently.

Before ``main`` runs, the interpreter's own start and the import of
:mod:`uvlab.app.cli` (a few hundredths of a second) keep Python's defaults.

``main`` turns what :meth:`Watch.received` reports into one line and exit
code 130 / 143. Where signals cannot be blocked or watched (Windows, a thread
other than the main one), this does nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator

from uvlab.app.runtime.signals import CANCEL_SIGNALS


class Watch:
    """What :func:`watch` saw: the cancel signals delivered, in order."""

    def __init__(self) -> None:
        self._read_fd: int | None = None
        self._blocked = False
        self._old_mask = None
        self.signals: list[int] = []

    def hold(self) -> None:
        """Block SIGINT and SIGTERM: from now on one waits at the kernel (collected at the end)."""
        if self._read_fd is None or not hasattr(signal, "pthread_sigmask") or self._blocked:
            return
        self._old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, CANCEL_SIGNALS)
        self._blocked = True

    def received(self) -> list[int]:
        """The cancel signals delivered so far (also those held since :meth:`hold`), consumed."""
        self._drain()
        if self._blocked and hasattr(signal, "sigpending"):
            for sig in CANCEL_SIGNALS:
                if sig in signal.sigpending():
                    with contextlib.suppress(OSError):
                        signal.sigtimedwait([sig], 0)
                    self.signals.append(int(sig))
        return list(self.signals)

    def acknowledge(self) -> None:
        """Forget the signals received so far: the command has reported them itself."""
        self.received()
        self.signals.clear()

    def _drain(self) -> None:
        if self._read_fd is None:
            return
        with contextlib.suppress(BlockingIOError, InterruptedError):
            while data := os.read(self._read_fd, 512):
                self.signals += [b for b in data if b in CANCEL_SIGNALS]


def _quiet_interrupts(previous):
    """An unraisable hook that drops a swallowed ``KeyboardInterrupt`` (the watch has it)."""

    def hook(unraisable) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            return
        previous(unraisable)

    return hook


@contextlib.contextmanager
def watch(*, last: bool = False) -> Iterator[Watch]:
    """Record cancel signals for the block; at its end restore the handlers, mask and hooks.

    With ``last`` (the process ends after the block: ``uvlab`` itself) the
    handlers left are the system's defaults, so that a signal in the last
    instant ends the process as killed by it (exit 130 / 143), without Python's
    ``KeyboardInterrupt`` traceback.
    """
    w = Watch()
    if threading.current_thread() is not threading.main_thread() or sys.platform == "win32":
        yield w
        return
    handlers = {s: signal.SIG_DFL if last else signal.getsignal(s) for s in CANCEL_SIGNALS}
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    os.set_blocking(write_fd, False)
    old_fd = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    old_hook = sys.unraisablehook
    sys.unraisablehook = _quiet_interrupts(old_hook)
    w._read_fd = read_fd
    try:
        yield w
    finally:
        w.hold()
        for s, h in handlers.items():  # as found, whatever happened inside
            if h is not None:
                with contextlib.suppress(Exception, KeyboardInterrupt):  # a last tripped one:
                    # already recorded by the wakeup fd
                    signal.signal(s, h)
        w.received()  # collects what the block did not
        signal.set_wakeup_fd(old_fd)
        sys.unraisablehook = old_hook
        w._read_fd = None
        os.close(read_fd)
        os.close(write_fd)
        if w._blocked:
            signal.pthread_sigmask(signal.SIG_SETMASK, w._old_mask)
