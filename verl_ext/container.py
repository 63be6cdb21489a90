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
#: A sysctl a container's root must never be able to write.
_SENTINEL_SYSCTL = Path("/proc/sys/kernel/core_pattern")
#: /proc/self/uid_map of a process in the host's user namespace.
_HOST_UID_MAP = ["0", "0", "4294967295"]


def in_container() -> bool:
    """Docker, Podman or a Kubernetes pod."""
    return (Path("/.dockerenv").exists() or Path("/run/.containerenv").exists()
            or "KUBERNETES_SERVICE_HOST" in os.environ)


def host_root(uid_map: Path = Path("/proc/self/uid_map")) -> bool:
    """Whether this process is uid 0 of the host's user namespace."""
    try:
        first = uid_map.read_text().split("\n", 1)[0].split()
    except OSError:
        return False
    return os.geteuid() == 0 and first == _HOST_UID_MAP


def host_sysctls_writable(sysctl: Path = _SENTINEL_SYSCTL) -> str | None:
    """In a container: why the host's kernel settings are writable from here, or None when they are not.
    Checked with access(2), nothing is written."""
    if not in_container() or not host_root():
        return None
    if not os.access(sysctl, os.W_OK):
        return None
    return (f"this container runs as uid 0 of the kernel's first user namespace with {sysctl} writable: any "
            "process in it can change the kernel's settings. Unless the kernel is this container's own (a VM: "
            "Kata, Firecracker), run it as a non-root user (the images' user verl; --user verl) or in a user "
            "namespace (Docker's userns-remap, Kubernetes' hostUsers: false); see docs/images.md")
