"""The ``uvlab`` command line: one subcommand per module in ``uvlab.app.commands``.

Exit codes: 0 on success, 2 on a usage error, 1 on a data error, 130 / 143
when stopped by SIGINT (Ctrl-C) / SIGTERM (:mod:`uvlab.app.runtime.signals`: the
command's rollback runs first). Errors print one clear line on stderr;
``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from uvlab.app._version import __version__
from uvlab.app.runtime import process_clock  # noqa: F401  (its clock starts here where /proc is absent)

#: Subcommand modules, each with ``register(subparsers)`` that sets ``func``.
COMMANDS = (
    "gui",
    "demo",
    "simulate",
    "predict",
    "repair",
    "image",
    "compare",
    "info",
    "arrays",
    "sky",
    "bench",
)


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line (exit 2), like every other error."""

    def error(self, message: str):
        text = " ".join(str(message).split())
        self.exit(2, f"{self.prog}: error: {text} (see '{self.prog} --help')\n")


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``uvlab`` parser: every subcommand, or only the one ``argv`` runs.

    With ``argv`` whose first word (after ``--debug``) is a subcommand, only that
    command's module is imported (``uvlab arrays`` needs none of the imaging
    code): parsing ``argv`` gives the same result and the same messages. Without
    one (``uvlab``, ``uvlab --help``, a misspelt command) all are registered.
    """
    parser = OneLineParser(
        prog="uvlab",
        description="uvlab: a desktop lab for radio interferometry.",
    )
    parser.add_argument("--version", action="version", version=f"uvlab {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    from uvlab.app.runtime.logs import add_options

    add_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    for name in _commands_to_register(argv):
        _fault("cli-importing")
        importlib.import_module(f"uvlab.app.commands.{name}").register(sub)
    _add_global_options(sub)
    return parser


def _add_global_options(sub) -> None:
    """The logging options on every subcommand (and theirs), after or before its own."""
    from uvlab.app.runtime.logs import add_options

    for command in dict.fromkeys(sub.choices.values()):  # aliases share a parser
        add_options(command, suppress=True)
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                _add_global_options(action)


#: The global flags that may come before the subcommand (--log-file takes a value).
GLOBAL_FLAGS = ("--debug", "-q", "--quiet", "-v", "--verbose")


def _commands_to_register(argv: list[str] | None) -> tuple[str, ...]:
    """The subcommand ``argv`` starts with (global flags may come first), or all of them."""
    words = [str(w) for w in argv or ()]
    while words[:1] and (words[0] in GLOBAL_FLAGS or words[0].startswith("--log-file")):
        skip = 2 if words[0] == "--log-file" else 1
        del words[:skip]
    return (words[0],) if words and words[0] in COMMANDS else COMMANDS


def main(argv: list[str] | None = None) -> int:
    """Run ``uvlab ARGV``; the exit code (0, 1 data error, 2 usage error, 130 / 143 signal).

    SIGINT and SIGTERM cancel from the first line on, the imports of the commands
    and the parsing included (:mod:`uvlab.app.runtime.process_cancel`): one line and
    130 / 143, never a traceback, and never a signal lost (one that came as the
    command finished is reported, its exit code 130 / 143, its work complete).
    """
    try:
        return _watched_main(argv)
    except KeyboardInterrupt:  # Python's own SIGINT, before the handlers were installed
        print("uvlab: interrupted (SIGINT) before it started; nothing was written", file=sys.stderr)
        return 130


def _watched_main(argv: list[str] | None) -> int:
    import warnings

    from uvlab.app.runtime import signals
    from uvlab.app.runtime.process_cancel import watch

    warnings.formatwarning = one_line_warning  # a warning shown is one line, as errors are

    global _seen
    state = {"phase": "starting", "command": _command_of(argv)}
    code, interrupt = 0, None
    with watch(last=argv is None) as seen:  # argv None: uvlab itself, the process ends after
        _seen = seen
        try:
            with signals.handled():  # SIGINT and SIGTERM cancel: rollbacks run, exit 130 / 143
                try:
                    _fault("cli-start")
                    code = _main(argv, state)
                    state["phase"] = "finished"
                    _fault("cli-finished")
                finally:
                    seen.hold()  # a signal from here on waits at the kernel, for below
        except KeyboardInterrupt as exc:
            interrupt = signals.exit_code(exc) - 128
        except Exception:
            # A library whose import was cut by the signal may raise something else
            # (NumPy: ImportError): still the signal, if one came.
            if state["phase"] != "starting" or not seen.received():
                raise
            interrupt = seen.received()[0]
        finally:
            _seen = None
    received = seen.received()
    if interrupt is None and code == 0 and received:  # delivered, but swallowed on the way
        interrupt = received[0]
    if interrupt is None:
        return code
    name = signals.signal_name(interrupt)
    prog = f"uvlab {state['command']}" if state["command"] else "uvlab"
    outcome = {
        "starting": " before it started; nothing was written",
        "finished": " as it finished; its work is complete",
    }.get(state["phase"], "")
    print(f"{prog}: interrupted ({name}){outcome}", file=sys.stderr)
    return 128 + interrupt


def _command_of(argv: list[str] | None) -> str | None:
    """The subcommand named in ``argv`` (for messages before it is parsed), if any."""
    words = sys.argv[1:] if argv is None else argv
    return next((w for w in map(str, words or ()) if w in COMMANDS), None)


def _fault(step: str) -> None:
    """The fault hook of the tests (``UVLAB_FAULT=cli-start:SIGINT``, ...)."""
    import os

    if os.environ.get("UVLAB_FAULT", "").partition(":")[0] == step:
        from uvlab.app.runtime.faults import fault_point

        fault_point(step)


#: The signals watch of the running :func:`main` (:mod:`uvlab.app.runtime.process_cancel`).
_seen = None


def _signal_seen() -> int | None:
    """The first SIGINT / SIGTERM this :func:`main` received, if any."""
    return (_seen.received() or [None])[0] if _seen is not None else None


def _main(argv: list[str] | None, state: dict | None = None) -> int:
    from uvlab.app.runtime.signals import critical

    state = {} if state is None else state
    with critical():  # a signal waits for the imports and the parsing: no half-imported library
        words = sys.argv[1:] if argv is None else [str(a) for a in argv]
        parser = build_parser(words)
        _fault("cli-parsing")
        args = parser.parse_args(argv)
    if args.command is None:
        # A bare ``uvlab`` opens the desktop lab on the default scene; without a
        # screen it runs the headless demo of the same scene instead.
        command = "gui"
        if not _has_display():
            command = "demo"
            print(
                "uvlab: no display found (DISPLAY/WAYLAND_DISPLAY unset): running the "
                "headless demo instead (`uvlab --help` lists the commands).",
                file=sys.stderr,
            )
        argv = [command, "--force"] if command == "demo" else [command]  # its own folder
        args = parser.parse_args(["--debug", *argv] if args.debug else argv)
    state["command"], state["phase"] = args.command, "running"
    code = _configure_logs(args, words)
    if code:
        return code
    code = None
    try:
        code = _run(args)
        return code
    finally:
        from uvlab.app.runtime.logs import shutdown, to_file

        to_file(f"exit code {code}" if code is not None else "stopped by an exception")
        shutdown()


def _configure_logs(args, argv: list[str]) -> int:
    """--quiet / --verbose / --log-file in force (:mod:`uvlab.app.runtime.logs`); 0, or 2."""
    from uvlab.app.runtime.logs import configure

    prog = f"uvlab {args.command}"
    quiet, verbose = getattr(args, "quiet", False), getattr(args, "verbose", False)
    if quiet and verbose:
        print(f"{prog}: error: give --quiet or --verbose, not both", file=sys.stderr)
        return 2
    path = getattr(args, "log_file", None)
    try:
        configure(args.command, quiet=quiet, verbose=verbose, log_file=path, argv=argv)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        print(f"{prog}: error: --log-file {path}: cannot append to it ({reason})",
              file=sys.stderr)  # fmt: skip
        return 2
    return 0


def _run(args) -> int:
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt as exc:
        from uvlab.app.runtime.signals import interrupt_report

        # which of "rolled back" / "completed after the commit point" / nothing written
        code, line = interrupt_report(exc, f"uvlab {args.command}")
        print(line, file=sys.stderr)
        _to_log_file(line)
        if _seen is not None:  # reported here, once: main() must not report it again
            _seen.acknowledge()
        return code
    except BrokenPipeError:
        # The reader went away (e.g. `uvlab arrays | head`): not an error.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        sig = _signal_seen()
        if sig is not None:  # the error is the cancel's doing (e.g. a cut import): say so
            from uvlab.app.runtime.signals import signal_name

            print(
                f"uvlab {args.command}: interrupted ({signal_name(sig)}); "
                "nothing half-written was left",
                file=sys.stderr,
            )
            return 128 + sig
        if args.debug:
            raise
        from uvlab.app.runtime.errors import UsageError

        line = f"uvlab {args.command}: error: {_one_line(exc)}"
        print(line, file=sys.stderr)
        _to_log_file(line)
        return 2 if isinstance(exc, UsageError) else 1


def _to_log_file(line: str) -> None:
    """An error line printed on stderr, also into --log-file (it has no logger of its own)."""
    import logging

    from uvlab.app.runtime.logs import to_file

    to_file(line, logging.ERROR)


def one_line_warning(message, category, filename, lineno, line=None) -> str:
    """A Python warning as uvlab prints it: ``uvlab: warning: TEXT (Category)``, one line.

    Replaces :func:`warnings.formatwarning` in :func:`main`, so that NumPy's
    RuntimeWarnings and the like read as one line with what they are about, not the
    two lines (source file and code) Python's default shows.
    """
    text = " ".join(str(message).split()) or category.__name__
    return f"uvlab: warning: {text} ({category.__name__})\n"


def _one_line(exc: BaseException) -> str:
    """The exception's message folded onto one line."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text


def _has_display() -> bool:
    import os

    return bool(
        os.environ.get("DISPLAY")
        or os.environ.get("WAYLAND_DISPLAY")
        or os.environ.get("QT_QPA_PLATFORM", "").startswith(("offscreen", "minimal"))
        or sys.platform in ("darwin", "win32")
    )


if __name__ == "__main__":
    sys.exit(main())
