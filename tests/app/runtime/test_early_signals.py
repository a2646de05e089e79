"""SIGINT and SIGTERM for the whole process (issue 25): imports, parsing, the last instant.

Every case runs ``python -m uvlab.app`` (or ``cli.main`` from a small script) and
sends the signal at a chosen point through the fault hook (``UVLAB_FAULT``), so
nothing depends on timing: one line on stderr, exit 130 / 143, never a traceback
and never exit 0.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from tests.support.paths import REPO
from uvlab.app.runtime.process_cancel import watch


def _run(args, fault=None, script=None):
    env = {k: v for k, v in os.environ.items() if k != "UVLAB_FAULT"}
    if fault:
        env["UVLAB_FAULT"] = fault
    head = [sys.executable, "-c", textwrap.dedent(script)] if script else [
        sys.executable, "-m", "uvlab.app"]  # fmt: skip
    return subprocess.run([*head, *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip


@pytest.mark.parametrize("step", ["cli-start", "cli-importing", "cli-parsing"])
@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_signal_while_starting_is_one_line(step, sig):
    r = _run(["arrays"], fault=f"{step}:{sig}")
    assert r.returncode == 128 + getattr(signal, sig)
    assert r.stderr == f"uvlab arrays: interrupted ({sig}) before it started; nothing was written\n"
    assert r.stdout == ""


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_signal_as_the_command_finishes_is_not_lost(sig):
    r = _run(["arrays"], fault=f"cli-finished:{sig}")
    assert r.returncode == 128 + getattr(signal, sig)
    assert r.stderr == f"uvlab arrays: interrupted ({sig}) as it finished; its work is complete\n"
    assert "vla.d" in r.stdout  # the listing was printed in full


SWALLOWED = """
import os, signal, sys
import uvlab.app.commands.arrays as arrays
from uvlab.app import cli

plain = arrays.run

class Dropped:
    def __del__(self):  # Python ignores (prints) what __del__ raises: the Interrupted is lost
        os.kill(os.getpid(), signal.SIGTERM)

def run(args):
    Dropped()
    return plain(args)

arrays.run = run
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_signal_swallowed_on_the_way_still_gives_143():
    r = _run(["arrays"], script=SWALLOWED)
    assert r.returncode == 143
    assert r.stderr == "uvlab arrays: interrupted (SIGTERM) as it finished; its work is complete\n"


CONVERTED = """
import os, signal, sys, time
import uvlab.app.commands.arrays as arrays
from uvlab.app import cli

def run(args):  # a library whose import the signal cut reports an ImportError (NumPy does)
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
    except BaseException as exc:
        raise ImportError("Error importing numpy: you should not try to import numpy from") from exc

arrays.run = run
sys.exit(cli.main(sys.argv[1:]))
"""


def test_an_error_caused_by_the_signal_is_reported_as_the_interrupt():
    r = _run(["arrays"], script=CONVERTED)
    assert r.returncode == 130
    assert r.stderr == "uvlab arrays: interrupted (SIGINT); nothing half-written was left\n"


CUT_IMPORT = """
import runpy, sys

class Cut:  # Ctrl-C while uvlab.app.cli itself is imported, before main() runs
    def find_spec(self, name, path=None, target=None):
        if name == "uvlab.app.cli":
            raise KeyboardInterrupt

sys.meta_path.insert(0, Cut())
runpy.run_module("uvlab.app", run_name="__main__")
"""


def test_python_m_uvlab_app_cut_while_importing_the_cli():
    r = _run(["arrays"], script=CUT_IMPORT)
    assert r.returncode == 130
    assert r.stderr == "uvlab: interrupted (SIGINT) before it started; nothing was written\n"


def test_a_signal_held_while_the_handlers_are_restored_is_collected():
    # Python's own SIGINT handler, as in a fresh uvlab process: a test run before this one
    # in the same worker may have left SIGINT ignored, and the kernel drops an ignored
    # signal instead of holding it
    outer = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with watch() as seen:
            seen.hold()
            # to the main thread (a signal to the process may go to another thread, where
            # Python's C handler records it as well): blocked, it waits at the kernel
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        assert seen.received() == [signal.SIGINT]  # consumed, not raised after the block
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    finally:
        signal.signal(signal.SIGINT, outer)


def test_a_warning_shown_by_uvlab_is_one_line():
    """Python's warnings print on one line (issue 25: RuntimeWarnings made messages multi-line)."""
    import subprocess
    import sys

    code = (
        "import sys, warnings; from uvlab.app import cli; "
        "cli.COMMANDS = ('arrays',); "
        "import uvlab.app.commands.arrays as a; "
        "orig = a.run if hasattr(a, 'run') else None; "
        "warnings.simplefilter('always'); "
        "import numpy as np\n"
        "def run(args):\n"
        "    np.float64(1e308) * 10\n"
        "    return 0\n"
        "a.register = (lambda old: (lambda sub: (old(sub), "
        "sub.choices['arrays'].set_defaults(func=run))))(a.register)\n"
        "sys.exit(cli.main(['arrays']))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("uvlab: warning: overflow"), r.stderr
    assert lines[0].endswith("(RuntimeWarning)")
