"""The window on a laptop screen and larger: inside the screen, the dirty image largest.

Each size runs the real window in its own process on an offscreen screen of
that size (the platform is chosen per process): see tests/support/window_probe.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from PyQt6 import QtCore, QtGui

from tests.support.paths import REPO
from uvlab.app.gui.screen_fit import fitted_rect

#: The dirty image's smallest on-screen size at 1366×768 (the issue's "done when").
MIN_DIRTY_PX = 450


def probe(size: str, dpr: float = 1.0, *extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    command = ["--size", size, "--dpr", str(dpr), *extra]
    run = subprocess.run(
        [sys.executable, "-m", "tests.support.window_probe", *command],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [ln for ln in run.stdout.splitlines() if ln.startswith("{")]
    assert run.returncode == 0 and lines, run.stdout + run.stderr
    return json.loads(lines[-1])


def inside(frame, screen) -> bool:
    fx, fy, fw, fh = frame
    sx, sy, sw, sh = screen
    return fx >= sx and fy >= sy and fx + fw <= sx + sw and fy + fh <= sy + sh


@pytest.mark.parametrize(
    ("size", "dpr"),
    # a 200 % laptop screen in the slow run (~15 s on two busy cores)
    [("1366x768", 1.0), ("1920x1080", 1.0), pytest.param("1366x768", 2.0, marks=pytest.mark.slow)],
)
def test_window_fits_screen_and_dirty_image_is_largest(size, dpr):
    """The window inside the screen, no horizontal scroll bar, the dirty image the
    largest view, and every view fitting its image after the first result (one probe)."""
    r = probe(size, dpr)
    assert inside(r["frame"], r["screen"]), r
    assert r["hscroll"] == [], f"horizontal scroll bars at {size}: {r['hscroll']}"
    w, h = r["dirty_px"]
    assert min(w, h) >= MIN_DIRTY_PX, f"dirty image only {w}×{h} px at {size}"
    for name, fit in r["fit"].items():
        half = fit["half_arcmin"]
        if name == "psf_view":
            continue  # shown zoomed on its main lobe and sidelobes (test_main_window)
        spans = [fit["x"][1] - fit["x"][0], fit["y"][1] - fit["y"][0]]
        # square pixels: the limiting axis spans the image exactly, the other at least
        assert min(spans) == pytest.approx(2 * half, rel=0.01), (name, fit)


@pytest.mark.slow  # ~12 s: a test of the screenshot tool, not of the window
def test_the_probe_walks_a_lesson_scene_as_a_student_would(tmp_path):
    """``--lesson``: Help → Lessons → Lesson 3's nn scene loaded, imaged, played, shot."""
    extra = ("--lesson", "3.1", "--play", "--stretch", "psf=log", "--shots", str(tmp_path))
    r = probe("1366x768", 1.0, *extra)
    assert "nn: a false source" in r["tip"] and "Read the lesson" in r["tip"]
    assert r["play_frames"] == 2  # -1 … 0 h, then -1 … +1 h: one hour per frame
    assert r["status"].startswith("Done") and "vla.d" in r["status"]  # the scene's own image
    (shot,) = r["shots"]
    assert shot == str(tmp_path / "gui-3.1-overview-1366x768.png")
    png = QtGui.QImage(shot)
    assert [png.width(), png.height()] == r["frame"][2:]


def test_fitted_rect_moves_and_shrinks_into_the_screen():
    avail = QtCore.QRect(0, 0, 1366, 768)
    r = fitted_rect(QtCore.QRect(900, 500, 1500, 950), avail, (0, 0))
    assert (r.x(), r.y(), r.width(), r.height()) == (0, 0, 1366, 768)
    r = fitted_rect(QtCore.QRect(-300, 40, 800, 600), avail, (0, 0))
    assert (r.x(), r.y(), r.width(), r.height()) == (0, 40, 800, 600)
    r = fitted_rect(QtCore.QRect(1000, 400, 800, 600), avail, (8, 36))
    assert r.x() + r.width() <= 1366 - 8 and r.y() + r.height() <= 768 - 36
