"""What verl-ext needs from a container, and the one container set-up it refuses (for ``verl-ext doctor``).

The code sandbox needs Docker's default seccomp profile plus what it uses inside its own namespaces
(``docker/seccomp.json``, shipped in the images as ``/opt/verl-ext/seccomp.json``) and an unmasked ``/proc``:
the kernel mounts a fresh ``/proc`` in a user namespace only where no path of the existing one is covered
(fs/namespace.c, ``mount_too_revealing``), which Docker's masked and read-only ``/proc`` paths do, with any
mount option. Unmasked, ``/proc/sys`` is writable by uid 0; where that uid is the host's root (no user
namespace), a process of the container can change the host's kernel settings, e.g. ``kernel.core_pattern``,
which runs a program as the host's root. So the container runs as a non-root user or in a user namespace;
doctor warns otherwise (a warning, not an error: where the kernel is the container's own, a VM such as Kata
or Firecracker, nothing else is exposed).
"""

from __future__ import annotations

import os
from pathlib import Path

#: How to start a container in which the sandbox works (docs/images.md has the whole command and why).
CONTAINER_HINT = ("run it with verl-ext's seccomp profile and an unmasked /proc, as a non-root user: "
                  "--security-opt seccomp=docker/seccomp.json (in the images: /opt/verl-ext/seccomp.json) "
                  "--security-opt systempaths=unconfined --user verl (and --security-opt apparmor=unconfined on "
                  "AppArmor hosts); see docs/images.md")
#: The variable container managers set in their containers (systemd's convention; lower case by design).
_CONTAINER_VARIABLE = "container"
#: A sysctl a container's root must never be able to write.
_SENTINEL_SYSCTL = Path("/proc/sys/kernel/core_pattern")


def _exists(path: str) -> bool:
    try:
        return Path(path).exists()
    except OSError:  # not stat-able (EACCES): unknown, taken as absent
        return False


def in_container() -> bool:
    """Docker, Podman, containerd (ctr, nerdctl, Kubernetes), LXC or systemd-nspawn, by the marks each leaves:
    marker files, the ``container`` variable systemd's convention has container managers set, a Kubernetes
    pod's service variables, or a container runtime's name in the cgroup path."""
    if _exists("/.dockerenv") or _exists("/run/.containerenv") or _exists("/run/systemd/container"):
        return True
    if os.environ.get(_CONTAINER_VARIABLE) or "KUBERNETES_SERVICE_HOST" in os.environ:
        return True
    try:
        cgroup = Path("/proc/1/cgroup").read_bytes().decode("utf-8", "replace")
    except OSError:
        return False
    return any(mark in cgroup for mark in ("docker", "containerd", "kubepods", "libpod", "lxc", "crio"))


def _uid_outside(uid: int, uid_map: str) -> int | None:
    """The id ``uid`` maps to in the parent user namespace, per ``uid_map``'s lines (inside, outside, count)."""
    for line in uid_map.splitlines():
        fields = line.split()
        if len(fields) != 3 or not all(f.isdigit() for f in fields):
            continue
        inside, outside, count = (int(f) for f in fields)
        if inside <= uid < inside + count:
            return outside + uid - inside
    return None


def host_root(uid_map: Path = Path("/proc/self/uid_map")) -> bool:
    """Whether this process's effective uid is uid 0 outside its user namespace too (the host's root, also
    where a user namespace maps 0 to 0)."""
    try:
        text = uid_map.read_bytes().decode("ascii")
    except (OSError, UnicodeDecodeError):
        return False
    return _uid_outside(os.geteuid(), text) == 0


def host_sysctls_writable(sysctl: Path = _SENTINEL_SYSCTL) -> str | None:
    """In a container: why the host's kernel settings are writable from here, or None when they are not.
    Checked with access(2), nothing is written."""
    if not in_container() or not host_root():
        return None
    try:
        writable = os.access(sysctl, os.W_OK, effective_ids=True)
    except (OSError, ValueError):
        return None
    if not writable:
        return None
    return (f"this container runs as uid 0 of the kernel's first user namespace with {sysctl} writable: any "
            "process in it can change the kernel's settings. Unless the kernel is this container's own (a VM: "
            "Kata, Firecracker), run it as a non-root user (the images' user verl; --user verl) or in a user "
            "namespace (Docker's userns-remap, Kubernetes' hostUsers: false); see docs/images.md")
