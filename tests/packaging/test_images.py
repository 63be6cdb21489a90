"""The Docker images, built and run for real through docker-py: the final stage of each Dockerfile, verbatim,
on a locally built stand-in for its vendor base (``ci/docker-standin-base``: Debian, Python and the CPU stack,
less what the vendor's lock adds) with the wheel built here in place of the Nix stage; then ``verl-ext doctor``,
the math rewards and the code sandbox inside containers.

It takes minutes and root, so it runs only when asked: ``VERL_EXT_IMAGE_TEST=auto`` runs it where this host
can (else skips with the reason), ``=1`` requires it (fails instead of skipping), unset or ``0`` skips it.
``ci/test`` runs it as its own step with ``auto`` and, in ``VERL_EXT_IMAGE_TEST_BUDGET_S``, the seconds left of
its time budget. Where no Docker engine answers, a ``dockerd`` is started (``apt-get install docker.io`` first
when missing) and that one is stopped at the end. The stand-in base is kept (the script reuses it while its
inputs are unchanged); the images built here are removed.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

from tests.packaging.ci_modules import load_ci_module

ROOT = Path(__file__).resolve().parents[2]
MODE = os.environ.get("VERL_EXT_IMAGE_TEST", "")
BUDGET = os.environ.get("VERL_EXT_IMAGE_TEST_BUDGET_S")
#: When the module was imported: the budget above counts from then.
MODULE_STARTED = time.monotonic()

pytestmark = [
    pytest.mark.docker,
    pytest.mark.skipif(MODE in ("", "0"), reason="builds the Docker images (minutes, root): ci/test runs it as its "
                                                 "own step; VERL_EXT_IMAGE_TEST=auto runs it where possible, =1 "
                                                 "requires it"),
]

VENDORS = ("cuda", "rocm")
STANDIN = "verl-ext-standin:bookworm"
SOCKET = "unix:///var/run/docker.sock"
#: The daemon's default data root: on disk (the stand-in base is 6 GB), and where the next run finds it.
DATA_ROOT = "/var/lib/docker"
DOCKERD_READY_S = 60
#: Seconds the whole module may take on ci's machine (2 cores, Docker 20.10), the stand-in base reused or built,
#: with 1.5x to spare: measured 299 s with the stand-in reused (150 s of it the main_ppo step), and about
#: 200 s more to build the stand-in (debootstrap, importing 7 GB). The module skips when
#: VERL_EXT_IMAGE_TEST_BUDGET_S is lower.
NEED_S_CACHED = 450
NEED_S_BUILDING_BASE = 750
#: The Nix stage of both Dockerfiles is replaced by this one, holding the wheel built here (the same portable
#: manylinux_2_28 wheel `nix build .#wheel` makes).
WHEEL_DIR = "wheel-built-locally"
WHEEL_STAGE = f"FROM scratch AS wheel\nCOPY {WHEEL_DIR}/ /wheel/\n\n"
MAIN_PPO = ["python3", "-m", "verl.trainer.main_ppo", "--config-path", "/opt/verl-ext/configs",
            "--config-name", "grpo_math_verl_ext"]

#: The seccomp profile the docs tell users to run code rewards with: Docker's default plus what the sandbox
#: does in its own namespaces (ci/seccomp_profile.py proves that; test_each_addition_... that each is needed).
PROFILE = json.loads((ROOT / "docker" / "seccomp.json").read_text())


def _seccomp(profile: dict[str, Any]) -> str:
    """A profile as the docker CLI sends `--security-opt seccomp=FILE`: the file's contents."""
    return "seccomp=" + json.dumps(profile)


#: docs/images.md's `docker run` options for code rewards, as the image's own non-root user:
#:   --security-opt seccomp=docker/seccomp.json --security-opt systempaths=unconfined
#:   --cap-drop ALL --security-opt no-new-privileges      (hardening that keeps it)
#: The CLI turns `systempaths=unconfined` into empty MaskedPaths and ReadonlyPaths, which docker-py has no
#: parameter for but its host config can carry: the kernel mounts a fresh /proc in a user namespace only where
#: no path of the container's /proc is covered.
SANDBOX_RUN_OPTIONS: dict[str, Any] = {"security_opt": [_seccomp(PROFILE), "no-new-privileges"],
                                       "cap_drop": ["ALL"]}
SANDBOX_HOST_CONFIG = {"MaskedPaths": [], "ReadonlyPaths": []}


def _unavailable(reason: str) -> NoReturn:
    """Skip (``auto``) or fail (``1``): this host cannot run the image test."""
    if MODE == "1":
        pytest.fail(f"VERL_EXT_IMAGE_TEST=1 but {reason}", pytrace=False)
    pytest.skip(reason)


def _budget_s() -> float | None:
    return None if BUDGET is None else float(BUDGET)


@dataclass
class Engine:
    client: Any  # docker.DockerClient
    #: DOCKER_HOST for the docker CLI (ci/docker-standin-base), or None to keep the environment's.
    host: str | None


def _ping(**kwargs: Any) -> Any:
    import docker

    try:
        client = docker.DockerClient(**kwargs) if kwargs else docker.from_env()
        client.ping()
    except docker.errors.DockerException:
        return None
    return client


def _dockerd() -> str:
    """Path of dockerd, installing Debian's docker.io when it is missing."""
    found = shutil.which("dockerd")
    if found:
        return found
    if shutil.which("apt-get") is None:
        _unavailable("no Docker engine answers, dockerd is not installed and there is no apt-get to install it")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "docker.io"]
    done = subprocess.run(install, env=env, capture_output=True, text=True)
    if done.returncode != 0:  # stale or missing package lists
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True)
        done = subprocess.run(install, env=env, capture_output=True, text=True)
    installed = shutil.which("dockerd")
    if done.returncode != 0 or installed is None:
        _unavailable(f"dockerd is not installed and `apt-get install docker.io` failed: {done.stderr.strip()[-500:]}")
    return installed


@pytest.fixture(scope="session")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """A Docker engine: the one answering already, or a dockerd started here and stopped (by PID) at the end."""
    if MODE not in ("auto", "1"):
        pytest.fail(f"VERL_EXT_IMAGE_TEST must be auto, 1 or 0, got {MODE!r}", pytrace=False)
    budget = _budget_s()
    if budget is not None and budget < NEED_S_CACHED:
        _unavailable(f"needs about {NEED_S_CACHED} s and ci/test has {budget:.0f} s left of its time budget")
    try:
        import docker  # noqa: F401 - docker-py, from ci/requirements.lock
    except ImportError:
        _unavailable("docker-py is not installed (pip install docker)")
    if os.geteuid() != 0:
        _unavailable("needs root (to start dockerd, and for ci/docker-standin-base's debootstrap)")
    client = _ping()
    if client is not None:
        yield Engine(client, None)
        client.close()
        return
    dockerd = _dockerd()
    client = _ping()  # installing docker.io may have started the system's service
    if client is not None:
        yield Engine(client, None)
        client.close()
        return
    log_path = tmp_path_factory.mktemp("dockerd") / "dockerd.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen([dockerd, "--host", SOCKET, "--data-root", DATA_ROOT], stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + DOCKERD_READY_S
        while (client := _ping(base_url=SOCKET)) is None:
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = log_path.read_text(errors="replace")[-1500:]
                _unavailable(f"dockerd did not start (exit status {proc.poll()}); its log ends:\n{tail}")
            time.sleep(0.5)
        yield Engine(client, SOCKET)
        client.close()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)  # dockerd stops its containers and its containerd
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _cli_env(engine: Engine) -> dict[str, str]:
    return {**os.environ, "DOCKER_HOST": engine.host} if engine.host else dict(os.environ)


@pytest.fixture(scope="session")
def standin(engine: Engine) -> str:
    """The stand-in base image (built when missing or stale), once the time budget is known to suffice."""
    script = str(ROOT / "ci" / "docker-standin-base")
    cached = subprocess.run([script, "--check", STANDIN], env=_cli_env(engine), capture_output=True).returncode == 0
    need = NEED_S_CACHED if cached else NEED_S_BUILDING_BASE
    budget = _budget_s()
    if budget is not None and budget < need:
        what = "reusing" if cached else "building"
        _unavailable(f"needs about {need} s ({what} the stand-in base) and ci/test has {budget:.0f} s left of its "
                     "time budget")
    built = subprocess.run([script, STANDIN], env=_cli_env(engine), capture_output=True,
                           text=True)
    assert built.returncode == 0, f"ci/docker-standin-base failed:\n{built.stderr[-3000:]}"
    return STANDIN


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory, standin: str) -> Path:
    """The portable wheel (abi3, manylinux_2_28, linked with zig), as the Nix stage would build it."""
    out = tmp_path_factory.mktemp("wheel")
    bindir = Path(sys.executable).parent  # maturin, and zig (the ziglang package) through this Python
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
           "CARGO_TARGET_DIR": str(ROOT / "target" / "image-wheel")}
    cmd = [str(bindir / "maturin"), "build", "--release", "--locked", "--zig", "--compatibility", "manylinux_2_28",
           "--out", str(out)]
    built = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    assert built.returncode == 0, f"maturin build failed:\n{built.stderr[-3000:]}"
    (found,) = out.glob("verl_ext-*-manylinux_2_28_x86_64.whl")
    return found


def dockerfile_for_test(vendor: str) -> str:
    """Dockerfile.<vendor> with its Nix stage replaced by :data:`WHEEL_STAGE`; the preamble (ARGs) and the
    final stage stay verbatim."""
    lines = (ROOT / f"Dockerfile.{vendor}").read_text().splitlines(keepends=True)
    froms = [i for i, line in enumerate(lines) if line.startswith("FROM ")]
    stages = [lines[i].split() for i in froms]
    assert stages == [["FROM", "${NIX_IMAGE}", "AS", "wheel"], ["FROM", "${BASE_IMAGE}"]], (
        f"Dockerfile.{vendor}: expected a Nix stage named wheel, then the final stage on ${{BASE_IMAGE}}; got "
        f"{stages} (update this test with the Dockerfile)")
    return "".join(lines[: froms[0]]) + WHEEL_STAGE + "".join(lines[froms[-1]:])


def vendor_base_dockerfile(vendor: str) -> str:
    """The stand-in for one vendor's base: the stand-in less what docker/requirements-<vendor>.in adds to that
    base (the real base lacks it), so that the image's lock has to install all of it, hash-checked."""
    source = (ROOT / "docker" / f"requirements-{vendor}.in").read_text()
    names = [line.split("==")[0].strip() for line in source.splitlines() if line.strip() and not line.startswith("#")]
    assert names, f"docker/requirements-{vendor}.in lists no package"
    return f"FROM {STANDIN}\nRUN python3 -m pip uninstall --yes --quiet {' '.join(names)}\n"


def _docker_build(engine: Engine, what: str, log: list[str], **kwargs: Any) -> None:
    """docker-py's (classic) build, its output lines appended to ``log``; a test failure with the log's end when
    it fails."""
    for chunk in engine.client.api.build(pull=False, rm=True, forcerm=True, decode=True, **kwargs):
        log.append(chunk.get("stream", ""))
        if "error" in chunk:
            pytest.fail(f"docker build of {what} failed: {chunk['error']}\n{''.join(log)[-4000:]}", pytrace=False)


def _wheel_stage_id(log: list[str]) -> str | None:
    """The image the wheel stage ended with (the classic builder leaves it behind untagged)."""
    last = None
    for line in log:
        if step := re.match(r" ---> ([0-9a-f]{12})$", line.rstrip("\n")):
            last = step.group(1)
        elif re.match(r"Step \d+/\d+ : FROM \$\{BASE_IMAGE\}", line):
            return last
    return None


@pytest.fixture(scope="session", params=VENDORS)
def image(request: pytest.FixtureRequest, engine: Engine, standin: str, wheel: Path,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """verl-ext-imagetest:<vendor> on the vendor's stand-in base; both removed afterwards, with the build's
    intermediate images."""
    import docker

    vendor = request.param
    base = f"{standin}-{vendor}"
    log: list[str] = []
    context = tmp_path_factory.mktemp(f"context-{vendor}")
    shutil.copytree(ROOT / "docker", context / "docker")
    (context / WHEEL_DIR).mkdir()
    shutil.copy(wheel, context / WHEEL_DIR / wheel.name)
    (context / "Dockerfile").write_text(dockerfile_for_test(vendor))
    tag = f"verl-ext-imagetest:{vendor}"
    try:
        _docker_build(engine, f"the {vendor} stand-in base", [], tag=base,
                      fileobj=io.BytesIO(vendor_base_dockerfile(vendor).encode()))
        _docker_build(engine, f"Dockerfile.{vendor}", log, path=str(context), tag=tag, buildargs={"BASE_IMAGE": base})
        shutil.rmtree(context)
        yield tag
    finally:
        for leftover in (tag, _wheel_stage_id(log), base):
            try:
                if leftover:
                    engine.client.images.remove(leftover)
            except docker.errors.APIError:  # never built, or shared with another build
                pass


def _start_and_wait(api: Any, container: Any, timeout_s: int) -> tuple[int, str]:
    """Start a created container, wait for it and remove it: (exit status, its output)."""
    try:
        api.start(container)
        status = api.wait(container, timeout=timeout_s)["StatusCode"]
        output = api.logs(container).decode(errors="replace")
    finally:
        api.remove_container(container, force=True)
    return status, output


def _run(engine: Engine, image: str, script: str, *args: str, options: dict[str, Any] | None = None,
         extra_host_config: dict[str, Any] | None = None, user: str | None = None,
         timeout_s: int = 600) -> dict[str, Any]:
    """Run ``python3 -c script args`` in a fresh container (``options``: docker-py host config parameters);
    the JSON its last output line holds."""
    api = engine.client.api
    host_config = api.create_host_config(**(options or {}))
    host_config.update(extra_host_config or {})
    container = api.create_container(image, ["python3", "-c", script, *args], host_config=host_config, user=user)
    status, output = _start_and_wait(api, container, timeout_s)
    assert status == 0, f"the container exited with {status}:\n{output[-4000:]}"
    return json.loads(output.strip().splitlines()[-1])


#: Runs inside a container: `verl-ext doctor` (with sys.argv's options), the math rewards next to verl's own
#: scorer, and where things landed.
SMOKE = r"""
import importlib.metadata, json, os, subprocess, sys
import verl, verl_ext
from verl.utils.reward_score import default_compute_score
from verl_ext.reward import compute_score

doctor = subprocess.run(["verl-ext", "doctor", *sys.argv[1:]], capture_output=True, text=True)
cases = [("openai/gsm8k", "48 + 48 / 2 = 72 clips.\n#### 72", "72"),
         ("openai/gsm8k", "48 + 48 = 96 clips.\n#### 96", "72"),
         ("lighteval/MATH", "So the answer is $\\boxed{\\frac{1}{2}}$.", "\\frac{1}{2}"),
         ("lighteval/MATH", "So the answer is $\\boxed{2}$.", "\\frac{1}{2}")]
print(json.dumps({
    "doctor_rc": doctor.returncode, "doctor": doctor.stdout + doctor.stderr,
    "scores": [[compute_score(*c), default_compute_score(*c)] for c in cases],
    "verl_ext_file": verl_ext.__file__, "verl_ext_version": importlib.metadata.version("verl-ext"),
    "verl_file": verl.__file__,
    "configs": sorted(os.listdir(os.environ["VERL_EXT_CONFIGS"])), "cwd": os.getcwd(),
}))
"""

#: Runs inside a container: `verl-ext doctor` with the sandbox, one program and the code rewards in it (with
#: verl's prime_code scores beside them).
SANDBOX_SMOKE = r"""
import getpass, json, subprocess
from verl.utils.reward_score import default_compute_score
from verl_ext import sandbox
from verl_ext.reward import compute_score

doctor = subprocess.run(["verl-ext", "doctor"], capture_output=True, text=True)
ran = sandbox.run("print(int(input()) * 2)", stdin="21\n", timeout_s=10)
tests = json.dumps({"inputs": ["1 2\n", "3 4\n"], "outputs": ["3\n", "7\n"]})
cases = [("codecontests", "a, b = map(int, input().split())\nprint(a + b)", tests),
         ("codecontests", "a, b = map(int, input().split())\nprint(a * b)", tests)]
print(json.dumps({
    "doctor_rc": doctor.returncode, "doctor": doctor.stdout + doctor.stderr, "user": getpass.getuser(),
    "run": [ran.status, ran.stdout],
    "scores": [[compute_score(*c), default_compute_score(*c)] for c in cases],
}))
"""


def test_the_image_runs_main_ppo_with_the_packaged_configs(engine: Engine, image: str) -> None:
    config = engine.client.images.get(image).attrs["Config"]
    assert config["Cmd"] == MAIN_PPO
    assert config["WorkingDir"] == "/workspace"
    assert "VERL_EXT_CONFIGS=/opt/verl-ext/configs" in config["Env"]


def test_doctor_and_math_rewards_in_a_plain_container(engine: Engine, image: str, wheel: Path) -> None:
    got = _run(engine, image, SMOKE, "--no-sandbox")
    assert got["doctor_rc"] == 0, got["doctor"]
    assert re.search(r"^\s+verl\s+0\.9\.1$", got["doctor"], re.M), got["doctor"]
    assert re.search(r"^\s+verl plugin\s+reward manager verl_ext registered$", got["doctor"], re.M), got["doctor"]
    assert got["scores"] == [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0], [0.0, 0.0]]
    # The locally built wheel and the lock's verl went into the image's Python (the stand-in's /opt/venv).
    assert got["verl_ext_file"].startswith("/opt/venv/lib/"), got["verl_ext_file"]
    assert got["verl_file"].startswith("/opt/venv/lib/"), got["verl_file"]
    assert wheel.name.startswith(f"verl_ext-{got['verl_ext_version']}-")
    assert "grpo_math_verl_ext.yaml" in got["configs"]
    assert got["cwd"] == "/workspace"


def test_code_rewards_run_in_the_sandbox_with_the_documented_run_options(engine: Engine, image: str) -> None:
    got = _run(engine, image, SANDBOX_SMOKE, options=SANDBOX_RUN_OPTIONS, extra_host_config=SANDBOX_HOST_CONFIG)
    assert got["doctor_rc"] == 0, got["doctor"]
    assert re.search(r"^\s+full isolation\s+yes$", got["doctor"], re.M), got["doctor"]
    assert "container:" not in got["doctor"], got["doctor"]  # the image's own user cannot write /proc/sys
    assert got["user"] == "verl"
    assert got["run"] == ["ok", "42\n"]
    assert got["scores"] == [[1.0, 1.0], [0.0, 0.0]]


#: Runs inside a container: one program in the sandbox; the error when the sandbox is unavailable.
SANDBOX_PROBE = r"""
import json
from verl_ext import sandbox
from verl_ext.exceptions import SandboxUnavailableError
try:
    ran = sandbox.run("print(6 * 7)", timeout_s=10)
    print(json.dumps({"ok": [ran.status, ran.stdout]}))
except SandboxUnavailableError as e:
    print(json.dumps({"error": str(e)}))
"""

#: What the sandbox reports without each part of the documented set-up (measured with Docker 20.10).
NEEDED_FOR = {
    "clone3": "clone3 with new namespaces failed: Operation not permitted",
    "mount": "sandbox set-up failed: make mounts private: Operation not permitted",
    "umount2": "sandbox set-up failed: detach the old root: Operation not permitted",
    "pivot_root": "sandbox set-up failed: pivot_root: Operation not permitted",
    "sethostname": "sandbox set-up failed: set the hostname: Operation not permitted",
}


def test_each_addition_to_dockers_profile_is_needed(engine: Engine, image: str) -> None:
    """The profile allows nothing the sandbox can do without: with any one addition taken out, it fails at
    the step that needs it; with Docker's own default (the daemon's), clone3 answers ENOSYS; with /proc masked,
    the fresh /proc is refused."""
    seccomp_profile = load_ci_module("seccomp_profile")
    added = {name for rule in seccomp_profile.additions(PROFILE) for name in rule["names"]}
    assert added == set(NEEDED_FOR), "give each addition to docker/seccomp.json its failure here"
    cases = [({"security_opt": [_seccomp(seccomp_profile.without(PROFILE, [name])), "no-new-privileges"],
               "cap_drop": ["ALL"]}, SANDBOX_HOST_CONFIG, says) for name, says in NEEDED_FOR.items()]
    cases.append(({"cap_drop": ["ALL"]}, SANDBOX_HOST_CONFIG,
                  "clone3 with new namespaces failed: Function not implemented"))
    cases.append((SANDBOX_RUN_OPTIONS, None, "sandbox set-up failed: mount /proc: Operation not permitted"))
    for options, host_config, says in cases:
        got = _run(engine, image, SANDBOX_PROBE, options=options, extra_host_config=host_config)
        assert says in got.get("error", ""), (says, got)


def test_doctor_warns_when_the_hosts_root_runs_it_with_proc_unmasked(engine: Engine, image: str) -> None:
    """As uid 0 without a user namespace and with /proc unmasked, /proc/sys is writable (the kernel's
    settings): doctor says so. (The image's default user is verl.)"""
    # As root the sandbox maps each execution to an id of its own, which takes CAP_SETUID and CAP_SETGID.
    options = {**SANDBOX_RUN_OPTIONS, "cap_add": ["SETUID", "SETGID"]}
    got = _run(engine, image, SANDBOX_SMOKE, options=options, extra_host_config=SANDBOX_HOST_CONFIG, user="0")
    assert got["user"] == "root"
    assert re.search(r"WARNING container: this container runs as uid 0 .* /proc/sys/kernel/core_pattern writable",
                     got["doctor"]), got["doctor"]


#: One main_ppo step of the CPU run takes 100-170 s on the 2-core VM; ten times that is a hang (and what is left
#: of ci/test's budget bounds it too, below STEP_NEEDS_S the test skips).
STEP_TIMEOUT_S = 1500
STEP_NEEDS_S = 240


def test_main_ppo_trains_a_step_of_the_code_config_in_the_image(engine: Engine, image: str,
                                                               tmp_path_factory: pytest.TempPathFactory) -> None:
    """The image, started as docs/images.md tells users to (model and data from the environment, the shipped
    seccomp profile, /proc unmasked, the image's user), runs ``main_ppo`` with grpo_code_verl_ext for one
    step and a validation pass: the code rewards run in the sandbox on a Ray reward worker. On this machine's
    CPU: the stand-in base carries vLLM's CPU build, and the command appends verl-ext's CPU platform
    overrides and smoke's step sizes to the image's own command. Asserted from the run's metrics and dump."""
    if not image.endswith(":cuda"):
        pytest.skip("the step runs in the CUDA image; the ROCm image's final stage is the same recipe on the "
                    "same stand-in base (its doctor and sandbox tests run above)")
    timeout_s = STEP_TIMEOUT_S
    budget = _budget_s()
    if budget is not None:  # what is left of ci/test's budget bounds a hung step too
        timeout_s = int(min(timeout_s, budget - (time.monotonic() - MODULE_STARTED)))
        if timeout_s < STEP_NEEDS_S:
            _unavailable(f"the main_ppo step needs about {STEP_NEEDS_S} s and ci/test has {timeout_s} s left")
    import pandas as pd

    from tests.e2e.rows import code_rows
    from verl_ext.cpu.overrides import cpu_overrides
    from verl_ext.smoke.assets import tiny_checkpoint
    from verl_ext.smoke.run import STEP

    data = tmp_path_factory.mktemp("image-step")
    tiny_checkpoint(data / "model")
    pd.DataFrame(code_rows("train", 12)).to_parquet(data / "train.parquet")
    pd.DataFrame(code_rows("test", 4)).to_parquet(data / "test.parquet")
    (data / "out").mkdir()
    for path in (data, data / "out"):
        path.chmod(0o777)  # the image's user writes its outputs there
    for path in (data / "model").iterdir():
        path.chmod(0o644)  # and reads the model (transformers writes the weights 0600)
    api = engine.client.api
    command = [*engine.client.images.get(image).attrs["Config"]["Cmd"], *cpu_overrides(), *STEP,
               "trainer.validation_data_dir=/data/out/validation", "trainer.default_local_dir=/data/out/checkpoints"]
    assert command[command.index("--config-name") + 1] == "grpo_math_verl_ext"
    command[command.index("--config-name") + 1] = "grpo_code_verl_ext"
    host_config = api.create_host_config(ipc_mode="host", binds={str(data): {"bind": "/data", "mode": "rw"}},
                                         **SANDBOX_RUN_OPTIONS)
    host_config.update(SANDBOX_HOST_CONFIG)
    environment = {"VERL_EXT_MODEL_PATH": "/data/model", "VERL_EXT_TRAIN_FILES": "/data/train.parquet",
                   "VERL_EXT_VAL_FILES": "/data/test.parquet",
                   # This machine's CPU in place of the GPUs: verl-ext's CPU platform, and the run's metrics.
                   "VERL_PLATFORM": "cpu", "VERL_FILE_LOGGER_PATH": "/data/out/metrics.jsonl",
                   "TOKENIZERS_PARALLELISM": "false", "HYDRA_FULL_ERROR": "1"}
    container = api.create_container(image, command, host_config=host_config, environment=environment)
    started = time.monotonic()
    status, output = _start_and_wait(api, container, timeout_s)
    (data / "out" / "container.log").write_text(output)
    causes = [line for line in output.splitlines() if re.search(r"\w(Error|Exception)\b", line)]
    assert status == 0, "\n".join([output[-3000:], f"(whole log: {data / 'out' / 'container.log'})", *causes[-20:]])
    print(f"main_ppo in the image: {time.monotonic() - started:.0f} s")
    metrics = [json.loads(line) for line in (data / "out" / "metrics.jsonl").read_text().splitlines() if line]
    step = next(m["data"] for m in metrics if m.get("step") == 1)
    assert "val-core/humaneval/acc/mean@1" in step, sorted(step)
    (dump,) = sorted((data / "out" / "validation").glob("*.jsonl"))[-1:]
    rows = [json.loads(line) for line in dump.read_text().splitlines() if line.strip()]
    assert len(rows) == 4
    for row in rows:
        assert row["unscorable"] == 0, row  # the sandbox ran the tests: each row has a verdict
        assert row["tests_passed"] + row["tests_failed"] + row["tests_timeout"] + row["tests_error"] >= 1, row
