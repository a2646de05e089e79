"""The xcb pre-flight check names the library really missing (Qt's own hint names xcb-cursor)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from uvlab.app.gui import qt_platform
from uvlab.app.gui.qt_platform import (
    QtPlatformError,
    check_xcb,
    debian_package,
    missing_libraries,
    will_use_xcb,
    xcb_problem,
)

needs_cc = pytest.mark.skipif(
    shutil.which("cc") is None or shutil.which("ldd") is None, reason="needs a C compiler and ldd"
)


@pytest.mark.parametrize(
    ("soname", "package"),
    [  # as listed by `dpkg -S` on Debian 12 / Ubuntu 24.04
        ("libxcb-icccm.so.4", "libxcb-icccm4"),
        ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
        ("libxcb-cursor.so.0", "libxcb-cursor0"),
        ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
        ("libxcb-render-util.so.0", "libxcb-render-util0"),
        ("libdbus-1.so.3", "libdbus-1-3"),
        ("libEGL.so.1", "libegl1"),
        ("libfontconfig.so.1", "libfontconfig1"),
    ],
)
def test_debian_package_of_soname(soname, package):
    assert debian_package(soname) == package


def _library_needing(tmp_path, names):
    """A shared library linked against libraries ``names`` that are then deleted."""
    src = tmp_path / "dep.c"
    src.write_text("int dep(void) { return 1; }\n")
    links = []
    for name in names:  # e.g. "uvlabfake-icccm.so.4"
        stem = name.split(".so.")[0]
        real = tmp_path / name
        subprocess.run(
            ["cc", "-shared", "-fPIC", f"-Wl,-soname,lib{name}", "-o", str(real), str(src)],
            check=True,
        )
        (tmp_path / f"lib{stem}.so").symlink_to(real)
        links.append(f"-l{stem}")
    main = tmp_path / "main.c"
    main.write_text("int main_entry(void) { return 0; }\n")
    out = tmp_path / "libplugin.so"
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-o", str(out), str(main), f"-L{tmp_path}",
         "-Wl,--no-as-needed", *links],
        check=True,
    )  # fmt: skip
    for name in names:
        (tmp_path / name).unlink()
        (tmp_path / f"lib{name.split('.so.')[0]}.so").unlink()
    return out


@needs_cc
def test_missing_libraries_are_named(tmp_path):
    plugin = _library_needing(tmp_path, ["xcb-uvlabtest-icccm.so.4", "xcb-uvlabtest-keys.so.1"])
    assert missing_libraries(plugin) == [
        "libxcb-uvlabtest-icccm.so.4",
        "libxcb-uvlabtest-keys.so.1",
    ]
    line = xcb_problem(plugin)
    assert "\n" not in line
    assert "libxcb-uvlabtest-icccm.so.4, libxcb-uvlabtest-keys.so.1" in line
    assert "sudo apt install libxcb-uvlabtest-icccm4 libxcb-uvlabtest-keys1" in line
    assert "cursor" not in line


@needs_cc
def test_check_raises_one_line_when_xcb_would_be_used(tmp_path, monkeypatch):
    plugin = _library_needing(tmp_path, ["xcb-uvlabtest-icccm.so.4"])
    monkeypatch.setattr(qt_platform, "xcb_plugin", lambda: plugin)
    env = {"DISPLAY": ":0"}
    if sys.platform.startswith("linux"):
        with pytest.raises(QtPlatformError, match=r"missing libxcb-uvlabtest-icccm\.so\.4"):
            check_xcb(env)
    check_xcb({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"})  # xcb not used: no check


def test_installed_plugin_loads_here():
    """Where the tests run on an X display, the xcb plugin's own dependencies resolve.

    Offscreen (``make test``, CI) Qt never loads xcb, so a machine without its
    libraries (a fresh CI machine) runs the GUI tests all the same.
    """
    plugin = qt_platform.xcb_plugin()
    if not plugin.is_file() or shutil.which("ldd") is None:
        pytest.skip("no xcb plugin or ldd")
    if not will_use_xcb():
        pytest.skip("the tests run offscreen: Qt does not load the xcb plugin here")
    assert missing_libraries(plugin) == []


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"DISPLAY": ":0"}, True),
        ({}, False),
        ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, False),
        ({"QT_QPA_PLATFORM": "xcb"}, True),
        ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}, False),
    ],
)
def test_when_xcb_is_used(env, expected):
    assert will_use_xcb(env) is (expected and sys.platform.startswith("linux"))
