"""A signal during ``uvlab predict``'s write, through the whole command line (issue 25).

The journal's own tests drive the column writer; this one runs ``uvlab`` itself, so that
what the command reports and its exit code come from ``uvlab.app.cli.main`` with its
process-wide signal watch: one line, and an exit code that says what became of the MS.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SIM = ["simulate", "--array", "vla.d", "--ra", "150", "--dec", "30", "--nchan", "2",
       "--int-s", "1200", "--sky", "point", "--device", "cpu"]  # fmt: skip
PREDICT = ["predict", "--sky", "point", "--column", "DATA", "--overwrite", "--device", "cpu"]


def uvlab(*args, fault=None):
    env = dict(os.environ)
    env.pop("UVLAB_FAULT", None)
    if fault:
        env["UVLAB_FAULT"] = fault
    cmd = [sys.executable, "-m", "uvlab.app", *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    out = tmp_path_factory.mktemp("sig") / "obs.ms"
    assert uvlab(*SIM, "--out", out).returncode == 0
    return out


@pytest.mark.parametrize(
    ("fault", "code", "says"),
    [
        ("flushed:SIGINT", 130, "interrupted (SIGINT); the write of DATA was rolled back"),
        ("snapshot-switched:SIGTERM", 143, "the write of DATA was rolled back"),
        ("committed:SIGTERM", 0, "SIGTERM arrived after the commit point: the write of DATA "
                                 "was completed"),
        ("old-flushed:SIGINT", 0, "SIGINT arrived after the commit point"),
    ],
)  # fmt: skip
def test_one_line_and_an_exit_code_that_says_what_became_of_the_ms(ms, fault, code, says):
    r = uvlab(*PREDICT, "--ms", ms, fault=fault)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == code and len(lines) == 1, r.stderr
    assert says in lines[0]
