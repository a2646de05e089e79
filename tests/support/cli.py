"""Helpers for the command tests: run the CLI in-process, write sky files.

``run_cli`` adds the commands under test to ``uvlab.app.cli.COMMANDS`` for
the duration of the call, so the tests do not depend on the list in cli.py.
Sources placed on pixels: :func:`tests.support.oracles.pixel_radec`.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from unittest import mock

NEW_COMMANDS = ("simulate", "predict", "image", "compare")


def run_cli(*argv) -> tuple[int, str, str]:
    """``uvlab ARGV`` in this process: (exit code, stdout, stderr)."""
    import uvlab.app.cli as cli

    commands = tuple(dict.fromkeys((*cli.COMMANDS, *NEW_COMMANDS)))
    out, err = io.StringIO(), io.StringIO()
    with (
        mock.patch.object(cli, "COMMANDS", commands),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def write_sky(path: Path, components) -> Path:
    """A uvlab v1 sky file of points: components are (name, ra, dec, I, Q, U, V)."""
    lines = ["# uvlab sky model v1"]
    for name, ra, dec, i, q, u, v in components:
        lines.append(f"{name} point {float(ra)!r} {float(dec)!r} {i} {q} {u} {v} 0.0 1.4e9 0 0 0")
    path.write_text("\n".join(lines) + "\n")
    return path


def error_line(err: str) -> str:
    """The one non-empty line of ``err`` (a command's stderr); fails the test otherwise."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, f"expected one line on stderr, got:\n{err}"
    return lines[0]


def one_process_and_chunked(args, folder, cluster, chunks) -> tuple[str, str, str]:
    """``uvlab`` ``args`` run in one process (``--out folder/one``) and on the two-worker
    ``cluster`` in ``chunks`` (``--out folder/many``), both succeeding: (the first's stdout,
    the chunked run's stdout, its stderr)."""
    code, out_one, err = run_cli(*args, "--out", folder / "one")
    assert code == 0, err
    code, out, err = run_cli(*args, *cluster, *chunks, "--out", folder / "many")
    assert code == 0, err
    assert "Dask cluster tcp://127.0.0.1:" in err and "2 workers" in err
    return out_one, out, err
