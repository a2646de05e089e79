"""The memory a new allocation may take: free memory, cgroup limits and ``ulimit -v``.

Available memory (:func:`available_memory`) is the smallest of:

- ``MemAvailable`` from ``/proc/meminfo`` (Linux), else ``sysconf(SC_AVPHYS_PAGES)``;
- the cgroup v2 limit of this process: for its cgroup (``0::/path`` in
  ``/proc/self/cgroup``) and each parent up to the hierarchy's mount point,
  ``memory.max`` minus what is in use (``memory.current`` less the reclaimable
  ``inactive_file`` of ``memory.stat``); ``max`` means no limit;
- the cgroup v1 limit, the same with the ``memory`` controller's
  ``memory.limit_in_bytes`` and ``memory.usage_in_bytes`` (``total_inactive_file``);
  the huge values v1 uses for "unlimited" (≥ 2⁶⁰) count as no limit;
- the address-space limit ``RLIMIT_AS`` (``ulimit -v``), less the current
  ``VmSize`` of ``/proc/self/status``, when it is finite.

The hierarchies are found through ``/proc/self/mountinfo`` (``cgroup2`` and the
``cgroup`` mount with the ``memory`` option), else at ``/sys/fs/cgroup``,
``/sys/fs/cgroup/unified`` and ``/sys/fs/cgroup/memory``. :data:`PROC_ROOT` and
:data:`SYS_ROOT` (or the ``proc_root``/``sys_root`` arguments) move them, for
tests. When nothing is known :func:`available_memory` is None (and
:func:`uvlab.app.runtime.memory.check_memory` refuses nothing); each bound names
its limit, which a refusal quotes ("… of memory is available (cgroup limit)").
"""

from __future__ import annotations

import os
from dataclasses import dataclass

#: Where /proc and /sys are read (tests point them at fake trees).
PROC_ROOT = "/proc"
SYS_ROOT = "/sys"
#: A cgroup v1 limit this large means "unlimited" (v1 writes PAGE_COUNTER_MAX pages, ~2⁶³).
_V1_UNLIMITED = 2**60
_DEFAULT = object()


@dataclass(frozen=True)
class Available:
    """Bytes a new allocation may take, and which limit says so."""

    bytes: int
    limit: str  # "free memory", "cgroup limit" or "address-space limit, ulimit -v"


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _read_int(path: str) -> int | None:
    text = _read(path)
    try:
        return int(text.split()[0]) if text is not None else None
    except (ValueError, IndexError):
        return None


def _field(text: str | None, key: str, sep: str = " ") -> int | None:
    """The number after ``key`` in ``key<sep>N ...`` lines (meminfo, status, memory.stat)."""
    for line in (text or "").splitlines():
        name, _, rest = line.partition(sep)
        if name.strip() == key:
            try:
                return int(rest.split()[0])
            except (ValueError, IndexError):
                return None
    return None


def _free_memory(proc_root: str) -> int | None:
    kib = _field(_read(os.path.join(proc_root, "meminfo")), "MemAvailable", ":")
    if kib is not None:
        return kib * 1024
    if proc_root != "/proc":  # a fake tree without meminfo: unknown, not this machine's
        return None
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _unescape(path: str) -> str:
    """mountinfo escapes space, tab, newline and backslash as ``\\ooo``."""
    for code in ("040", "011", "012", "134"):
        path = path.replace("\\" + code, chr(int(code, 8)))
    return path


def _mounts(proc_root: str, sys_root: str) -> dict[str, list[tuple[str, str]]]:
    """``{"v2": [(folder, root)], "v1": [...]}``: the cgroup hierarchies of memory.

    ``folder`` is the mount point under ``sys_root``; ``root`` the cgroup path
    mounted there (``/`` unless a container mounts its own subtree).
    """
    found: dict[str, list[tuple[str, str]]] = {"v2": [], "v1": []}
    for line in (_read(os.path.join(proc_root, "self", "mountinfo")) or "").splitlines():
        left, _, right = line.partition(" - ")
        a, b = left.split(), right.split()
        if len(a) < 5 or len(b) < 3:
            continue
        root, point = _unescape(a[3]), _unescape(a[4])
        if b[0] == "cgroup2":
            kind = "v2"
        elif b[0] == "cgroup" and "memory" in b[2].split(","):
            kind = "v1"
        else:
            continue
        if sys_root != "/sys":  # a fake tree: only mounts under /sys map into it
            if not (point == "/sys" or point.startswith("/sys/")):
                continue
            point = sys_root + point[len("/sys") :]
        found[kind].append((point, root))
    cg = os.path.join(sys_root, "fs", "cgroup")
    if not found["v2"]:
        found["v2"] = [
            (d, "/")
            for d in (cg, os.path.join(cg, "unified"))
            if os.path.exists(os.path.join(d, "cgroup.controllers"))
        ]
    if not found["v1"] and os.path.isdir(os.path.join(cg, "memory")):
        found["v1"] = [(os.path.join(cg, "memory"), "/")]
    return found


def _cgroup_paths(proc_root: str) -> dict[str, str]:
    """This process's cgroup path per hierarchy: ``{"v2": "/a/b", "v1": "/c"}``."""
    paths: dict[str, str] = {}
    for line in (_read(os.path.join(proc_root, "self", "cgroup")) or "").splitlines():
        parts = line.strip().split(":", 2)
        if len(parts) != 3:
            continue
        if parts[0] == "0" and parts[1] == "":
            paths.setdefault("v2", parts[2])
        elif "memory" in parts[1].split(","):
            paths.setdefault("v1", parts[2])
    return paths


def _cgroup_available(mount: str, root: str, path: str, kind: str) -> int | None:
    """The smallest ``limit − in use`` from ``path``'s cgroup up to the mount point."""
    if root != "/" and (path == root or path.startswith(root.rstrip("/") + "/")):
        path = path[len(root.rstrip("/")) :] or "/"
    top = os.path.normpath(mount)
    folder = os.path.normpath(os.path.join(top, path.lstrip("/")))
    if not (folder == top or folder.startswith(top + os.sep)) or not os.path.isdir(folder):
        folder = top  # our cgroup is not visible in this mount: the mount's own limits
    limit_file, usage_file, cache_key = (
        ("memory.max", "memory.current", "inactive_file")
        if kind == "v2"
        else ("memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file")
    )
    best = None
    while True:
        text = _read(os.path.join(folder, limit_file))
        if text is not None and text.strip() != "max":
            try:
                limit = int(text.split()[0])
            except (ValueError, IndexError):
                limit = None
            if limit is not None and limit < _V1_UNLIMITED:
                used = _read_int(os.path.join(folder, usage_file)) or 0
                stat = _read(os.path.join(folder, "memory.stat"))
                cache = _field(stat, cache_key)
                if cache is None and kind == "v1":
                    cache = _field(stat, "inactive_file")
                used = max(used - (cache or 0), 0)
                free = max(limit - used, 0)
                best = free if best is None else min(best, free)
        if folder == top:
            return best
        folder = os.path.dirname(folder)


def _address_space(proc_root: str, rlimit_as) -> int | None:
    if rlimit_as is _DEFAULT:
        try:
            import resource

            soft = resource.getrlimit(resource.RLIMIT_AS)[0]
            rlimit_as = None if soft == resource.RLIM_INFINITY else int(soft)
        except (ImportError, OSError, ValueError):
            rlimit_as = None
    if rlimit_as is None or rlimit_as < 0:
        return None
    vm_kib = _field(_read(os.path.join(proc_root, "self", "status")), "VmSize", ":")
    return max(int(rlimit_as) - 1024 * (vm_kib or 0), 0)


def memory_limits(
    *, proc_root: str | None = None, sys_root: str | None = None, rlimit_as=_DEFAULT
) -> list[Available]:
    """Every known bound on the memory a new allocation may take (see the module notes).

    Parameters
    ----------
    proc_root, sys_root : str, optional
        Where /proc and /sys are read (default :data:`PROC_ROOT`, :data:`SYS_ROOT`).
    rlimit_as : int or None, optional
        The soft ``RLIMIT_AS`` in bytes, None for no limit (default: this process's).
    """
    proc_root = PROC_ROOT if proc_root is None else os.fspath(proc_root)
    sys_root = SYS_ROOT if sys_root is None else os.fspath(sys_root)
    out = []
    free = _free_memory(proc_root)
    if free is not None:
        out.append(Available(free, "free memory"))
    paths = _cgroup_paths(proc_root)
    for kind, mounts in _mounts(proc_root, sys_root).items():
        if kind not in paths:
            continue
        for mount, root in mounts:
            avail = _cgroup_available(mount, root, paths[kind], kind)
            if avail is not None:
                out.append(Available(avail, "cgroup limit"))
    space = _address_space(proc_root, rlimit_as)
    if space is not None:
        out.append(Available(space, "address-space limit, ulimit -v"))
    return out


def available_memory(**roots) -> Available | None:
    """The binding bound of :func:`memory_limits` (the smallest), or None when none is known."""
    limits = memory_limits(**roots)
    return min(limits, key=lambda a: a.bytes) if limits else None


def available_bytes(**roots) -> int | None:
    """Memory available to a new allocation, bytes, or None when unknown.

    The smallest of free memory, the cgroup v1/v2 limits and ``RLIMIT_AS``;
    keyword arguments as :func:`memory_limits`.
    """
    avail = available_memory(**roots)
    return None if avail is None else avail.bytes
