"""Logging for the ``uvlab`` command line: the global options and their one configuration.

Library code logs through ``logging.getLogger(__name__)`` (every module is under the
``uvlab`` logger); :func:`configure`, called once per command by
:func:`uvlab.app.cli.main`, decides where those lines go:

- **stderr**: warnings and errors always; ``INFO`` lines (what runs where, plain progress
  lines when stderr is not a terminal) unless ``--quiet``; ``DEBUG`` lines (each stage's
  start and time, each CLEAN cycle) with ``--verbose``. Each reads ``uvlab CMD: ...``,
  ``uvlab CMD: warning: ...`` or ``uvlab CMD: debug: ...``.
- **--log-file PATH**: everything at ``DEBUG``, timestamped, appended.

stdout is left to the commands' results (the summary lines, ``wrote FILE``, ``info``'s
text or JSON), whatever the options; :mod:`uvlab.app.runtime.progress` draws bars on
stderr. Without :func:`configure` (the window, scripts importing uvlab) nothing changes:
Python's defaults apply.
"""

from __future__ import annotations

import argparse
import logging
import sys

#: The logger every uvlab module's logger descends from.
ROOT = "uvlab"

#: The timestamped format of --log-file lines.
FILE_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


def add_options(parser: argparse.ArgumentParser, *, suppress: bool = False) -> None:
    """``--quiet``, ``--verbose`` and ``--log-file`` on ``parser``.

    ``suppress``: no defaults (for the subcommands' copies, so that ``uvlab --quiet
    image ...`` and ``uvlab image ... --quiet`` both work and neither undoes the other).
    """
    none = {"default": argparse.SUPPRESS} if suppress else {}
    g = parser.add_argument_group("output and logs (every command)")
    g.add_argument(
        "-q", "--quiet", action="store_true", **none,
        help="only warnings, errors and the results on stdout: no progress, no notes",
    )  # fmt: skip
    g.add_argument(
        "-v", "--verbose", action="store_true", **none,
        help="also debug detail on stderr: each stage's start and time, each CLEAN cycle",
    )  # fmt: skip
    g.add_argument(
        "--log-file", metavar="PATH", **none,
        help="append everything (debug level, timestamped) to PATH",
    )  # fmt: skip


class _StderrHandler(logging.StreamHandler):
    """A handler on whatever ``sys.stderr`` is when a line is written (tests swap it)."""

    def __init__(self):
        super().__init__(sys.stderr)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:  # StreamHandler.__init__ sets it; always sys.stderr
        pass

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if self.stream.isatty():  # start a progress bar's line afresh
                self.stream.write("\r\x1b[K")
        except (AttributeError, ValueError):
            pass
        super().emit(record)


class _CommandFormatter(logging.Formatter):
    """``uvlab CMD: message``, ``uvlab CMD: warning: message``, ... as one line."""

    def __init__(self, prefix: str):
        super().__init__()
        self.prefix = prefix

    def format(self, record: logging.LogRecord) -> str:
        text = " ".join(record.getMessage().split())
        if record.levelno >= logging.ERROR:
            return f"{self.prefix}: error: {text}"
        if record.levelno >= logging.WARNING:
            return f"{self.prefix}: warning: {text}"
        if record.levelno < logging.INFO:
            return f"{self.prefix}: debug: {text}"
        return f"{self.prefix}: {text}"


def configure(
    command: str | None = None,
    *,
    quiet: bool = False,
    verbose: bool = False,
    log_file: str | None = None,
    argv: list[str] | None = None,
) -> None:
    """Send the ``uvlab`` logger's lines to stderr and ``log_file`` as the options ask.

    Replaces what an earlier call set. Raises OSError when ``log_file`` cannot be
    opened for appending (the caller reports it as a usage error naming --log-file).
    ``argv``: the command line, the file's first line of the run (default ``sys.argv``).
    """
    shutdown()
    logger = logging.getLogger(ROOT)
    handlers: list[logging.Handler] = []
    if log_file:
        handler = logging.FileHandler(log_file, mode="a", encoding="utf-8")
        handler.setFormatter(logging.Formatter(FILE_FORMAT))
        handler.setLevel(logging.DEBUG)
        handlers.append(handler)
    stderr = _StderrHandler()
    stderr.setFormatter(_CommandFormatter(f"uvlab {command}" if command else "uvlab"))
    stderr.setLevel(logging.WARNING if quiet else logging.DEBUG if verbose else logging.INFO)
    handlers.append(stderr)
    for handler in handlers:
        handler._uvlab = True  # type: ignore[attr-defined]  (ours, for shutdown)
        logger.addHandler(handler)
    logger.setLevel(min(h.level for h in handlers))
    logger.propagate = False
    words = sys.argv[1:] if argv is None else argv
    logging.getLogger(__name__).debug("command line: uvlab %s", " ".join(map(str, words)))


def shutdown() -> None:
    """Remove and close the handlers :func:`configure` added; the ``uvlab`` logger as before."""
    logger = logging.getLogger(ROOT)
    for handler in [h for h in logger.handlers if getattr(h, "_uvlab", False)]:
        logger.removeHandler(handler)
        handler.close()
    logger.setLevel(logging.NOTSET)
    logger.propagate = True


def to_file(line: str, level: int = logging.INFO) -> None:
    """``line`` into --log-file only (the CLI's final line, already printed on stderr)."""
    logger = logging.getLogger(__name__)
    record = logger.makeRecord(logger.name, level, __file__, 0, "%s", (line,), None)
    for handler in logging.getLogger(ROOT).handlers:
        if isinstance(handler, logging.FileHandler) and getattr(handler, "_uvlab", False):
            handler.handle(record)


def configured() -> bool:
    """True while :func:`configure`'s handlers are in place (a command of the CLI runs)."""
    return any(getattr(h, "_uvlab", False) for h in logging.getLogger(ROOT).handlers)


def quiet() -> bool:
    """True when --quiet is in force: progress and notes are not shown."""
    return _stderr_level() > logging.INFO


def _stderr_level() -> int:
    for handler in logging.getLogger(ROOT).handlers:
        if isinstance(handler, _StderrHandler):
            return handler.level
    return logging.INFO
