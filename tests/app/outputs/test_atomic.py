"""Atomic outputs: a failed or interrupted write leaves the old file byte for byte, no temp.

Failures are injected in the middle of real writes (half the bytes written,
then ENOSPC or KeyboardInterrupt), the space checks are driven with
``UVLAB_FAKE_FREE_BYTES``, and a real full disk is made with a small tmpfs
(root only; skipped elsewhere).
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.support.cli import run_cli
from uvlab.app.outputs import atomic
from uvlab.app.outputs.atomic import DiskFullError, atomic_path, write_bytes, write_text
from uvlab.app.runtime.diskspace import InsufficientSpaceError
from uvlab.gpu.image_spec import ARCSEC, ImageSpec

OLD = b"the old file \x00\xff keeps every byte\n" * 100


def _old(path: Path) -> Path:
    path.write_bytes(OLD)
    return path


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


def _half_then(exc: BaseException):
    """A writer that puts half of its data in the file, then raises ``exc``."""

    def write(path, data: bytes) -> None:
        with open(path, "wb") as fh:
            fh.write(data[: len(data) // 2])
            fh.flush()
        raise exc

    return write


# ----------------------------------------------------------------- basics
def test_write_text_replaces_and_leaves_no_temp(tmp_path):
    out = _old(tmp_path / "a.json")
    os.chmod(out, 0o640)
    assert write_text(out, '{"new": 1}\n') == out
    assert out.read_text() == '{"new": 1}\n'
    assert stat.S_IMODE(out.stat().st_mode) == 0o640  # the old permission bits stay
    assert _listing(tmp_path) == ["a.json"]
    write_bytes(tmp_path / "b.bin", b"\x00\x01")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"


def test_temp_name_is_beside_and_recognisable(tmp_path):
    tmp = atomic.temp_path_for(tmp_path / "img.fits")
    assert tmp.parent == tmp_path
    assert tmp.name.startswith(f".img.fits.uvlab-tmp-{os.getpid()}-")
    assert tmp.suffix == ".fits"  # libraries that pick the format by extension still do


@pytest.mark.parametrize(
    "exc", [OSError(errno.ENOSPC, "No space left on device"), KeyboardInterrupt()]
)
def test_failure_mid_write_keeps_the_old_file(tmp_path, exc):
    out = _old(tmp_path / "sky.txt")
    with pytest.raises(DiskFullError if isinstance(exc, OSError) else KeyboardInterrupt) as info:
        with atomic_path(out) as tmp:
            _half_then(exc)(tmp, b"x" * 1000)
    assert out.read_bytes() == OLD
    assert _listing(tmp_path) == ["sky.txt"]
    if isinstance(exc, OSError):
        msg = _one_line(str(info.value))
        assert msg.startswith(f"{out}: disk full while writing (")
        assert msg.endswith("the existing file is unchanged")
        assert info.value.errno == errno.ENOSPC


def _half_open(monkeypatch, exc: BaseException) -> None:
    """Make :mod:`uvlab.app.outputs.atomic`'s own ``open`` write half of the text, then raise."""

    class HalfFile:
        def __init__(self, path, *args, **kwargs):
            self.fh = open(path, "wb")

        def write(self, data):
            data = data.encode() if isinstance(data, str) else data
            self.fh.write(data[: len(data) // 2])
            raise exc

        def __enter__(self):
            return self

        def __exit__(self, *exc_info):
            self.fh.close()

    monkeypatch.setattr(atomic, "open", HalfFile, raising=False)


def test_enospc_inside_write_text_and_a_wrapped_one(tmp_path, monkeypatch):
    out = _old(tmp_path / "s.json")
    _half_open(monkeypatch, OSError(errno.ENOSPC, "No space left on device"))
    with pytest.raises(DiskFullError, match=r"s\.json: disk full while writing"):
        write_text(out, "new text " * 100)
    assert out.read_bytes() == OLD and _listing(tmp_path) == ["s.json"]
    monkeypatch.undo()

    # a library that wraps ENOSPC in its own exception: still recognised
    new = tmp_path / "new.png"
    with pytest.raises(DiskFullError, match="nothing was written"):
        with atomic_path(new) as tmp:
            try:
                _half_then(OSError(errno.ENOSPC, "No space left on device"))(tmp, b"y" * 100)
            except OSError as e:
                raise RuntimeError("the library failed") from e
    assert _listing(tmp_path) == ["s.json"]


def test_enospc_on_fsync_rolls_back(tmp_path, monkeypatch):
    """Delayed allocation reports a full disk only when the data are flushed."""
    out = _old(tmp_path / "o.txt")

    def fsync(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    with pytest.raises(DiskFullError):
        write_text(out, "new")
    monkeypatch.undo()
    assert out.read_bytes() == OLD and _listing(tmp_path) == ["o.txt"]


def test_no_overwrite_refuses_before_writing(tmp_path):
    out = _old(tmp_path / "keep.txt")
    before = out.stat().st_mtime_ns
    with pytest.raises(FileExistsError) as info:
        write_text(out, "new", overwrite=False)
    assert _one_line(str(info.value)) == f"{out}: already exists; not overwritten"
    assert out.read_bytes() == OLD and out.stat().st_mtime_ns == before
    assert _listing(tmp_path) == ["keep.txt"]
    # a file that appears while the new one is written is not replaced either
    late = tmp_path / "late.txt"
    with pytest.raises(FileExistsError):
        with atomic_path(late, overwrite=False) as tmp:
            tmp.write_text("mine")
            late.write_bytes(OLD)
    assert late.read_bytes() == OLD
    assert _listing(tmp_path) == ["keep.txt", "late.txt"]
    write_text(tmp_path / "fresh.txt", "ok", overwrite=False)
    assert (tmp_path / "fresh.txt").read_text() == "ok"


def test_stale_temp_of_a_dead_pid_is_removed_live_one_kept(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # reaped: its pid is free
    live = subprocess.Popen(["sleep", "30"])
    try:
        out = tmp_path / "img.fits"
        stale = tmp_path / f".img.fits.uvlab-tmp-{dead.pid}-0a1b2c3d.fits"
        running = tmp_path / f".img.fits.uvlab-tmp-{live.pid}-0a1b2c3d.fits"
        other = tmp_path / f".psf.fits.uvlab-tmp-{dead.pid}-0a1b2c3d.fits"
        for p in (stale, running, other):
            p.write_bytes(b"half")
        assert atomic.stale_temps(out) == [stale]
        write_bytes(out, b"new")
        assert out.read_bytes() == b"new"
        assert not stale.exists() and running.exists() and other.exists()
    finally:
        live.kill()
        live.wait()


def test_sigkilled_writer_leaves_old_file_and_next_write_cleans_up(tmp_path):
    out = _old(tmp_path / "o.bin")
    code = (
        "import time\n"
        "from uvlab.app.outputs.atomic import atomic_path\n"
        f"with atomic_path({str(out)!r}) as tmp:\n"
        "    tmp.write_bytes(b'half of it')\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(60)\n"
    )
    writer = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "writing"
    finally:
        writer.kill()
        writer.wait()
        writer.stdout.close()
    left = [n for n in _listing(tmp_path) if n != "o.bin"]
    assert len(left) == 1 and left[0].startswith(f".o.bin.uvlab-tmp-{writer.pid}-")
    assert out.read_bytes() == OLD
    write_bytes(out, b"new")
    assert out.read_bytes() == b"new" and _listing(tmp_path) == ["o.bin"]


def test_symlink_is_refused_and_folder_refused(tmp_path):
    # A planted link (issue 25, U6): neither the file it points to nor the link changes;
    # the output set's tests (tests/app/outputs/test_outputs_safety.py) cover the rest.
    real = _old(tmp_path / "real.txt")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with pytest.raises(OSError, match=r"link\.txt: is a symbolic link") as info:
        write_text(link, "via link")
    assert str(info.value).count("\n") == 0
    assert link.is_symlink() and real.read_bytes() == OLD
    assert sorted(_listing(tmp_path)) == ["link.txt", "real.txt"]
    with pytest.raises(IsADirectoryError, match="is a folder"):
        write_text(tmp_path, "x")


def test_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_text(fifo, "streamed")
        assert os.read(reader, 100) == b"streamed"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.stat().st_mode) and _listing(tmp_path) == ["pipe"]


# ------------------------------------------------------ FITS, PNG, sky, JSON
def _fits(path, npix=16, overwrite=True):
    from uvlab.app.outputs.fits_io import write_image_fits

    img = np.arange(npix * npix, dtype=float).reshape(npix, npix)
    spec = ImageSpec(npix, 2.0 * ARCSEC)
    return write_image_fits(path, img, spec, 10.0, -30.0, freq_hz=1.4e9, overwrite=overwrite)


@pytest.mark.parametrize("exc", [OSError(errno.ENOSPC, "No space left"), KeyboardInterrupt()])
def test_fits_write_interrupted_keeps_old(tmp_path, monkeypatch, exc):
    from astropy.io import fits

    out = _old(tmp_path / "dirty.fits")

    def writeto(self, name, **kwargs):
        _half_then(exc)(name, b"SIMPLE  =                    T" + b" " * 3000)

    monkeypatch.setattr(fits.PrimaryHDU, "writeto", writeto)
    with pytest.raises(DiskFullError if isinstance(exc, OSError) else KeyboardInterrupt):
        _fits(out)
    assert out.read_bytes() == OLD and _listing(tmp_path) == ["dirty.fits"]


def test_fits_size_estimate_is_the_file_size(tmp_path):
    from astropy.io import fits

    from uvlab.app.outputs.fits_io import fits_size, image_fits_bytes

    path = _fits(tmp_path / "x.fits", npix=64)
    with fits.open(path) as hdul:
        assert fits_size(hdul[0]) == path.stat().st_size
    assert image_fits_bytes(64) >= path.stat().st_size
    with pytest.raises(FileExistsError):
        _fits(path, overwrite=False)


def test_fits_and_png_space_checks_refuse(tmp_path, monkeypatch):
    from uvlab.app.outputs.report import pyplot, save_figure

    fits_out, png_out = _old(tmp_path / "x.fits"), _old(tmp_path / "x.png")
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", "1000")
    with pytest.raises(InsufficientSpaceError) as info:
        _fits(fits_out)
    msg = _one_line(str(info.value))
    assert msg.startswith(f"{fits_out}: not enough disk space") and "1000 B free" in msg
    plt = pyplot()
    fig = plt.figure(figsize=(2, 1))
    with pytest.raises(InsufficientSpaceError, match=r"x\.png: not enough disk space"):
        save_figure(fig, png_out, dpi=50)
    plt.close(fig)
    assert fits_out.read_bytes() == OLD and png_out.read_bytes() == OLD
    assert _listing(tmp_path) == ["x.fits", "x.png"]


def test_savefig_interrupted_keeps_old_png(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    from uvlab.app.outputs.report import pyplot, save_figure

    out = _old(tmp_path / "p.png")

    def savefig(self, name, **kwargs):
        _half_then(KeyboardInterrupt())(name, b"\x89PNG" + b"\x00" * 1000)

    plt = pyplot()
    fig = plt.figure(figsize=(2, 1))
    monkeypatch.setattr(Figure, "savefig", savefig)
    with pytest.raises(KeyboardInterrupt):
        save_figure(fig, out, dpi=50)
    plt.close(fig)
    assert out.read_bytes() == OLD and _listing(tmp_path) == ["p.png"]


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

    _old(out)
    with pytest.raises(OSError, match=r"shot\.png: could not write the PNG image"):
        save_qimage(Broken(), out)
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", "100")
    with pytest.raises(InsufficientSpaceError, match=r"shot\.png: not enough disk space"):
        save_qimage(image, out)
    assert out.read_bytes() == OLD and _listing(tmp_path) == ["shot.png"]


def test_sky_writer_and_session_are_atomic(tmp_path, monkeypatch):
    from uvlab.app.lab.session import default_session, save_session
    from uvlab.app.skymodel import demo_sky, read_sky, write_sky

    sky, session = _old(tmp_path / "sky.txt"), _old(tmp_path / "s.uvlab.json")
    model = demo_sky("random", 10.0, -20.0, n=5, seed=1)
    _half_open(monkeypatch, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        write_sky(model, sky)
    with pytest.raises(KeyboardInterrupt):
        save_session(default_session(), session)
    monkeypatch.undo()
    assert sky.read_bytes() == OLD and session.read_bytes() == OLD
    assert _listing(tmp_path) == ["s.uvlab.json", "sky.txt"]
    with pytest.raises(FileExistsError):
        write_sky(model, sky, overwrite=False)
    write_sky(model, sky)
    assert read_sky(sky) == model


# ------------------------------------------------------------------- CLI
def test_sky_convert_refused_on_a_full_disk_keeps_output(tmp_path, monkeypatch):
    out = tmp_path / "out.txt"
    assert run_cli("sky", "convert", "random", out, "--n", "3")[0] == 0
    before = out.read_bytes()
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", "1000")
    code, _, err = run_cli("sky", "convert", "random", out, "--force", "--n", "4")
    assert code == 1
    line = _one_line(err)
    assert line.startswith(f"uvlab sky: error: {out}: not enough disk space for the sky model")
    assert out.read_bytes() == before and _listing(tmp_path) == ["out.txt"]


@pytest.fixture(scope="module")
def small_ms(tmp_path_factory):
    from tests.support.ms_factory import make_ms

    path = tmp_path_factory.mktemp("atomic-ms") / "m.ms"
    make_ms(path, np.random.default_rng(3), ntime=2)
    return path


def test_image_refused_on_a_full_disk_keeps_outputs(tmp_path, monkeypatch, small_ms):
    prefix = tmp_path / "img"
    old = [_old(Path(f"{prefix}{s}")) for s in ("-dirty.fits", "-psf.fits", ".png")]
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", "1000")
    code, out, err = run_cli(
        "image", "--ms", small_ms, "--npix", 64, "--device", "cpu", "--out", prefix, "--force"
    )
    assert code == 1 and "wrote" not in out
    line = _one_line(err)
    assert line.startswith(f"uvlab image: error: {prefix}-dirty.fits: not enough disk space")
    assert "1000 B free" in line
    assert all(p.read_bytes() == OLD for p in old)
    assert _listing(tmp_path) == sorted(p.name for p in old)


# ------------------------------------------------- a real full disk (tmpfs)
@pytest.fixture
def small_disk(tmp_path):
    """A 96 KiB tmpfs (needs root and mount; skipped otherwise), unmounted afterwards."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    try:
        r = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(disk)],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot mount a tmpfs: {exc}")
    if r.returncode:
        pytest.skip(f"cannot mount a tmpfs: {r.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True, timeout=10)


def test_real_enospc_sky_convert_force(small_disk, monkeypatch):
    out = small_disk / "sky.txt"
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", str(2**40))  # past the 16 MiB margin
    assert run_cli("sky", "convert", "random", out, "--n", "3")[0] == 0
    before = out.read_bytes()
    big = ("sky", "convert", "random", out, "--force", "--n", "2000")
    # the real free space (< 96 KiB): refused before writing
    monkeypatch.delenv("UVLAB_FAKE_FREE_BYTES")
    code, _, err = run_cli(*big)
    assert code == 1 and "not enough disk space" in _one_line(err)
    assert out.read_bytes() == before and _listing(small_disk) == ["sky.txt"]
    # the check fooled: the disk really fills up mid-write and the write rolls back
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", str(2**40))
    code, _, err = run_cli(*big)
    assert code == 1
    line = _one_line(err)
    assert line.startswith(f"uvlab sky: error: {out}: disk full while writing (")
    assert line.endswith("the existing file is unchanged")
    assert out.read_bytes() == before and _listing(small_disk) == ["sky.txt"]


def test_real_enospc_fits_write(small_disk, monkeypatch):
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", str(2**40))  # past the 16 MiB margin
    out = _fits(small_disk / "dirty.fits", npix=16)
    before = out.read_bytes()
    monkeypatch.delenv("UVLAB_FAKE_FREE_BYTES")
    with pytest.raises(InsufficientSpaceError):
        _fits(out, npix=256)
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", str(2**40))
    with pytest.raises(DiskFullError) as info:
        _fits(out, npix=256)  # 256 KiB of data on a 96 KiB disk
    assert _one_line(str(info.value)).startswith(f"{out}: disk full while writing")
    assert out.read_bytes() == before and _listing(small_disk) == ["dirty.fits"]
    # and a new file that does not fit leaves nothing behind
    with pytest.raises(DiskFullError, match="nothing was written"):
        _fits(small_disk / "psf.fits", npix=256)
    assert _listing(small_disk) == ["dirty.fits"]
