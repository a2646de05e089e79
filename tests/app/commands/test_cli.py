"""The `uvlab` entry point: version, help on every command, exit codes, closed pipes."""

import subprocess
import sys
from pathlib import Path

import pytest

from uvlab.app import __version__
from uvlab.app.cli import COMMANDS, main

UVLAB = str(Path(sys.executable).parent / "uvlab")


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"uvlab {__version__}"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert f"usage: uvlab {command}" in capsys.readouterr().out


def test_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["image", "--no-such-option"])
    assert exc.value.code == 2


def test_closed_pipe_is_not_an_error():
    # 600 kB of output: far more than a pipe buffer, so `head` closes it mid-write.
    cmd = f"{UVLAB} sky show random --ra 10 --dec -30 --n 5000 | head -1"
    out = subprocess.run(
        ["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "Broken pipe" not in out.stderr and "Traceback" not in out.stderr
