"""Work that would not fit in the available memory is refused first (uvlab.app.runtime.memory)."""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.memory import GiB, MiB, fake_memory
from tests.support.paths import TEST_DATA
from uvlab.app.runtime.memory import InsufficientMemoryError, check_memory
from uvlab.app.runtime.memory_limits import available_memory

UVLAB = str(Path(sys.executable).parent / "uvlab")


def test_nothing_known_refuses_nothing(tmp_path, monkeypatch):
    import uvlab.app.runtime.memory_limits as limits

    monkeypatch.setattr(limits, "PROC_ROOT", str(tmp_path / "proc"))  # empty: nothing known
    monkeypatch.setattr(limits, "SYS_ROOT", str(tmp_path / "sys"))
    monkeypatch.setattr(limits, "_address_space", lambda proc_root, rlimit_as: None)
    assert available_memory() is None
    check_memory(2.0**60, "anything")


def test_refusal_names_the_binding_limit(tmp_path, monkeypatch):
    fake_memory(monkeypatch, tmp_path, mem_available=16 * GiB, cgroup_limit=GiB)
    assert available_memory().limit == "cgroup limit"
    check_memory(800 * MiB, "a small job")
    msg = (
        r"^a big job needs about 2\.0 GiB, but only 1\.0 GiB of memory is available \(cgroup limit"
    )
    with pytest.raises(InsufficientMemoryError, match=msg):
        check_memory(2 * GiB, "a big job")


def _vm_size_after_imports(env) -> int:
    """VmSize (bytes) of a Python that imported what ``uvlab image`` needs before its check."""
    code = (
        "import uvlab.app.cli, uvlab.app.commands.image, uvlab.app.ms, casacore.tables\n"
        "import uvlab.gpu.gridders.registry, uvlab.gpu.image_spec, uvlab.app.runtime.memory\n"
        "print(open('/proc/self/status').read().split('VmSize:')[1].split()[0])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return int(out.stdout) * 1024


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc: Linux")
def test_image_under_a_real_rlimit_as_is_refused_not_killed(tmp_path):
    ms = tmp_path / "l.ms"
    shutil.copytree(TEST_DATA / "lwasv_4ant.ms", ms)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    limit = _vm_size_after_imports(env) + GiB  # room to import and read, not for 8192² images

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    argv = [
        UVLAB,
        "image",
        "--ms",
        ms,
        "--npix",
        "8192",
        "--device",
        "cpu",
        "--out",
        tmp_path / "x",
    ]
    out = subprocess.run(argv, capture_output=True, text=True, env=env, preexec_fn=cap, timeout=120)
    assert out.returncode == 1, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr
    assert re.search(
        r"^uvlab image: error: a 8192² image of .* needs about [0-9.]+ GiB \(grid .*\), but "
        r"only [0-9.]+ [MG]iB of memory is available \(address-space limit, ulimit -v\); ",
        lines[0],
    ), lines[0]
    assert not list(tmp_path.glob("x*"))


def test_a_scene_too_large_for_memory_is_refused_before_simulating(tmp_path, monkeypatch):
    from dataclasses import replace

    import uvlab.app.observing.observation as observation
    from uvlab.app.lab.live import run_job
    from uvlab.app.lab.session import DEFAULT_SESSION

    fake_memory(monkeypatch, tmp_path, cgroup_limit=GiB)

    def refuse(spec):
        raise AssertionError("the observation was simulated before the size check")

    monkeypatch.setattr(observation, "simulate_observation", refuse)
    scene = replace(DEFAULT_SESSION, observation=replace(DEFAULT_SESSION.observation, nchan=4096))
    with pytest.raises(InsufficientMemoryError, match=r"^this observation \(\d+ integ") as e:
        run_job(scene.job_request(device="cpu", preview=False, threads=0))
    assert "× 4096 channels, 5 sources)" in str(e.value) and "(cgroup limit)" in str(e.value)
