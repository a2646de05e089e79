"""A column write to stop with a signal at a chosen step (``UVLAB_FAULT``), run as a script.

``python -m tests.app.ms.fault_writer MS COLUMN OVERWRITE VALUE`` writes ``VALUE``
into every cell of ``COLUMN`` through :func:`uvlab.app.ms.column_writer.write_column`,
in chunks of 7 rows, with SIGINT and SIGTERM handled as the CLI does (exit
130 / 143 after the rollback, 0 with a note when the signal came after the
commit point; the line the CLI prints goes to stderr). ``recover MS`` runs
the recovery ``uvlab repair`` does. Failures print one line and exit 1.
"""

from __future__ import annotations

import sys

import numpy as np


def write(path: str, column: str, overwrite: bool, value: complex) -> None:
    from uvlab.app.ms.column_writer import put_rows, write_column

    def fill(tab, name):
        n, shape = tab.nrows(), tab.getcell("DATA", 0).shape
        for start in range(0, n, 7):
            rows = min(7, n - start)
            put_rows(tab, name, start, np.full((rows, *shape), value))

    write_column(path, column, fill, overwrite=overwrite)


def main(argv: list[str]) -> int:
    from uvlab.app.runtime import signals

    with signals.handled():
        try:
            if argv[0] == "recover":
                from uvlab.app.ms.journal_recovery import recover_if_interrupted

                recover_if_interrupted(argv[1])
            else:
                path, column, overwrite, value = argv
                write(path, column, overwrite == "1", complex(value))
        except KeyboardInterrupt as exc:
            code, line = signals.interrupt_report(exc, "fault_writer")
            print(line, file=sys.stderr)
            return code
        except Exception as exc:
            print(f"fault_writer: error: {exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
