"""Screenshot mode: wait for the first complete result, save the window as PNG.

The result waited for is the first of the given task (``image`` by default;
``compare`` for a screenshot of compare mode).

Used by ``uvlab gui --screenshot PATH`` (documentation images, smoke tests
under Xvfb): exit status 0 once the PNG is written, 1 with a message on a
job error or when no result arrives within the timeout.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PyQt6 import QtCore, QtWidgets

from uvlab.app.outputs.atomic import save_qimage

#: Pause after the result is drawn before grabbing, ms (lets the views repaint).
SETTLE_MS = 500


def screenshot_when_ready(
    window, path, timeout_s: float = 300.0, task: str = "image", skip: int = 0
) -> int:
    """Run the event loop until ``window`` shows its first image, then save it.

    Parameters
    ----------
    window : MainWindow
        Shown, with a job submitted (or about to be).
    path : str or path-like
        PNG to write.
    timeout_s : float
        Give up after this many seconds.
    task : str
        Save once a result of this task is drawn (``"image"``, ``"compare"`` or ``"clean"``).
    skip : int
        Let this many results of ``task`` pass first (a follow-up job's is the one wanted).

    Returns
    -------
    int
        0 when the PNG was written, 1 otherwise (a message is printed on stderr).
    """
    path = Path(path)
    loop = QtCore.QEventLoop()
    outcome = {"rc": 1}

    def finish(rc: int, message: str) -> None:
        outcome["rc"] = rc
        print(message, file=sys.stderr if rc else sys.stdout)
        loop.quit()

    def save() -> None:
        QtWidgets.QApplication.processEvents()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            save_qimage(window.grab(), path, "PNG")  # atomic, after a space check
        except OSError as exc:
            finish(1, f"uvlab gui: error: {exc}")
        else:
            finish(0, f"uvlab gui: wrote {path}")

    def on_result(result) -> None:
        if result.task == task and outcome.setdefault("seen", 0) < skip:
            outcome["seen"] += 1
            return
        if result.task == task:
            if window.jobs.first_result_s is not None and outcome.get("timed") is None:
                outcome["timed"] = True  # for `uvlab bench startup`: one line, parsed
                print(
                    f"uvlab gui: first image {window.jobs.first_image_s:.2f} s, complete image "
                    f"{window.jobs.first_result_s:.2f} s after the process started"
                )
            QtCore.QTimer.singleShot(SETTLE_MS, save)

    def on_failed(message: str) -> None:
        first = message.splitlines()[0] if message else "error"
        finish(1, f"uvlab gui: error: the first run failed: {first}")

    def on_timeout() -> None:
        finish(1, f"uvlab gui: error: no result within {timeout_s:g} s; no screenshot written")

    c = window.controller
    c.result_ready.connect(on_result)
    c.job_failed.connect(on_failed)
    timer = QtCore.QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(on_timeout)
    timer.start(int(timeout_s * 1000))
    loop.exec()
    timer.stop()
    c.result_ready.disconnect(on_result)
    c.job_failed.disconnect(on_failed)
    return outcome["rc"]
