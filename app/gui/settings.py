"""Persistent GUI settings through QSettings: window geometry and recent files.

The default store is ``QSettings("uvlab", "uvlab")`` (organisation and
application "uvlab"); tests pass ``QSettings(path, QSettings.Format.IniFormat)``
so nothing touches the user's configuration.
"""

from __future__ import annotations

import os

from PyQt6 import QtCore

ORGANISATION = "uvlab"
APPLICATION = "uvlab"
#: How many recent files of each kind are remembered.
MAX_RECENT = 8


class AppSettings:
    """Window geometry/state and recent MeasurementSets, sessions and sky files.

    Parameters
    ----------
    qsettings : QSettings, optional
        Default ``QSettings(ORGANISATION, APPLICATION)``.
    """

    def __init__(self, qsettings: QtCore.QSettings | None = None):
        self.qsettings = qsettings or QtCore.QSettings(ORGANISATION, APPLICATION)

    # ---------------------------------------------------------- recent files
    def recent(self, kind: str) -> list[str]:
        """Recent paths of one kind (``"ms"``, ``"session"``, ``"sky"``), newest first."""
        value = self.qsettings.value(f"recent/{kind}", [])
        if isinstance(value, str):  # a one-element list reads back as a string (INI)
            value = [value] if value else []
        return [str(v) for v in (value or [])]

    def add_recent(self, kind: str, path: str | os.PathLike) -> list[str]:
        """Put ``path`` first in the recent list of ``kind``; returns the new list."""
        path = os.path.abspath(os.fspath(path))
        paths = [path] + [p for p in self.recent(kind) if p != path]
        paths = paths[:MAX_RECENT]
        self.qsettings.setValue(f"recent/{kind}", paths)
        self.qsettings.sync()
        return paths

    def recent_ms(self) -> list[str]:
        return self.recent("ms")

    def add_recent_ms(self, path) -> list[str]:
        return self.add_recent("ms", path)

    # -------------------------------------------------------------- geometry
    def save_window(self, window) -> None:
        """Remember a QMainWindow's geometry and dock/toolbar state."""
        self.qsettings.setValue("window/geometry", window.saveGeometry())
        self.qsettings.setValue("window/state", window.saveState())
        self.qsettings.sync()

    def restore_window(self, window) -> bool:
        """Restore what :meth:`save_window` stored; False if there was nothing."""
        geometry = self.qsettings.value("window/geometry")
        state = self.qsettings.value("window/state")
        ok = False
        if isinstance(geometry, QtCore.QByteArray) and not geometry.isEmpty():
            ok = bool(window.restoreGeometry(geometry))
        if isinstance(state, QtCore.QByteArray) and not state.isEmpty():
            window.restoreState(state)
        return ok

    def last_dir(self, kind: str) -> str:
        """The folder last used in a file dialog of ``kind`` (default: home)."""
        return str(self.qsettings.value(f"dirs/{kind}", os.path.expanduser("~")))

    def set_last_dir(self, kind: str, path: str | os.PathLike) -> None:
        folder = os.path.dirname(os.path.abspath(os.fspath(path)))
        self.qsettings.setValue(f"dirs/{kind}", folder)
