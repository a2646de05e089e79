"""Open the lab on a screen of a given size, wait for its first result, and measure the window.

Run as ``python -m tests.support.window_probe --size 1366x768 [--dpr 2] [--shots DIR]``:
it writes an offscreen-platform configuration for one screen of that size
(logical pixels, device-pixel ratio ``dpr``), starts the real window on the
default session (integrations lengthened so the CPU gets there quickly), waits
for the first image, and prints one JSON object:

- ``screen``: the available geometry; ``frame``: the window's frame geometry;
- ``dirty_px``: the on-screen size of the dirty image's pixels (logical px);
- ``hscroll``: visible horizontal scroll bars, by the class of their area;
- ``min_size``: the window's minimum size hint;
- ``fit``: per image view, the view range and the image's half-width (arcmin);
- with ``--compute``: ``elapsed_s``, each computed tab's job time, and for Compare
  ``compare_runs`` (each entry's warm-up and timed runs, s) and ``reference_s``.

With ``--shots DIR`` it also saves the window with each of ``--tabs`` in front
(``--compute`` runs the compare, aliasing and CLEAN tasks before their shots; ``--compare
conv,hybrid,…`` chooses the compared algorithms, the Compare panel's by default, and
``--repeats`` their timed runs; ``--clean "--niter 500 --multiscale …"`` sets the
Deconvolution tab from ``uvlab image``'s CLEAN flags; ``--panel imaging`` shows that
panel of the Controls dock; ``--stretch psf=log`` sets a view's colour stretch;
``--play`` presses ▶ Play and waits for its last frame; ``--lesson 1.2,1.3`` loads
Help → Lessons → Lesson 1's second scene, waits for its image as a student clicking it
would, shoots it, then the third: L is the index in
:data:`~uvlab.app.lab.lessons.LESSONS`, 0 the tour). ``--also 1366x768,1280x720`` shoots
the same results again in the window and dock sizes of those smaller screens (one
computation for all). The JSON then also holds the status bar's and the hint bar's text,
per scene under ``scenes`` when there are several. The GUI tests run it in a subprocess
(the platform is chosen per process); screenshots for the docs come from the same
script, offscreen or under Xvfb.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import replace


def _offscreen_config(width: int, height: int, dpr: float) -> str:
    config = {
        "synchronousWindowSystemEvents": True,
        "windowFrameMargins": False,
        "screens": [
            {
                "name": "probe",
                "x": 0,
                "y": 0,
                "width": int(width * dpr),
                "height": int(height * dpr),
                "logicalDpi": 96,
                "logicalBaseDpi": 96,
                "dpr": dpr,
            }
        ],
    }
    fd, path = tempfile.mkstemp(suffix=".json", prefix="uvlab-screen-")
    with os.fdopen(fd, "w") as f:
        json.dump(config, f)
    return path


def _rect(r) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def measure(window) -> dict:
    """What the tests check, from a shown window with a result."""
    from PyQt6 import QtWidgets

    from uvlab.widgets.image_view import ARCMIN

    views = window.views
    dirty = views.dirty_view
    item = dirty.image_item
    scene_rect = item.mapRectToScene(item.boundingRect())
    shown = dirty.plot_widget.mapFromScene(scene_rect).boundingRect()
    visible = dirty.plot_widget.viewport().rect().intersected(shown)
    hscroll = []
    for area in window.findChildren(QtWidgets.QAbstractScrollArea):
        if area.isVisible() and area.horizontalScrollBar().isVisible():
            hscroll.append(type(area).__name__)
    fit = {}
    for name in ("dirty_view", "psf_view"):
        view = getattr(views, name)
        spec = view.spec()
        (x0, x1), (y0, y1) = view.view_box.viewRange()
        half = spec.npix / 2 * spec.cell_rad / ARCMIN if spec else None
        fit[name] = {"x": [x0, x1], "y": [y0, y1], "half_arcmin": half}
    return {
        "screen": _rect(window.screen().availableGeometry()),
        "frame": _rect(window.frameGeometry()),
        "dirty_px": [visible.width(), visible.height()],
        "hscroll": hscroll,
        "min_size": [window.minimumSizeHint().width(), window.minimumSizeHint().height()],
        "fit": fit,
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--size", default="1366x768")
    p.add_argument("--dpr", type=float, default=1.0)
    p.add_argument("--shots", help="folder for screenshots (PNG)")
    p.add_argument("--tabs", default="overview", help="comma-separated tabs to screenshot")
    p.add_argument("--prefix", default="gui")
    p.add_argument("--real", action="store_true", help="use the display as it is (Xvfb)")
    p.add_argument("--integration", type=float, default=600.0)
    p.add_argument(
        "--compute",
        action="store_true",
        help="run the compare and aliasing tasks before their shots",
    )
    p.add_argument("--compare", help="comma-separated algorithms to compare (2–6)")
    p.add_argument("--repeats", type=int, help="timed runs of each compared entry")
    p.add_argument("--also", default="", help="smaller screens WxH,… to shoot the same results")
    p.add_argument("--clean", help="the Deconvolution tab's options as uvlab image's CLEAN flags")
    p.add_argument("--panel", help="the Controls dock's panel to show (its tab's title)")
    p.add_argument("--lesson", help="L.S: load scene S (from 1) of LESSONS[L] (0: the tour)")
    p.add_argument("--play", action="store_true", help="press ▶ Play before the shots")
    p.add_argument("--stretch", default="", help="VIEW=NAME,…: e.g. psf=log (dirty, psf, sky)")
    args = p.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    if not args.real:
        os.environ["QT_QPA_PLATFORM"] = (
            f"offscreen:configfile={_offscreen_config(width, height, args.dpr)}"
        )

    from PyQt6 import QtCore, QtWidgets

    from uvlab.app.gui.main_window import MainWindow
    from uvlab.app.gui.settings import AppSettings
    from uvlab.app.lab.session import default_session

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(["uvlab-probe"])
    ini = tempfile.mkdtemp(prefix="uvlab-probe-")
    settings = AppSettings(QtCore.QSettings(f"{ini}/s.ini", QtCore.QSettings.Format.IniFormat))
    state = default_session()
    state = replace(
        state, observation=replace(state.observation, int_s=args.integration), device="cpu"
    )
    window = MainWindow(state, settings=settings)
    window.show()
    results = []
    window.controller.result_ready.connect(results.append)
    failed = []
    window.controller.job_failed.connect(failed.append)
    scenes = args.lesson.split(",") if args.lesson else [None]
    if scenes[0] is None:  # the default scene's first image (a lesson's scene replaces it)
        deadline = QtCore.QDeadlineTimer(240_000)
        while not results and not failed and not deadline.hasExpired():
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 50)
        for _ in range(20):  # let the layout settle after the result's titles
            app.processEvents()
        if failed or not results:
            print(json.dumps({"error": failed[0] if failed else "timeout"}))
            window.controller.shutdown()
            _dispose(app, window)
            return 1
    report = {}
    for which in scenes:
        if which is not None and not _load_lesson(app, window, which, results, failed):
            report["error"] = f"lesson {which}: " + (failed[0] if failed else "timeout")
            break
        report = report or measure(window)  # after the first image
        prefix = args.prefix if which is None else f"{args.prefix}-{which}"
        out = report if len(scenes) == 1 else report.setdefault("scenes", {}).setdefault(which, {})
        if args.play:  # the hour-by-hour animation, to its end: how many frames it showed
            out["play_frames"] = _play(app, window, results, failed)
        out.update(_shoot(app, window, args, prefix, results, failed))
    print(json.dumps(report))
    window.controller.shutdown()
    window.close()
    _dispose(app, window)  # while the QApplication lives: else SIGSEGV at exit, at times
    return 1 if "error" in report else 0


def _shoot(app, window, args, prefix: str, results: list, failed: list) -> dict:
    """The views set as ``args`` say, each of ``args.tabs`` shot: the status, hint and paths."""
    from PyQt6 import QtCore

    for item in filter(None, args.stretch.split(",")):
        view, name = item.split("=")
        getattr(window.views, f"{view}_view").set_stretch(name)
    if args.clean:
        window.views.deconv_view.set_record(_clean_record(args.clean))
        window.views.deconv_view.changed.emit()  # as an edit there does
    if args.panel:
        titles = [window.panel_tabs.tabText(k).lower() for k in range(window.panel_tabs.count())]
        window.panel_tabs.setCurrentIndex(titles.index(args.panel.lower()))
    report = {"shots": []}
    if args.shots:
        os.makedirs(args.shots, exist_ok=True)
        for tab in args.tabs.split(","):
            if args.compute and tab in ("compare", "aliasing", "deconvolution"):
                if tab == "compare" and args.compare:  # an edit of the entries, as by hand
                    window.compare.panel.set_algorithms(args.compare.split(","), emit=True)
                if tab == "compare" and args.repeats:
                    window.compare.panel.repeats_box.setValue(args.repeats)
                request = window.controller.submit("clean" if tab == "deconvolution" else tab)
                deadline = QtCore.QDeadlineTimer(1_800_000)

                def done(job_id=request.job_id) -> bool:  # that job's result: not a late image's
                    return any(r.job_id == job_id for r in results) or bool(failed)

                while not done() and not deadline.hasExpired():
                    app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 50)
                for r in results:
                    if r.job_id == request.job_id:
                        report.setdefault("elapsed_s", {})[tab] = r.elapsed_s
                        report.update(_compare_runs(r.output) if tab == "compare" else {})
            window.show_tab(tab)
            for _ in range(20):
                app.processEvents()
            name = f"{prefix}-{tab}-{args.size.lower()}.png"
            window.grab().save(os.path.join(args.shots, name))
            report["shots"].append(os.path.join(args.shots, name))
        if args.also:
            frame, dock = window.size(), window.dock.width()
            for also in filter(None, args.also.split(",")):
                report["shots"] += _shoot_as_on(app, window, also, args, prefix)
            window.resize(frame)  # back to this screen's, for the next scene
            window.resizeDocks([window.dock], [dock], QtCore.Qt.Orientation.Horizontal)
    report["status"] = window.statusBar().currentMessage()
    report["tip"] = window.tips.label.text()
    return report


def _compare_runs(output) -> dict:
    """``{"compare_runs": {label: {"warmup_s", "runs_s"}}, "reference_s"}`` of a Compare."""
    cmp = output.comparison
    runs = {
        label: {"warmup_s": r.warmup_s, "runs_s": list(r.runs_s)}
        for label, r in cmp.results.items()
    }
    return {"compare_runs": runs, "reference_s": sum(cmp.reference_timing.values())}


def _load_lesson(app, window, which: str, results: list, failed: list) -> bool:
    """Help → Lessons → scene ``which`` ("L.S"), and its image: True once it is shown."""
    from uvlab.app.lab.lessons import LESSONS

    number, scene = (int(v) for v in which.split("."))
    lesson = LESSONS[number]
    before = len(results)
    window.session.load_lesson(lesson, lesson.scenes[scene - 1])
    return _settle(app, window, results, failed, before)


def _play(app, window, results: list, failed: list) -> int | None:
    """Press ▶ Play and wait for the animation's end: its frames (None if it did not end)."""
    before = len(results)
    window.play.set_playing(True)
    ended = _settle(app, window, results, failed, before, lambda: not window.play.is_playing())
    return len(results) - before if ended else None


def _settle(app, window, results, failed, before: int, also=lambda: True) -> bool:
    """Wait until the newest job's result is in (after ``before`` results), nothing runs or
    waits, and ``also()`` holds: True then, False on a failure or after 10 minutes."""
    from PyQt6 import QtCore

    controller = window.controller
    deadline = QtCore.QDeadlineTimer(600_000)

    def settled() -> bool:
        if controller.busy or controller.debounce.isActive() or len(results) == before:
            return False
        return results[-1].job_id == controller.latest_job_id and also()

    while not settled() and not failed and not deadline.hasExpired():
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 50)
    for _ in range(20):
        app.processEvents()
    return settled()


def _shoot_as_on(app, window, size: str, args, prefix: str) -> list[str]:
    """Shots of ``args.tabs`` with the window and its dock sized as on a ``size`` screen."""
    from PyQt6 import QtCore

    from uvlab.app.gui.screen_fit import FRAME_ALLOWANCE, PREFERRED_SIZE, dock_width

    screen = [int(v) for v in size.lower().split("x")]
    w, h = (min(p, s - a) for p, s, a in zip(PREFERRED_SIZE, screen, FRAME_ALLOWANCE))
    window.resize(w, h)
    tabs = window.panel_tabs.tabBar().sizeHint().width()
    dock = dock_width(window, screen[0]) + tabs
    window.resizeDocks([window.dock], [dock], QtCore.Qt.Orientation.Horizontal)
    paths = []
    for tab in args.tabs.split(","):
        window.show_tab(tab)
        for _ in range(20):
            app.processEvents()
        paths.append(os.path.join(args.shots, f"{prefix}-{tab}-{size}.png"))
        window.grab().save(paths[-1])
    return paths


def _clean_record(flags: str):
    """``uvlab image``'s CLEAN flags (one string) as the lab's CleanRecord."""
    import shlex

    from uvlab.app.cli import build_parser
    from uvlab.app.commands.clean_args import clean_record

    argv = ["image", "--ms", "probe.ms", "--out", "probe", *shlex.split(flags)]
    return clean_record(build_parser(argv).parse_args(argv))


def _dispose(app, window) -> None:
    """The window destroyed now, as ``uvlab gui`` does (:func:`uvlab.app.gui.launch._dispose`)."""
    from uvlab.app.gui.launch import _dispose as dispose

    dispose(app, window)


if __name__ == "__main__":
    sys.exit(main())
