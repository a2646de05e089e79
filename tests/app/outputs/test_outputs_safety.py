"""Output files and sets (issue 25, U6 and the cancelled ``image``).

- a symbolic link at an output name is refused, dangling or not, and nothing is
  written through it (``image``, ``sky convert``, ``simulate``, atomic writes);
- ``image``, ``compare`` and ``demo`` refuse an existing output before any work
  unless ``--force`` (exit 2, one line naming the file and ``--force``);
- the files of one run are renamed into place as a set: a signal before the
  renames leaves the old set byte for byte, one between them the new set whole,
  a failure between them puts the old files back.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.support.cli import run_cli
from tests.support.paths import REPO
from uvlab.app.outputs.atomic import SymlinkRefusedError, write_text
from uvlab.app.outputs.output_set import output_set

OLD = b"old output \x00\xff\n" * 50
IMAGE_SET = ("-dirty.fits", "-psf.fits", "-timing.json", ".png")


@pytest.fixture(scope="module")
def small_ms(tmp_path_factory):
    from tests.support.ms_factory import make_ms

    path = tmp_path_factory.mktemp("outputs-ms") / "m.ms"
    make_ms(path, np.random.default_rng(3), ntime=2)
    return path


def _image(ms, prefix, *extra):
    return run_cli("image", "--ms", ms, "--npix", 32, "--device", "cpu", *extra, "--out", prefix)


def _one_line(err: str) -> str:
    assert err.endswith("\n") and err.count("\n") == 1, err
    return err.strip()


def _no_work(monkeypatch):
    """Fail the test if a command reads or runs anything."""
    from uvlab.app.commands import image
    from uvlab.app.lab import live

    def refuse(*a, **k):
        raise AssertionError("work started before the outputs were checked")

    monkeypatch.setattr(image, "read_selected", refuse)
    monkeypatch.setattr(live, "run_job", refuse)


# ------------------------------------------------------------------ symlinks
def test_image_refuses_a_symlink_at_an_output_name(tmp_path, small_ms, monkeypatch):
    _no_work(monkeypatch)
    victim = tmp_path / "victim.fits"
    victim.write_bytes(OLD)
    link = tmp_path / "p-psf.fits"
    link.symlink_to(victim)
    for extra in ((), ("--force",)):  # --force does not make a link writable
        code, out, err = _image(small_ms, tmp_path / "p", *extra)
        assert code == 2 and out == ""
        assert _one_line(err) == (
            f"uvlab image: error: {link}: is a symbolic link; uvlab does not write through "
            "links (remove it or choose another name)"
        )
    assert victim.read_bytes() == OLD and link.is_symlink()
    assert sorted(os.listdir(tmp_path)) == ["p-psf.fits", "victim.fits"]


def test_a_dangling_link_creates_nothing_elsewhere(tmp_path):
    from tests.support.cli import write_sky

    sky = write_sky(tmp_path / "in.txt", [("s", 10.0, 20.0, 1, 0, 0, 0)])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "out.txt"
    link.symlink_to(elsewhere / "planted.txt")
    code, _, err = run_cli("sky", "convert", sky, link)
    assert code != 0 and "is a symbolic link" in _one_line(err)
    assert os.listdir(elsewhere) == [] and link.is_symlink()
    with pytest.raises(SymlinkRefusedError):
        write_text(link, "x", overwrite=False)
    assert os.listdir(elsewhere) == []


def test_simulate_refuses_a_symlinked_ms_name(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "a.ms"
    link.symlink_to(elsewhere / "b.ms")
    code, _, err = run_cli("simulate", "--array", "kat-7", "--ra", 45, "--dec", -50,
                           "--ha-start", -0.1, "--ha-stop", 0.1, "--nchan", 1, "--device", "cpu",
                           "--sky", "point", "--out", link)  # fmt: skip
    assert code == 1 and "is a symbolic link" in _one_line(err)
    assert os.listdir(elsewhere) == [] and sorted(os.listdir(tmp_path)) == ["a.ms", "elsewhere"]


# -------------------------------------------------------------------- --force
@pytest.mark.parametrize("suffix", [*IMAGE_SET, "-model.fits", "-image-pb.fits"])
def test_image_refuses_any_existing_output_up_front(tmp_path, small_ms, monkeypatch, suffix):
    _no_work(monkeypatch)
    old = tmp_path / f"p{suffix}"
    old.write_bytes(OLD)
    code, out, err = _image(small_ms, tmp_path / "p")
    assert code == 2 and out == ""
    assert _one_line(err) == (
        f"uvlab image: error: {old}: already exists; pass --force to overwrite it"
    )
    assert old.read_bytes() == OLD and os.listdir(tmp_path) == [old.name]


def test_compare_and_demo_refuse_existing_outputs_up_front(tmp_path, monkeypatch):
    _no_work(monkeypatch)
    (tmp_path / "metrics.json").write_bytes(OLD)
    code, _, err = run_cli("compare", "--array", "kat-7", "--ra", 45, "--dec", -50,
                           "--sky", "point", "--algorithms", "conv", "--npix", 32,
                           "--out", tmp_path)  # fmt: skip
    assert code == 2
    assert _one_line(err).endswith(f"{tmp_path / 'metrics.json'}: already exists; pass --force "
                                   "to overwrite it")  # fmt: skip
    demo = tmp_path / "demo"
    demo.mkdir()
    (demo / "overview.png").write_bytes(OLD)
    code, _, err = run_cli("demo", "--out", demo, "--npix", 32, "--device", "cpu")
    assert code == 2 and f"{demo / 'overview.png'}: already exists; pass --force" in err
    assert (tmp_path / "metrics.json").read_bytes() == OLD
    assert (demo / "overview.png").read_bytes() == OLD and os.listdir(demo) == ["overview.png"]


def test_image_force_replaces_the_whole_set(tmp_path, small_ms):
    prefix = tmp_path / "p"
    assert _image(small_ms, prefix)[0] == 0
    assert sorted(os.listdir(tmp_path)) == sorted(f"p{s}" for s in IMAGE_SET)
    for s in IMAGE_SET:
        Path(f"{prefix}{s}").write_bytes(OLD)
    code, _, err = _image(small_ms, prefix, "--no-png", "--force")
    assert code == 0, err
    # the PNG of the old set is not left beside the new FITS
    assert sorted(os.listdir(tmp_path)) == sorted(f"p{s}" for s in IMAGE_SET if s != ".png")
    assert all(Path(f"{prefix}{s}").read_bytes() != OLD for s in IMAGE_SET if s != ".png")


# ------------------------------------------------------------ sets on cancel
def _image_subprocess(ms, prefix, npix, fault):
    env = {k: v for k, v in os.environ.items() if k != "UVLAB_FAULT"}
    env["UVLAB_FAULT"] = fault
    cmd = [sys.executable, "-m", "uvlab.app", "image", "--ms", str(ms), "--npix", str(npix),
           "--device", "cpu", "--force", "--out", str(prefix)]  # fmt: skip
    return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


def _npix(path) -> int:
    from astropy.io import fits

    return int(fits.getheader(path)["NAXIS1"])


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_a_signal_between_the_renames_leaves_the_new_set_whole(tmp_path, small_ms, sig):
    prefix = tmp_path / "p"
    assert _image(small_ms, prefix)[0] == 0  # the old set: 32² images
    old_png = Path(f"{prefix}.png").read_bytes()
    r = _image_subprocess(small_ms, prefix, 64, f"outputs-renamed:{sig}")
    assert r.returncode == 128 + getattr(signal, sig), r.stderr
    assert r.stderr.count("\n") == 1 and f"interrupted ({sig})" in r.stderr
    assert sorted(os.listdir(tmp_path)) == sorted(f"p{s}" for s in IMAGE_SET)
    assert _npix(f"{prefix}-dirty.fits") == _npix(f"{prefix}-psf.fits") == 64
    assert '"npix": 64' in Path(f"{prefix}-timing.json").read_text()
    assert Path(f"{prefix}.png").read_bytes() != old_png


def test_a_signal_before_the_renames_leaves_the_old_set(tmp_path, small_ms):
    prefix = tmp_path / "p"
    assert _image(small_ms, prefix)[0] == 0
    before = {s: Path(f"{prefix}{s}").read_bytes() for s in IMAGE_SET}
    r = _image_subprocess(small_ms, prefix, 64, "outputs-staged:SIGTERM")
    assert r.returncode == 143, r.stderr
    assert r.stderr.count("\n") == 1 and "interrupted (SIGTERM)" in r.stderr
    assert sorted(os.listdir(tmp_path)) == sorted(f"p{s}" for s in IMAGE_SET)
    assert all(Path(f"{prefix}{s}").read_bytes() == b for s, b in before.items())


# ------------------------------------------------------------- output_set
def test_a_failed_rename_puts_the_old_files_back(tmp_path, monkeypatch):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(OLD)
    b.write_bytes(OLD)
    real = os.replace
    calls = []

    def replace(src, dst):
        calls.append(dst)
        if Path(dst) == b:
            raise OSError(5, "Input/output error", str(dst))
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match="Input/output"):
        with output_set():
            write_text(a, "new a")
            write_text(b, "new b")
    assert a.read_bytes() == OLD and b.read_bytes() == OLD  # a was renamed, then put back
    assert Path(calls[0]) == a and sorted(os.listdir(tmp_path)) == ["a.txt", "b.txt"]


def test_a_file_that_appears_meanwhile_is_not_replaced(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    with pytest.raises(FileExistsError, match=r"b\.txt: already exists"):
        with output_set(overwrite=False):
            write_text(a, "new a")
            write_text(b, "new b")
            b.write_bytes(OLD)  # another process, after the check, before the renames
    assert os.listdir(tmp_path) == ["b.txt"] and b.read_bytes() == OLD


def test_a_failure_inside_the_block_changes_nothing(tmp_path):
    a = tmp_path / "a.txt"
    a.write_bytes(OLD)
    with pytest.raises(RuntimeError, match="the PNG failed"):
        with output_set():
            write_text(a, "new a")
            raise RuntimeError("the PNG failed")
    assert os.listdir(tmp_path) == ["a.txt"] and a.read_bytes() == OLD
