"""Render ``resources/icons/uvlab.svg`` to the PNG sizes shipped beside it.

Run from the repository root after editing the SVG::

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/render_icons.py

Uses PyQt6's ``QSvgRenderer`` (SVG Tiny 1.2: keep the SVG to paths, ellipses,
circles and linear gradients so that desktop renderers agree with this one).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ICON_DIR = Path(__file__).resolve().parent.parent / "resources" / "icons"
SIZES = (16, 32, 48, 64, 128, 256)


def render(svg: Path, out_dir: Path, sizes: tuple[int, ...] = SIZES) -> list[Path]:
    """Render ``svg`` to ``out_dir/uvlab-<n>.png`` for each size ``n`` (px); returns the paths."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PyQt6 import QtCore, QtGui, QtSvg

    app = QtGui.QGuiApplication.instance() or QtGui.QGuiApplication([])  # noqa: F841
    renderer = QtSvg.QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg}: not a valid SVG for QSvgRenderer")
    paths = []
    for n in sizes:
        img = QtGui.QImage(n, n, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        img.fill(QtCore.Qt.GlobalColor.transparent)
        painter = QtGui.QPainter(img)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QtGui.QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        path = out_dir / f"uvlab-{n}.png"
        if not img.save(str(path)):
            raise OSError(f"could not write {path}")
        paths.append(path)
    return paths


if __name__ == "__main__":
    for p in render(ICON_DIR / "uvlab.svg", ICON_DIR):
        print(f"wrote {p}")
    sys.exit(0)
