"""Fake /proc and /sys trees for the memory checks (uvlab.app.runtime.memory_limits).

:func:`fake_memory` writes a tree in which free memory and a cgroup v2 limit
are what the test says, and points ``uvlab.app.runtime.memory_limits`` at it; with a
``rlimit_as`` the address-space limit is faked too (else the real one is read,
unlimited in the test runs).
"""

from __future__ import annotations

from pathlib import Path

GiB = 2**30
MiB = 2**20


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def fake_tree(
    root: Path,
    *,
    mem_available: int = 64 * GiB,
    vm_size: int = 100 * MiB,
    cgroup: str = "0::/user.slice/job.scope\n",
    mountinfo: str | None = "30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n",
) -> tuple[Path, Path]:
    """(proc, sys) roots: meminfo, self/cgroup, self/mountinfo and self/status."""
    proc, sys_ = root / "proc", root / "sys"
    write(proc / "meminfo", f"MemTotal: 99999999 kB\nMemAvailable: {mem_available // 1024} kB\n")
    write(proc / "self" / "cgroup", cgroup)
    if mountinfo is not None:
        write(proc / "self" / "mountinfo", mountinfo)
    write(proc / "self" / "status", f"Name: python\nVmPeak: 1 kB\nVmSize: {vm_size // 1024} kB\n")
    (sys_ / "fs" / "cgroup").mkdir(parents=True, exist_ok=True)
    return proc, sys_


def v2_group(folder: Path, limit: int | str, current: int, inactive_file: int = 0) -> Path:
    """A cgroup v2 folder with memory.max, memory.current and memory.stat."""
    write(folder / "memory.max", f"{limit}\n")
    write(folder / "memory.current", f"{current}\n")
    write(folder / "memory.stat", f"anon {current}\nfile 0\ninactive_file {inactive_file}\n")
    return folder


def fake_memory(
    monkeypatch, root: Path, *, mem_available: int = 64 * GiB, cgroup_limit: int = 1 * GiB
) -> None:
    """Point uvlab.app.runtime.memory_limits at a tree: ``mem_available`` free, a cgroup v2 limit.

    The job's cgroup ``/user.slice/job.scope`` has ``cgroup_limit`` bytes free
    (limit ``cgroup_limit`` + 256 MiB, 256 MiB in use); its parent has no limit.
    """
    import uvlab.app.runtime.memory_limits as limits

    proc, sys_ = fake_tree(root, mem_available=mem_available)
    top = sys_ / "fs" / "cgroup"
    write(top / "cgroup.controllers", "cpu memory\n")
    v2_group(top / "user.slice", "max", 10 * GiB)
    v2_group(top / "user.slice" / "job.scope", cgroup_limit + 256 * MiB, 256 * MiB)
    monkeypatch.setattr(limits, "PROC_ROOT", str(proc))
    monkeypatch.setattr(limits, "SYS_ROOT", str(sys_))
