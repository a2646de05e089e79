"""The ``uvlab`` command line: one subcommand per module in ``uvlab.app.commands``.

Exit codes: 0 on success, 2 on a usage error, 1 on a data error, 130 / 143
when stopped by SIGINT (Ctrl-C) / SIGTERM (:mod:`uvlab.app.signals`: the
command's rollback runs first). Errors print one clear line on stderr;
``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from uvlab.app import process_clock  # noqa: F401  (its clock starts here where /proc is absent)
from uvlab.app._version import __version__

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


class UvlabError(Exception):
    """A data error to report on one line (exit code 1)."""


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line (exit 2), like every other error."""

    def error(self, message: str):
        text = " ".join(str(message).split())
        self.exit(2, f"{self.prog}: error: {text} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="uvlab",
        description="uvlab: a desktop lab for radio interferometry.",
    )
    parser.add_argument("--version", action="version", version=f"uvlab {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    for name in COMMANDS:
        importlib.import_module(f"uvlab.app.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from uvlab.app import signals

    with signals.handled():  # SIGINT and SIGTERM cancel: rollbacks run, exit 130 / 143
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
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
    return _run(args)


def _run(args) -> int:
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt as exc:
        from uvlab.app.signals import exit_code, signal_name

        code = exit_code(exc)
        print(
            f"uvlab {args.command}: interrupted ({signal_name(code - 128)}); "
            "nothing half-written was left",
            file=sys.stderr,
        )
        return code
    except BrokenPipeError:
        # The reader went away (e.g. `uvlab arrays | head`): not an error.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        if args.debug:
            raise
        from uvlab.app.errors import UsageError

        print(f"uvlab {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return 2 if isinstance(exc, UsageError) else 1


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
