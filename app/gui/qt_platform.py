"""Before Qt starts: will its X11 (xcb) platform plugin load, and if not, which library is missing?

Qt 6 reports any failure to load its xcb plugin with one fixed hint: that
``libxcb-cursor0`` is needed, whichever library is really absent. Here the
plugin's shared-library dependencies are resolved with ``ldd`` before the
QApplication exists, so ``uvlab gui`` names the libraries actually missing and
the Debian/Ubuntu packages that hold them (README, *System libraries*).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

#: Sonames whose Debian package is not the soname's own stem and major version.
PACKAGES = {
    "libGL.so.1": "libgl1",
    "libEGL.so.1": "libegl1",
    "libOpenGL.so.0": "libopengl0",
    "libGLX.so.0": "libglx0",
}

_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.MULTILINE)


class QtPlatformError(RuntimeError):
    """Qt's platform plugin cannot load; the message names what is missing (one line)."""


def debian_package(soname: str) -> str:
    """The Debian/Ubuntu package that ships ``soname`` (``libxcb-icccm.so.4`` → ``libxcb-icccm4``).

    Debian names a library package after the soname's stem and major version,
    with a hyphen between them when the stem ends in a digit
    (``libxkbcommon-x11.so.0`` → ``libxkbcommon-x11-0``), in lower case.
    """
    if soname in PACKAGES:
        return PACKAGES[soname]
    m = re.fullmatch(r"(lib[\w+.-]*?)\.so\.(\d+)(?:\.\d+)*", soname)
    if m is None:
        return soname
    stem, major = m.groups()
    sep = "-" if stem[-1].isdigit() else ""
    return f"{stem}{sep}{major}".lower().replace("_", "-")


def missing_libraries(library: str | os.PathLike) -> list[str]:
    """Sonames ``library`` needs (directly or through its own dependencies) that do not resolve.

    Empty when all resolve, or when ``ldd`` is not available to tell.
    """
    ldd = shutil.which("ldd")
    if ldd is None or not Path(library).is_file():
        return []
    try:
        out = subprocess.run(
            [ldd, os.fspath(library)], capture_output=True, text=True, timeout=20, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return list(dict.fromkeys(_NOT_FOUND.findall(out)))


def xcb_plugin() -> Path:
    """Path of the xcb platform plugin of the PyQt6 in use."""
    from PyQt6.QtCore import QLibraryInfo

    plugins = QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)
    return Path(plugins) / "platforms" / "libqxcb.so"


def will_use_xcb(environ=os.environ) -> bool:
    """Whether Qt will try the xcb plugin (Linux, an X display, no other platform chosen)."""
    if not sys.platform.startswith("linux"):
        return False
    chosen = environ.get("QT_QPA_PLATFORM", "")
    if chosen:
        return chosen.split(";")[0].split(":")[0] == "xcb"
    wayland = environ.get("WAYLAND_DISPLAY") and environ.get("XDG_SESSION_TYPE") == "wayland"
    return bool(environ.get("DISPLAY")) and not wayland


def xcb_problem(plugin: str | os.PathLike | None = None) -> str | None:
    """One line naming the libraries the xcb plugin lacks and their packages; None if none."""
    plugin = Path(plugin) if plugin is not None else xcb_plugin()
    missing = missing_libraries(plugin)
    if not missing:
        return None
    packages = " ".join(dict.fromkeys(debian_package(s) for s in missing))
    return (
        f"Qt's X11 platform plugin ({plugin.name}) cannot load: missing "
        f"{', '.join(missing)}; on Debian/Ubuntu: sudo apt install {packages}"
    )


def check_xcb(environ=os.environ) -> None:
    """Raise :class:`QtPlatformError` when Qt would try xcb and xcb cannot load."""
    if will_use_xcb(environ) and (problem := xcb_problem()):
        raise QtPlatformError(problem)
