"""Atomic outputs of each format: FITS, PNG (Matplotlib and Qt), sky models and sessions.

A failed or interrupted write (half the bytes, then ENOSPC or KeyboardInterrupt) leaves
the old file byte for byte and no temp; the space checks refuse before writing
(``UVLAB_FAKE_FREE_BYTES``).
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from tests.support.atomic_files import (
    OLD,
    half_open,
    half_then,
    listing,
    old_file,
    one_line,
    write_fits,
)
from uvlab.app.outputs.atomic import DiskFullError
from uvlab.app.runtime.diskspace import InsufficientSpaceError


@pytest.mark.parametrize("exc", [OSError(errno.ENOSPC, "No space left"), KeyboardInterrupt()])
def test_fits_write_interrupted_keeps_old(tmp_path, monkeypatch, exc):
    from astropy.io import fits

    out = old_file(tmp_path / "dirty.fits")

    def writeto(self, name, **kwargs):
        half_then(exc)(name, b"SIMPLE  =                    T" + b" " * 3000)

    monkeypatch.setattr(fits.PrimaryHDU, "writeto", writeto)
    with pytest.raises(DiskFullError if isinstance(exc, OSError) else KeyboardInterrupt):
        write_fits(out)
    assert out.read_bytes() == OLD and listing(tmp_path) == ["dirty.fits"]


def test_fits_size_estimate_is_the_file_size(tmp_path):
    from astropy.io import fits

    from uvlab.app.outputs.fits_io import fits_size, image_fits_bytes

    path = write_fits(tmp_path / "x.fits", npix=64)
    with fits.open(path) as hdul:
        assert fits_size(hdul[0]) == path.stat().st_size
    assert image_fits_bytes(64) >= path.stat().st_size
    with pytest.raises(FileExistsError):
        write_fits(path, overwrite=False)


def test_fits_and_png_space_checks_refuse(tmp_path, monkeypatch):
    from uvlab.app.outputs.report import pyplot, save_figure

    fits_out, png_out = old_file(tmp_path / "x.fits"), old_file(tmp_path / "x.png")
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", "1000")
    with pytest.raises(InsufficientSpaceError) as info:
        write_fits(fits_out)
    msg = one_line(str(info.value))
    assert msg.startswith(f"{fits_out}: not enough disk space") and "1000 B free" in msg
    plt = pyplot()
    fig = plt.figure(figsize=(2, 1))
    with pytest.raises(InsufficientSpaceError, match=r"x\.png: not enough disk space"):
        save_figure(fig, png_out, dpi=50)
    plt.close(fig)
    assert fits_out.read_bytes() == OLD and png_out.read_bytes() == OLD
    assert listing(tmp_path) == ["x.fits", "x.png"]


def test_savefig_interrupted_keeps_old_png(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    from uvlab.app.outputs.report import pyplot, save_figure

    out = old_file(tmp_path / "p.png")

    def savefig(self, name, **kwargs):
        half_then(KeyboardInterrupt())(name, b"\x89PNG" + b"\x00" * 1000)

    plt = pyplot()
    fig = plt.figure(figsize=(2, 1))
    monkeypatch.setattr(Figure, "savefig", savefig)
    with pytest.raises(KeyboardInterrupt):
        save_figure(fig, out, dpi=50)
    plt.close(fig)
    assert out.read_bytes() == OLD and listing(tmp_path) == ["p.png"]


def test_save_qimage_writes_png_and_rolls_back(qapp, tmp_path, monkeypatch):
    from PyQt6 import QtGui

    from uvlab.app.outputs.atomic import save_qimage

    image = QtGui.QImage(40, 30, QtGui.QImage.Format.Format_RGB32)
    image.fill(0x336699)
    out = save_qimage(image, tmp_path / "shot.png")
    assert QtGui.QImage(str(out)).size() == image.size()

    class Broken:
        def width(self):
            return 40

        def height(self):
            return 30

        def save(self, name, fmt):
            Path(name).write_bytes(b"\x89PNG half")
            return False

    old_file(out)
    with pytest.raises(OSError, match=r"shot\.png: could not write the PNG image"):
        save_qimage(Broken(), out)
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", "100")
    with pytest.raises(InsufficientSpaceError, match=r"shot\.png: not enough disk space"):
        save_qimage(image, out)
    assert out.read_bytes() == OLD and listing(tmp_path) == ["shot.png"]


def test_sky_writer_and_session_are_atomic(tmp_path, monkeypatch):
    from uvlab.app.lab.session import default_session, save_session
    from uvlab.app.skymodel import demo_sky, read_sky, write_sky

    sky, session = old_file(tmp_path / "sky.txt"), old_file(tmp_path / "s.uvlab.json")
    model = demo_sky("random", 10.0, -20.0, n=5, seed=1)
    half_open(monkeypatch, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        write_sky(model, sky)
    with pytest.raises(KeyboardInterrupt):
        save_session(default_session(), session)
    monkeypatch.undo()
    assert sky.read_bytes() == OLD and session.read_bytes() == OLD
    assert listing(tmp_path) == ["s.uvlab.json", "sky.txt"]
    with pytest.raises(FileExistsError):
        write_sky(model, sky, overwrite=False)
    write_sky(model, sky)
    assert read_sky(sky) == model
