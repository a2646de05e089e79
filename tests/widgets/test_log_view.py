"""LogView: timestamped lines, read-only, capped."""

from __future__ import annotations

import re

from uvlab.widgets.log_view import LogView


def test_lines_are_timestamped_escaped_and_capped(qtbot):
    log = LogView(max_lines=5)
    qtbot.addWidget(log)
    assert log.isReadOnly()
    log.append("warning", "flagged <3%> & more")
    assert re.fullmatch(r"\d\d:\d\d:\d\d WARNING flagged <3%> & more", log.lines()[0])
    for k in range(10):
        log.append("info", f"message {k}")
    lines = log.lines()
    assert len(lines) == 5 and lines[-1].endswith("INFO    message 9")
    assert lines[0].endswith("message 5")


def test_multiline_message_gives_one_line_each(qtbot):
    log = LogView()
    qtbot.addWidget(log)
    log.append("error", "Traceback\n  line 2")
    assert [s[9:] for s in log.lines()] == ["ERROR   Traceback", "ERROR     line 2"]


def test_long_lines_wrap_instead_of_scrolling_sideways(qtbot):
    view = LogView()
    qtbot.addWidget(view)
    view.resize(300, 200)
    view.show()
    view.append("info", "word " * 200)
    assert view.lineWrapMode() == view.LineWrapMode.WidgetWidth
    assert view.horizontalScrollBar().maximum() == 0  # nothing to scroll to
    assert len(view.lines()) == 1  # still one entry
