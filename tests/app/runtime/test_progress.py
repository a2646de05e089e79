"""The one progress helper (:mod:`uvlab.app.runtime.progress`) on a terminal and off one."""

from __future__ import annotations

import io

import pytest

from uvlab.app.runtime import logs, progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def configured():
    """``configure`` as the CLI calls it; undone after the test."""

    def setup(**kw):
        logs.configure("image", **kw)

    yield setup
    logs.shutdown()


def test_a_terminal_gets_a_bar_with_rate_and_time_left(monkeypatch, configured):
    stderr = _Terminal()
    monkeypatch.setattr("sys.stderr", stderr)
    monkeypatch.setattr(progress, "BAR_SECONDS", 0.0)  # every update drawn
    configured()
    with progress.progress_bar("CLEAN (hogbom)", total=200, unit="it") as update:
        update(0.25, "cycle 1")
        update(0.5, "cycle 2")
    text = stderr.getvalue()
    assert "\r" in text and "CLEAN (hogbom):" in text and "cycle 2" in text
    assert "it/s" in text and "<" in text  # the rate and [elapsed<remaining]
    assert " 50%|" in text


def test_quiet_draws_nothing_on_a_terminal_either(monkeypatch, configured):
    stderr = _Terminal()
    monkeypatch.setattr("sys.stderr", stderr)
    configured(quiet=True)
    with progress.progress_bar("read") as update:
        update(0.5)
    assert stderr.getvalue() == ""


def test_plain_lines_are_spaced_by_the_period(monkeypatch, configured):
    stderr = io.StringIO()
    monkeypatch.setattr("sys.stderr", stderr)
    clock = iter([0.0, 1.0, 2.0, 6.0, 7.0])  # the bar's start, then one per update
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    configured()
    with progress.progress_bar("grid") as update:
        update(0.1)  # 1 s: too soon
        update(0.2)  # 2 s: too soon
        update(0.6, "chunk 6")  # 6 s: a line, 4 s left at this rate
        update(0.7)  # 7 s: too soon after it
    assert stderr.getvalue() == "uvlab image: grid 60% (6.0 s, about 4.0 s left) chunk 6\n"


def test_stage_start_and_time_are_debug_lines(tmp_path, monkeypatch, configured):
    monkeypatch.setattr("sys.stderr", io.StringIO())
    configured(log_file=str(tmp_path / "p.log"))
    with progress.progress_bar("write"):
        pass
    text = (tmp_path / "p.log").read_text()
    assert "DEBUG" in text and "write: started" in text and "write: done in" in text
