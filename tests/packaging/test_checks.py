"""ci/packaging_checks.py: the repository passes every offline packaging check, and each check fails on the
mistakes it exists to catch (unpinned FROMs, unlocked or path inputs, a typo in flake.nix, stale hashes)."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.packaging.ci_modules import ROOT, load_ci_module

checks = load_ci_module("packaging_checks")

needs_nix = pytest.mark.skipif(shutil.which("nix-instantiate") is None,
                               reason="nix-instantiate (Debian nix-bin) is not installed; "
                                      "ci/check-packaging installs it")
DIGEST = "@sha256:" + "ab" * 32


@needs_nix
def test_the_repository_passes_every_packaging_check() -> None:
    assert checks.run_all() == []


def test_dockerfiles_pin_every_from_after_arg_resolution() -> None:
    for name in checks.DOCKERFILES:
        text = (ROOT / name).read_text()
        images = checks.resolve_froms(text)
        assert len(images) == 2 and images[0].startswith("nixos/nix:") and "@sha256:" in images[1]
        assert checks.check_from_pins(text) == []


@pytest.mark.parametrize(
    ("dockerfile", "flagged"),
    [
        ("FROM debian:bookworm\n", ["debian:bookworm"]),
        (f"ARG BASE=debian{DIGEST}\nFROM ${{BASE}}\n", []),
        (f"ARG BASE=debian{DIGEST}\nFROM $BASE AS one\nFROM one\n", []),
        ("ARG BASE=debian:bookworm\nFROM ${BASE}\n", ["debian:bookworm"]),
        ("ARG BASE\nFROM ${BASE}\n", ["(empty)"]),
        # An ARG after the first FROM does not apply to FROM lines.
        (f"FROM a{DIGEST} AS one\nARG BASE=debian{DIGEST}\nFROM ${{BASE}}\n", ["(empty)"]),
        (f"FROM --platform=linux/amd64 debian{DIGEST}\nFROM --platform=linux/amd64 ubuntu:24.04\n", ["ubuntu:24.04"]),
        (f"FROM debian@sha256:{'ab' * 31}\n", ["debian@sha256:"]),
    ],
)
def test_from_pin_check(dockerfile: str, flagged: list[str]) -> None:
    problems = checks.check_from_pins(dockerfile)
    assert len(problems) == len(flagged)
    for problem, image in zip(problems, flagged, strict=True):
        assert image in problem


@given(name=st.from_regex(r"[a-z][a-z0-9]{0,8}(/[a-z0-9]{1,8})?", fullmatch=True),
       tag=st.one_of(st.none(), st.from_regex(r"[a-z0-9][a-z0-9._-]{0,10}", fullmatch=True)),
       digest=st.one_of(st.none(), st.binary(min_size=32, max_size=32)), through_arg=st.booleans())
def test_a_from_is_accepted_exactly_when_it_carries_a_full_digest(name: str, tag: str | None, digest: bytes | None,
                                                                  through_arg: bool) -> None:
    image = name + (f":{tag}" if tag else "") + (f"@sha256:{digest.hex()}" if digest else "")
    text = f"ARG IMAGE={image}\nFROM ${{IMAGE}}\n" if through_arg else f"FROM {image}\n"
    assert (checks.check_from_pins(text) == []) == (digest is not None)


def _real_lock() -> dict:
    return json.loads((ROOT / "flake.lock").read_text())


def test_the_lock_file_is_complete() -> None:
    assert checks.check_lock(_real_lock(), ["nixpkgs"]) == []


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda n: n["locked"].pop("narHash"), "no sha256 narHash"),
        (lambda n: n["locked"].update(narHash="sha256-tooShort="), "no sha256 narHash"),
        (lambda n: n["locked"].pop("rev"), "no 40-hex rev"),
        (lambda n: n["locked"].update(type="path", path="/home/me/nixpkgs"), "path input"),
        (lambda n: n.pop("locked"), "is not locked"),
    ],
)
def test_lock_check_catches(mutate, message: str) -> None:
    lock = _real_lock()
    mutate(lock["nodes"]["nixpkgs"])
    assert any(message in p for p in checks.check_lock(lock, ["nixpkgs"]))


def test_lock_check_catches_an_input_the_lock_does_not_know() -> None:
    assert any("declares" in p for p in checks.check_lock(_real_lock(), ["nixpkgs", "rust-overlay"]))


def test_flake_pypi_hashes_must_match_the_docker_locks() -> None:
    flake = (ROOT / "flake.nix").read_text()
    locks = [p.read_text() for p in sorted((ROOT / "docker").glob("requirements-*.lock"))]
    assert checks.check_flake_pypi_hashes(flake, locks) == []
    sri = flake.split('pypiWheel p "verl" "0.9.1" "', 1)[1].split('"', 1)[0]
    other = "sha256-" + base64.b64encode(bytes(32)).decode()
    assert any("verl==0.9.1" in p for p in checks.check_flake_pypi_hashes(flake.replace(sri, other), locks))


def test_image_lock_must_cover_its_source(tmp_path: Path) -> None:
    (tmp_path / "docker").mkdir()
    for f in (ROOT / "docker").iterdir():
        shutil.copy(f, tmp_path / "docker" / f.name)
    assert checks.check_image_locks(tmp_path) == []
    source = tmp_path / "docker" / "requirements-cuda.in"
    source.write_text(source.read_text() + "tqdm==4.67.1\n")
    assert any("tqdm==4.67.1" in p for p in checks.check_image_locks(tmp_path))


def _flake_copy(tmp_path: Path) -> Path:
    for name in ("flake.nix", "flake.lock", "Cargo.toml", "Cargo.lock", "Dockerfile.cuda", "Dockerfile.rocm"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "ci" / "nix", tmp_path / "ci" / "nix")
    return tmp_path


@needs_nix
def test_flake_outputs_evaluate_to_the_promised_names(tmp_path: Path) -> None:
    evaluated = checks.evaluate_flake(_flake_copy(tmp_path))
    assert checks.check_outputs(evaluated) == []


@needs_nix
@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ("ps.hydra-core", "ps.hydra_core", "hydra_core"),  # not a nixpkgs attribute
        ('"CUDA EULA"', '"CUDA-EULA"', "allowUnfreePredicate"),  # CUDA no longer accepted
        ("cudaSupport = true;", "cudaSupport = true; allowUnfree = true;", "allowUnfree"),  # every unfree package
        ('"sha256-225vKo2dWAjZ7DLTV6QjGf3Gln32iP+dmBAFD0m/3RQ="', '"db6e6f2a"', "not an SRI sha256"),
    ],
)
def test_the_stand_in_nixpkgs_catches_flake_mistakes(tmp_path: Path, old: str, new: str, error: str) -> None:
    root = _flake_copy(tmp_path)
    flake = root / "flake.nix"
    assert old in flake.read_text()
    flake.write_text(flake.read_text().replace(old, new, 1))
    with pytest.raises(RuntimeError, match=error):
        checks.evaluate_flake(root)


@needs_nix
def test_a_renamed_output_is_reported(tmp_path: Path) -> None:
    root = _flake_copy(tmp_path)
    flake = root / "flake.nix"
    flake.write_text(flake.read_text().replace("image-rocm = imageFor", "rocm-image = imageFor"))
    problems = checks.check_outputs(checks.evaluate_flake(root))
    assert any("image-rocm" in p for p in problems)
