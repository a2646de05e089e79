"""uvlab's application icon: ``uvlab.svg`` and PNG renders of it.

The files are package data, found through :mod:`importlib.resources` so they
work from a wheel, an editable install and the PyInstaller bundle alike. The
PNGs are rendered from the SVG by ``packaging/render_icons.py``.

Example (in the GUI, which owns Qt)::

    from uvlab.resources.icons import icon_files
    icon = QtGui.QIcon()
    for path in icon_files():
        icon.addFile(str(path))
    app.setWindowIcon(icon)
    app.setDesktopFileName(APP_ID)   # matches packaging/linux/org.uvlab.uvlab.desktop
"""

from __future__ import annotations

import importlib.resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

#: Reverse-DNS application id: the .desktop file, AppStream id and icon name.
APP_ID = "org.uvlab.uvlab"

#: Square PNG sizes shipped (px), smallest first.
ICON_SIZES = (16, 32, 48, 64, 128, 256)


def icon_file(size: int | None = None) -> Traversable:
    """The icon file: the SVG when ``size`` is None, else the ``size`` px PNG.

    Parameters
    ----------
    size : int, optional
        Edge length in pixels; one of :data:`ICON_SIZES`.

    Returns
    -------
    Traversable
        A :class:`pathlib.Path` for any installed (non-zipped) uvlab.

    Raises
    ------
    ValueError
        If ``size`` is not one of :data:`ICON_SIZES`.
    """
    if size is not None and size not in ICON_SIZES:
        raise ValueError(f"no {size} px icon; sizes are {ICON_SIZES}")
    name = "uvlab.svg" if size is None else f"uvlab-{size}.png"
    return importlib.resources.files(__name__).joinpath(name)


def icon_files() -> list[Traversable]:
    """Every icon file: the PNGs from smallest to largest, then the SVG."""
    return [icon_file(n) for n in ICON_SIZES] + [icon_file()]
