"""Atomic outputs: a failed or interrupted write leaves the old file byte for byte, no temp.

Failures are injected in the middle of real writes (half the bytes written, then ENOSPC
or KeyboardInterrupt). Each format's writer is tested in test_atomic_formats.py, a full
disk from the command line in test_atomic_full_disk.py.
"""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys

import pytest

from tests.support.atomic_files import OLD, half_open, half_then, listing, old_file, one_line
from uvlab.app.outputs import atomic
from uvlab.app.outputs.atomic import DiskFullError, atomic_path, write_bytes, write_text


def test_write_text_replaces_and_leaves_no_temp(tmp_path):
    out = old_file(tmp_path / "a.json")
    os.chmod(out, 0o640)
    assert write_text(out, '{"new": 1}\n') == out
    assert out.read_text() == '{"new": 1}\n'
    assert stat.S_IMODE(out.stat().st_mode) == 0o640  # the old permission bits stay
    assert listing(tmp_path) == ["a.json"]
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
    out = old_file(tmp_path / "sky.txt")
    with pytest.raises(DiskFullError if isinstance(exc, OSError) else KeyboardInterrupt) as info:
        with atomic_path(out) as tmp:
            half_then(exc)(tmp, b"x" * 1000)
    assert out.read_bytes() == OLD
    assert listing(tmp_path) == ["sky.txt"]
    if isinstance(exc, OSError):
        msg = one_line(str(info.value))
        assert msg.startswith(f"{out}: disk full while writing (")
        assert msg.endswith("the existing file is unchanged")
        assert info.value.errno == errno.ENOSPC


def test_enospc_inside_write_text_and_a_wrapped_one(tmp_path, monkeypatch):
    out = old_file(tmp_path / "s.json")
    half_open(monkeypatch, OSError(errno.ENOSPC, "No space left on device"))
    with pytest.raises(DiskFullError, match=r"s\.json: disk full while writing"):
        write_text(out, "new text " * 100)
    assert out.read_bytes() == OLD and listing(tmp_path) == ["s.json"]
    monkeypatch.undo()

    # a library that wraps ENOSPC in its own exception: still recognised
    new = tmp_path / "new.png"
    with pytest.raises(DiskFullError, match="nothing was written"):
        with atomic_path(new) as tmp:
            try:
                half_then(OSError(errno.ENOSPC, "No space left on device"))(tmp, b"y" * 100)
            except OSError as e:
                raise RuntimeError("the library failed") from e
    assert listing(tmp_path) == ["s.json"]


def test_enospc_on_fsync_rolls_back(tmp_path, monkeypatch):
    """Delayed allocation reports a full disk only when the data are flushed."""
    out = old_file(tmp_path / "o.txt")

    def fsync(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    with pytest.raises(DiskFullError):
        write_text(out, "new")
    monkeypatch.undo()
    assert out.read_bytes() == OLD and listing(tmp_path) == ["o.txt"]


def test_no_overwrite_refuses_before_writing(tmp_path):
    out = old_file(tmp_path / "keep.txt")
    before = out.stat().st_mtime_ns
    with pytest.raises(FileExistsError) as info:
        write_text(out, "new", overwrite=False)
    assert one_line(str(info.value)) == f"{out}: already exists; not overwritten"
    assert out.read_bytes() == OLD and out.stat().st_mtime_ns == before
    assert listing(tmp_path) == ["keep.txt"]
    # a file that appears while the new one is written is not replaced either
    late = tmp_path / "late.txt"
    with pytest.raises(FileExistsError):
        with atomic_path(late, overwrite=False) as tmp:
            tmp.write_text("mine")
            late.write_bytes(OLD)
    assert late.read_bytes() == OLD
    assert listing(tmp_path) == ["keep.txt", "late.txt"]
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
    out = old_file(tmp_path / "o.bin")
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
    left = [n for n in listing(tmp_path) if n != "o.bin"]
    assert len(left) == 1 and left[0].startswith(f".o.bin.uvlab-tmp-{writer.pid}-")
    assert out.read_bytes() == OLD
    write_bytes(out, b"new")
    assert out.read_bytes() == b"new" and listing(tmp_path) == ["o.bin"]


def test_symlink_is_refused_and_folder_refused(tmp_path):
    # A planted link (issue 25, U6): neither the file it points to nor the link changes;
    # the output set's tests (tests/app/outputs/test_outputs_safety.py) cover the rest.
    real = old_file(tmp_path / "real.txt")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with pytest.raises(OSError, match=r"link\.txt: is a symbolic link") as info:
        write_text(link, "via link")
    assert str(info.value).count("\n") == 0
    assert link.is_symlink() and real.read_bytes() == OLD
    assert sorted(listing(tmp_path)) == ["link.txt", "real.txt"]
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
    assert stat.S_ISFIFO(fifo.stat().st_mode) and listing(tmp_path) == ["pipe"]
