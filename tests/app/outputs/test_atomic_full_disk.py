"""A full disk from the command line: refused before writing, or rolled back mid-write.

The space checks are driven with ``UVLAB_FAKE_FREE_BYTES``; a real full disk is a small
tmpfs (root only; skipped elsewhere).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.support.atomic_files import (
    OLD,
    listing,
    old_file,
    one_line,
    write_fits,
)
from tests.support.cli import run_cli
from uvlab.app.outputs.atomic import DiskFullError
from uvlab.app.runtime.diskspace import InsufficientSpaceError


def test_sky_convert_refused_on_a_full_disk_keeps_output(tmp_path, monkeypatch):
    out = tmp_path / "out.txt"
    assert run_cli("sky", "convert", "random", out, "--n", "3")[0] == 0
    before = out.read_bytes()
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", "1000")
    code, _, err = run_cli("sky", "convert", "random", out, "--force", "--n", "4")
    assert code == 1
    line = one_line(err)
    assert line.startswith(f"uvlab sky: error: {out}: not enough disk space for the sky model")
    assert out.read_bytes() == before and listing(tmp_path) == ["out.txt"]


@pytest.fixture(scope="module")
def small_ms(tmp_path_factory):
    from tests.support.ms_factory import make_ms

    path = tmp_path_factory.mktemp("atomic-ms") / "m.ms"
    make_ms(path, np.random.default_rng(3), ntime=2)
    return path


def test_image_refused_on_a_full_disk_keeps_outputs(tmp_path, monkeypatch, small_ms):
    prefix = tmp_path / "img"
    old = [old_file(Path(f"{prefix}{s}")) for s in ("-dirty.fits", "-psf.fits", ".png")]
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", "1000")
    code, out, err = run_cli(
        "image", "--ms", small_ms, "--npix", 64, "--device", "cpu", "--out", prefix, "--force"
    )
    assert code == 1 and "wrote" not in out
    line = one_line(err)
    assert line.startswith(f"uvlab image: error: {prefix}-dirty.fits: not enough disk space")
    assert "1000 B free" in line
    assert all(p.read_bytes() == OLD for p in old)
    assert listing(tmp_path) == sorted(p.name for p in old)


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
    assert code == 1 and "not enough disk space" in one_line(err)
    assert out.read_bytes() == before and listing(small_disk) == ["sky.txt"]
    # the check fooled: the disk really fills up mid-write and the write rolls back
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", str(2**40))
    code, _, err = run_cli(*big)
    assert code == 1
    line = one_line(err)
    assert line.startswith(f"uvlab sky: error: {out}: disk full while writing (")
    assert line.endswith("the existing file is unchanged")
    assert out.read_bytes() == before and listing(small_disk) == ["sky.txt"]


def test_real_enospc_fits_write(small_disk, monkeypatch):
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", str(2**40))  # past the 16 MiB margin
    out = write_fits(small_disk / "dirty.fits", npix=16)
    before = out.read_bytes()
    monkeypatch.delenv("UVLAB_FAKE_FREE_BYTES")
    with pytest.raises(InsufficientSpaceError):
        write_fits(out, npix=256)
    monkeypatch.setenv("UVLAB_FAKE_FREE_BYTES", str(2**40))
    with pytest.raises(DiskFullError) as info:
        write_fits(out, npix=256)  # 256 KiB of data on a 96 KiB disk
    assert one_line(str(info.value)).startswith(f"{out}: disk full while writing")
    assert out.read_bytes() == before and listing(small_disk) == ["dirty.fits"]
    # and a new file that does not fit leaves nothing behind
    with pytest.raises(DiskFullError, match="nothing was written"):
        write_fits(small_disk / "psf.fits", npix=256)
    assert listing(small_disk) == ["dirty.fits"]
