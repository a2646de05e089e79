"""Available memory honours cgroup v1/v2 limits and RLIMIT_AS (uvlab.app.runtime.memory_limits)."""

from __future__ import annotations

from tests.support.memory import GiB, MiB, fake_tree, v2_group, write
from uvlab.app.runtime.memory_limits import available_bytes, available_memory, memory_limits

V1_MOUNT = "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
V1_UNLIMITED = 9223372036854771712  # what cgroup v1 reports without a limit


def _limits(proc, sys_, rlimit_as=None):
    return {
        (a.limit, a.bytes)
        for a in memory_limits(proc_root=proc, sys_root=sys_, rlimit_as=rlimit_as)
    }


def test_cgroup_v2_limit_minus_what_is_in_use_walking_up_to_the_root(tmp_path):
    proc, sys_ = fake_tree(tmp_path, mem_available=8 * GiB)
    top = sys_ / "fs" / "cgroup"
    write(top / "cgroup.controllers", "cpu memory\n")
    parent = v2_group(top / "user.slice", "max", 5 * GiB)
    leaf = v2_group(parent / "job.scope", 2 * GiB, GiB, inactive_file=256 * MiB)
    # 2 GiB − (1 GiB in use − 256 MiB of reclaimable page cache)
    assert _limits(proc, sys_) == {("free memory", 8 * GiB), ("cgroup limit", 1280 * MiB)}
    assert available_memory(proc_root=proc, sys_root=sys_, rlimit_as=None).limit == "cgroup limit"
    # a parent's tighter limit binds (its usage includes every child's)
    v2_group(parent, 3 * GiB, 2560 * MiB)
    assert available_bytes(proc_root=proc, sys_root=sys_, rlimit_as=None) == 512 * MiB
    # "max" everywhere: no cgroup limit; the root cgroup has no memory.max at all
    write(leaf / "memory.max", "max\n")
    write(parent / "memory.max", "max\n")
    assert _limits(proc, sys_) == {("free memory", 8 * GiB)}


def test_cgroup_v2_hybrid_mount_and_missing_mountinfo(tmp_path):
    # systemd's hybrid layout: cgroup2 on /sys/fs/cgroup/unified, found through mountinfo
    mounts = "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
    proc, sys_ = fake_tree(tmp_path / "a", cgroup="0::/job\n", mountinfo=mounts)
    v2_group(sys_ / "fs" / "cgroup" / "unified" / "job", 3 * GiB, GiB)
    assert ("cgroup limit", 2 * GiB) in _limits(proc, sys_)
    # no mountinfo: /sys/fs/cgroup is taken when it is a cgroup2 root
    proc, sys_ = fake_tree(tmp_path / "b", cgroup="0::/job\n", mountinfo=None)
    write(sys_ / "fs" / "cgroup" / "cgroup.controllers", "memory\n")
    v2_group(sys_ / "fs" / "cgroup" / "job", 3 * GiB, 2 * GiB)
    assert ("cgroup limit", GiB) in _limits(proc, sys_)


def test_cgroup_v1_limit_and_its_unlimited_value(tmp_path):
    cgroup = "5:devices:/\n4:memory:/docker/abc\n1:name=systemd:/\n0::/\n"
    proc, sys_ = fake_tree(tmp_path, mem_available=8 * GiB, cgroup=cgroup, mountinfo=V1_MOUNT)
    memory = sys_ / "fs" / "cgroup" / "memory"
    group = memory / "docker" / "abc"
    write(memory / "memory.limit_in_bytes", f"{V1_UNLIMITED}\n")
    write(group / "memory.limit_in_bytes", f"{V1_UNLIMITED}\n")
    write(group / "memory.usage_in_bytes", f"{GiB}\n")
    assert _limits(proc, sys_) == {("free memory", 8 * GiB)}
    write(group / "memory.limit_in_bytes", f"{3 * GiB}\n")
    write(group / "memory.stat", f"cache 0\ntotal_inactive_file {512 * MiB}\n")
    assert _limits(proc, sys_) == {("free memory", 8 * GiB), ("cgroup limit", 2560 * MiB)}


def test_cgroup_v1_subtree_mounted_by_a_container(tmp_path):
    # Docker without a cgroup namespace: /proc/self/cgroup names /docker/abc, and that
    # subtree is what is mounted on /sys/fs/cgroup/memory.
    mounts = "35 31 0:32 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n"
    proc, sys_ = fake_tree(tmp_path, cgroup="4:memory:/docker/abc\n", mountinfo=mounts)
    memory = sys_ / "fs" / "cgroup" / "memory"
    write(memory / "memory.limit_in_bytes", f"{2 * GiB}\n")
    write(memory / "memory.usage_in_bytes", f"{512 * MiB}\n")
    assert ("cgroup limit", 1536 * MiB) in _limits(proc, sys_)


def test_rlimit_as_minus_the_current_address_space(tmp_path):
    proc, sys_ = fake_tree(tmp_path, mem_available=8 * GiB, vm_size=300 * MiB)
    got = available_memory(proc_root=proc, sys_root=sys_, rlimit_as=GiB)
    assert (got.limit, got.bytes) == ("address-space limit, ulimit -v", 724 * MiB)
    assert _limits(proc, sys_, rlimit_as=None) == {("free memory", 8 * GiB)}


def test_the_real_machine_is_bounded_by_its_free_memory():
    """Free memory moves between two reads on a busy machine (by 135 kB once, in CI): the
    bound is checked against the larger of the reads around it, with 64 MiB to spare."""

    def free() -> int:
        return next(a.bytes for a in memory_limits() if a.limit == "free memory")

    before = free()
    got = available_bytes()
    after = free()
    assert 0 < got <= max(before, after) + 64 * MiB
