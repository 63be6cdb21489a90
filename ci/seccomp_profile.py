"""The seccomp profile the images are run with (``docker/seccomp.json``) and its OCI form for Kubernetes
(``docker/seccomp-oci.json``).

``docker/seccomp.json`` is Docker's default profile (:data:`UPSTREAM`, data copied verbatim) with one change:
its rule answering ``clone3`` with ENOSYS is replaced by the rules verl-ext's sandbox needs, each an entry
whose ``comment`` starts with :data:`MARK` and gives its reason. :func:`check` proves that nothing else
differs: the profile less those entries, with the replaced rule back in place, hashes to upstream's file.

Docker reads this format (capability- and architecture-conditional rules). containerd, which most Kubernetes
nodes run, reads a profile as an OCI ``LinuxSeccomp`` and ignores ``includes``/``excludes`` (it would allow
every rule unconditionally), so ``docker/seccomp-oci.json`` is the same profile resolved for x86_64 and a
container holding only the capabilities of docs/images.md's pod spec.

    python ci/seccomp_profile.py           # write docker/seccomp-oci.json
    python ci/seccomp_profile.py --check   # exit 1 with the problems when either file is off
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "docker" / "seccomp.json"
OCI_PROFILE = ROOT / "docker" / "seccomp-oci.json"
#: Where Docker's default comes from: github.com/moby/profiles/seccomp v0.2.3 (default.json), as vendored by
#: moby/moby at commit b985e2313a8676e18072b442911fc8f64f17d440 (Docker 29.x).
UPSTREAM = "github.com/moby/profiles/seccomp v0.2.3 default.json (moby/moby b985e2313a86)"
#: sha256 of upstream's file as canonical JSON (sorted keys, no spaces): what :func:`upstream_of` must give.
UPSTREAM_SHA256 = "9da637d2ab0a204fcbd91bd88f1be9e004a3acab61c571a9f5b8870e588a17d2"
#: The upstream rule the additions replace: without CAP_SYS_ADMIN, clone3 fails with ENOSYS.
REPLACED_RULE = {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38,
                 "excludes": {"caps": ["CAP_SYS_ADMIN"]}}
#: The comment prefix of verl-ext's additions.
MARK = "verl-ext:"
#: The OCI form's target: Go's name of the architecture, and the capabilities the container holds.
OCI_ARCH = "amd64"
OCI_CAPS = frozenset({"CAP_SETUID", "CAP_SETGID"})
#: Minimum kernel the OCI form assumes (rules with a higher ``minKernel`` are left out).
OCI_KERNEL = (5, 10)


def canonical_sha256(profile: Any) -> str:
    return hashlib.sha256(json.dumps(profile, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def is_addition(rule: dict[str, Any]) -> bool:
    return str(rule.get("comment", "")).startswith(MARK)


def additions(profile: dict[str, Any]) -> list[dict[str, Any]]:
    """verl-ext's rules, in the profile's order."""
    return [rule for rule in profile["syscalls"] if is_addition(rule)]


def upstream_of(profile: dict[str, Any]) -> dict[str, Any]:
    """The profile with verl-ext's rules taken out and the replaced rule back where the first of them was."""
    rules: list[dict[str, Any]] = []
    for rule in profile["syscalls"]:
        if not is_addition(rule):
            rules.append(rule)
        elif REPLACED_RULE not in rules:
            rules.append(REPLACED_RULE)
    return {**profile, "syscalls": rules}


def without(profile: dict[str, Any], names: Collection[str]) -> dict[str, Any]:
    """The profile less the additions for these syscalls (to show each one is needed)."""
    rules = [r for r in profile["syscalls"] if not (is_addition(r) and set(r["names"]) & set(names))]
    return {**profile, "syscalls": rules}


def _kernel(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _applies(rule: dict[str, Any], arch: str, caps: Collection[str], kernel: tuple[int, ...]) -> bool:
    inc, exc = rule.get("includes", {}), rule.get("excludes", {})
    if inc.get("arches") and arch not in inc["arches"]:
        return False
    if inc.get("caps") and not set(inc["caps"]) <= set(caps):
        return False
    if inc.get("minKernel") and kernel < _kernel(inc["minKernel"]):
        return False
    if arch in exc.get("arches", ()):
        return False
    return not set(exc.get("caps", ())) & set(caps)


def oci(profile: dict[str, Any], arch: str = OCI_ARCH, caps: Iterable[str] = OCI_CAPS,
        kernel: tuple[int, ...] = OCI_KERNEL) -> dict[str, Any]:
    """The profile as an OCI ``LinuxSeccomp``: the rules that apply to ``arch`` and ``caps``, unconditional."""
    caps = set(caps)
    arch_names = {"amd64": "SCMP_ARCH_X86_64", "arm64": "SCMP_ARCH_AARCH64"}
    native = arch_names[arch]
    (entry,) = (a for a in profile["archMap"] if a["architecture"] == native)
    rules = []
    for rule in profile["syscalls"]:
        if _applies(rule, arch, caps, kernel):
            rules.append({k: rule[k] for k in ("names", "action", "errnoRet", "args") if k in rule})
    return {"defaultAction": profile["defaultAction"], "defaultErrnoRet": profile["defaultErrnoRet"],
            "architectures": [native, *(entry["subArchitectures"] or [])], "syscalls": rules}


def _dump(profile: dict[str, Any]) -> str:
    return json.dumps(profile, indent=2) + "\n"


def check(root: Path = ROOT) -> list[str]:
    """Problems with the two profiles (empty when both are right)."""
    problems = []
    profile = json.loads((root / PROFILE.relative_to(ROOT)).read_text())
    if canonical_sha256(upstream_of(profile)) != UPSTREAM_SHA256:
        problems.append(f"{PROFILE.name} is not {UPSTREAM} plus its '{MARK}' rules (with {REPLACED_RULE} "
                        "replaced): a rule of Docker's default was changed")
    for rule in additions(profile):
        if rule.get("action") != "SCMP_ACT_ALLOW" or len(str(rule["comment"])) <= len(MARK) + 20:
            problems.append(f"{PROFILE.name}: addition {rule['names']} must allow and give its reason")
    oci_path = root / OCI_PROFILE.relative_to(ROOT)
    if not oci_path.exists() or oci_path.read_text() != _dump(oci(profile)):
        problems.append(f"{OCI_PROFILE.name} is not {PROFILE.name}'s OCI form: run python ci/seccomp_profile.py")
    return problems


def main(argv: list[str]) -> int:
    if argv[1:] == ["--check"]:
        problems = check()
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    OCI_PROFILE.write_text(_dump(oci(json.loads(PROFILE.read_text()))))
    print(f"wrote {OCI_PROFILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
