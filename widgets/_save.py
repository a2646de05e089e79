"""How the views save images: one replaceable saver, so the application can make it safe.

:mod:`uvlab.widgets` never imports :mod:`uvlab.app`. By default an image is
saved with Qt's ``save`` (an :class:`OSError` when Qt says False); the desktop
lab installs :func:`uvlab.app.outputs.atomic.save_qimage` (space check, temporary file,
fsync, rename: an existing file is never left half-written) with
:func:`set_image_saver` when its main window is built.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

#: ``saver(image, path, fmt)``: writes a QImage or QPixmap, raises OSError on failure.
ImageSaver = Callable[[object, "str | os.PathLike", str], object]


def qt_save(image, path: str | os.PathLike, fmt: str = "PNG") -> None:
    """Qt's own ``image.save``, raising :class:`OSError` naming the file when it fails."""
    if not image.save(os.fspath(path), fmt):
        raise OSError(f"{os.fspath(path)}: could not write the {fmt} image")


_saver: ImageSaver = qt_save


def set_image_saver(saver: ImageSaver | None) -> None:
    """Make every view save images through ``saver`` (None: back to :func:`qt_save`)."""
    global _saver
    _saver = saver or qt_save


def save_image(image, path: str | os.PathLike, fmt: str = "PNG") -> Path:
    """Save ``image`` (QImage or QPixmap) with the installed saver; returns the path."""
    _saver(image, path, fmt)
    return Path(path)
