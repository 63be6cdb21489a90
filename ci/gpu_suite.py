"""The two halves of ``ci/gpu`` (stdlib only: the device half runs before anything of verl-ext is installed).

``prepare`` (this machine): build the verl-ext wheel, download the few wheels the device image lacks into
``.whl/`` (git-ignored, carried by the device tool), write a manifest (commit, source hash, wheels) and check
that the working tree plus ``.whl/`` fits the device tool's 64 MiB per call.

``run`` (a lent H100/H200, whose image has torch 2.11, triton 3.6, pytest, hypothesis and no network):
install the carried wheels into a target directory, check the GPU and that the wheel matches the tree, warm
up FlashInfer's JIT build of its sampling module in the background, run the GPU tests, then ``verl-ext bench
logprob`` and ``sampling``; every stage under a timeout inside one overall budget, so the command ends well
inside the tool's 10 minutes and still reports what finished. Results land in ``benchmarks/results/`` and
in ``$OUT`` (what the device tool brings back).

``collect DIR`` (this machine): copy the results a run brought back into ``benchmarks/results/``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WHEEL_DIR = ".whl"
MANIFEST = "gpu-suite-manifest.json"
#: The device tool's limits (/work/.library/device/README.md): the working tree plus carried paths per
#: call, a command's length, a command's run, and the files that come back from $OUT.
CARRY_LIMIT_BYTES = 64 * 2**20
COMMAND_LIMIT_CHARS = 2000
RUN_LIMIT_S = 600
OUT_FILE_LIMIT = 8
#: The whole run's budget: the tool's 600 s minus room for the interpreter's start and the copy back.
DEFAULT_BUDGET_S = 540
#: The last stage: verl-ext through FlashInfer against its Triton path (the evidence for backend="auto"), at
#: three batch sizes, after the issue's sizes have had their time.
SAMPLING_BACKENDS_ARGS = ["--flashinfer-backend", "--batch", "1", "64", "1024", "--vocab", "151936",
                          "--distribution", "peaked", "flat", "--time-budget", "25"]
#: The device image: CPython 3.12 on x86-64 glibc (Ubuntu 24.04); pip matches manylinux tags exactly.
DEVICE_PYTHON = "3.12"
DEVICE_PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64",
                    "manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux1_x86_64")
#: What the device lacks for the GPU path, pinned. flashinfer-python is vLLM 0.24's pin (the rollout stack
#: verl 0.9.1 uses); its import needs apache-tvm-ffi (in its range <0.2, !=0.1.8), pinned at the version
#: ci/requirements-vllm.lock holds (what a full vLLM 0.24.0 install resolves); everything else its
#: import touches (numpy, einops, click, requests, tabulate, packaging, nvidia-ml-py, ninja, cuda-bindings,
#: tqdm) is in the image. verl-ext's own GPU path needs only tqdm, also in the image. verl itself (pure
#: Python) is carried for `bench logprob`'s baseline, its `linear_cross_entropy`: `import verl` needs Ray (79 MB,
#: not carried), so the bench imports the kernel's own files without verl's package __init__ (they need only
#: torch, triton and packaging).
DOWNLOADS = ("flashinfer-python==0.6.12", "apache-tvm-ffi==0.1.9", "verl==0.9.1")
#: Their sizes as downloaded (2026-11), and room for the verl-ext wheel (1.6 MB today): the budget test's plan.
DOWNLOAD_BYTES = {"flashinfer-python==0.6.12": 13_985_243, "apache-tvm-ffi==0.1.9": 2_278_991,
                  "verl==0.9.1": 1_694_325}
VERL_EXT_WHEEL_ALLOWANCE = 8 * 2**20
FLASHINFER_WHEELS = ("flashinfer_python-", "apache_tvm_ffi-")
VERL_WHEEL = "verl-"
#: Measured (PyPI, 2026-11) and left behind, with the reason; printed by prepare, quoted by the README.
NOT_CARRIED = (
    ("flashinfer-cubin==0.6.12", "447.5 MB: prebuilt cubins; the sampling module is JIT-built there with the "
                                 "image's nvcc instead"),
    ("flashinfer-jit-cache (cu130)", "several GB, on flashinfer.ai's index only: the same JIT modules prebuilt"),
    ("nvidia-cutlass-dsl 4.8.1 (+libs-cu13 92.0 MB)", "CuTe-DSL kernels only; `import flashinfer.sampling` "
                                                      "does not need it"),
    ("nvidia-cudnn-frontend, cuda-tile", "cuDNN attention and cuTile kernels only; not on the sampling path"),
    ("ray 2.60 (79.3 MB) + tensordict, omegaconf, ... (what `import verl` needs)",
     "over the budget alone; `bench logprob` imports verl's linear_cross_entropy without them"),
)
#: Files whose content the wheel is built from: the device checks the carried wheel against its tree copy.
SOURCE_GLOBS = ("verl_ext/**/*.py", "verl_ext/**/*.pyi", "hydra_plugins/**/*.py", "crates/**/*.rs",
                "crates/**/Cargo.toml", "Cargo.toml", "Cargo.lock", "pyproject.toml")
#: The device command (the `run` tool's `command`) and its carry list.
DEVICE_COMMAND = "bash ci/gpu run"
DEVICE_CARRY = (WHEEL_DIR,)


# ------------------------------------------------------------------------------------------------ shared
def sources_digest(root: Path = ROOT) -> str:
    """sha256 over the wheel's sources (path and bytes, sorted), the same on this machine and the device."""
    h = hashlib.sha256()
    files = {p for pattern in SOURCE_GLOBS for p in root.glob(pattern)
             if p.is_file() and "__pycache__" not in p.parts and "target" not in p.parts}
    if (root / ".git").exists():  # here: only what the device tool carries (an ignored .py stays behind)
        files &= set(travelling_files(root))
    for p in sorted(files):
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def device_command() -> str:
    return DEVICE_COMMAND


# ---------------------------------------------------------------------------------------------- prepare
def travelling_files(root: Path = ROOT) -> list[Path]:
    """What the device tool sends besides carried paths: tracked files and untracked files git does not
    ignore (and ``shared/`` where the checkout has one)."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                         capture_output=True, check=True).stdout
    files = {root / p for p in out.decode().split("\0") if p}
    shared = root / "shared"
    if shared.is_dir():
        files |= {p for p in shared.rglob("*") if p.is_file()}
    return sorted(p for p in files if p.is_file() and not p.is_symlink())


def bundle_sizes(root: Path = ROOT) -> dict[str, int]:
    """Bytes per part of a device call: the working tree, then each carried wheel."""
    sizes = {"working tree": sum(p.stat().st_size for p in travelling_files(root))}
    for w in sorted((root / WHEEL_DIR).glob("*.whl")):
        sizes[w.name] = w.stat().st_size
    manifest = root / WHEEL_DIR / MANIFEST
    if manifest.exists():
        sizes[MANIFEST] = manifest.stat().st_size
    return sizes


def check_budget(sizes: dict[str, int], limit: int = CARRY_LIMIT_BYTES) -> list[str]:
    """Problems with a device call of these parts (empty when it fits)."""
    total = sum(sizes.values())
    if total > limit:
        return [f"a device call would carry {total / 2**20:.1f} MiB, over the {limit / 2**20:.0f} MiB limit"]
    return []


def download_command(requirement: str, dest: Path, python: str = sys.executable) -> list[str]:
    """pip download of one pinned wheel for the device's Python and platform, without its dependencies."""
    cmd = [python, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--python-version",
           DEVICE_PYTHON, "--implementation", "cp", "-d", str(dest), requirement]
    for plat in (*DEVICE_PLATFORMS, "any"):
        cmd += ["--platform", plat]
    return cmd


def prepare(root: Path = ROOT, wheel: Path | None = None) -> int:
    """Download the pinned wheels next to the verl-ext wheel ``ci/gpu prepare`` built, write the manifest,
    print the size table and the device call. 0 when it fits."""
    dest = root / WHEEL_DIR
    built = sorted(dest.glob("verl_ext-*.whl"))
    if len(built) != 1:
        print(f"ci/gpu prepare: expected one verl_ext wheel in {WHEEL_DIR}/, found {len(built)}", file=sys.stderr)
        return 1
    for req in DOWNLOADS:
        subprocess.run(download_command(req, dest), check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                capture_output=True, text=True).stdout.strip())
    wheels = {w.name: {"bytes": w.stat().st_size, "sha256": hashlib.sha256(w.read_bytes()).hexdigest()}
              for w in sorted(dest.glob("*.whl"))}
    (dest / MANIFEST).write_text(json.dumps({"commit": head + ("-dirty" if dirty else ""),
                                             "sources_sha256": sources_digest(root), "wheels": wheels},
                                            indent=2) + "\n")
    sizes = bundle_sizes(root)
    for name, size in sizes.items():
        print(f"  {size / 2**20:7.2f} MiB  {name}")
    print(f"  {sum(sizes.values()) / 2**20:7.2f} MiB  in all (limit {CARRY_LIMIT_BYTES / 2**20:.0f} MiB per call)")
    print("not carried:")
    for name, why in NOT_CARRIED:
        print(f"  {name}: {why}")
    problems = check_budget(sizes)
    for p in problems:
        print(f"ci/gpu prepare: {p}", file=sys.stderr)
    if problems:
        return 1
    print("\nOn the GPU machine (the device tool's run):")
    print(f"  command: {device_command()}")
    print(f"  carry:   {json.dumps(list(DEVICE_CARRY))}")
    print("then, here: ci/gpu collect <the reply's files_at folder>")
    return 0


# -------------------------------------------------------------------------------------------------- run
@dataclass
class Stage:
    name: str
    seconds: float = 0.0
    rc: int | None = None
    timed_out: bool = False
    note: str = ""

    def as_dict(self) -> dict[str, object]:
        return {"name": self.name, "rc": self.rc, "seconds": round(self.seconds, 1), "timed_out": self.timed_out,
                **({"note": self.note} if self.note else {})}


@dataclass
class Runner:
    """Runs stages as process groups under timeouts that never overrun the run's deadline."""

    log: Path
    deadline: float
    env: dict[str, str]
    stages: list[Stage] = field(default_factory=list)

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def timeout(self, cap: float, reserve: float = 0.0) -> float:
        """A stage's timeout: its cap, cut so ``reserve`` seconds remain for the stages after it."""
        return max(0.0, min(cap, self.remaining() - reserve))

    def start(self, name: str, cmd: list[str], cwd: Path, log: Path) -> tuple[subprocess.Popen[bytes], float]:
        self._banner(name, cmd)
        out = log.open("ab")
        proc = subprocess.Popen(cmd, cwd=cwd, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)  # its own process group: a timeout ends all of it
        out.close()
        return proc, time.monotonic()

    def finish(self, name: str, proc: subprocess.Popen[bytes], started: float, timeout: float) -> Stage:
        stage = Stage(name)
        try:
            stage.rc = proc.wait(timeout=max(0.0, timeout - (time.monotonic() - started)))
        except subprocess.TimeoutExpired:
            stage.timed_out = True
            _kill_group(proc)
            stage.rc = proc.returncode
        stage.seconds = time.monotonic() - started
        self.stages.append(stage)
        status = "timed out" if stage.timed_out else f"rc={stage.rc}"
        print(f"[ci/gpu] {name}: {status} after {stage.seconds:.0f} s", flush=True)
        return stage

    def run(self, name: str, cmd: list[str], cwd: Path, cap: float, reserve: float = 0.0,
            log: Path | None = None) -> Stage:
        limit = self.timeout(cap, reserve)
        if limit < 1:
            stage = Stage(name, timed_out=True, note="no time left in the run's budget")
            self.stages.append(stage)
            print(f"[ci/gpu] {name}: skipped, no time left", flush=True)
            return stage
        proc, started = self.start(name, cmd, cwd, log or self.log)
        stage = self.finish(name, proc, started, limit)
        if log is not None and log != self.log:  # the stage's own log is appended to the run's
            with self.log.open("ab") as f:
                f.write(log.read_bytes())
        return stage

    def _banner(self, name: str, cmd: list[str]) -> None:
        shown = " ".join(a if "\n" not in a else "<script>" for a in cmd)
        line = f"\n[ci/gpu] == {name}: {shown} ({self.remaining():.0f} s left)\n"
        print(line.strip(), flush=True)
        with self.log.open("a") as f:
            f.write(line)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


#: Run on the device after the install: the facts the rest of the run needs, as one JSON line.
PREFLIGHT = """
import json, os, sys
import torch
rehearsal = os.environ.get("VERL_EXT_GPU_SUITE_REHEARSAL") == "1"
if not torch.cuda.is_available() and not rehearsal:
    sys.exit("no CUDA GPU visible to torch " + torch.__version__ + " (torch.cuda.is_available() is False)")
import triton
import verl_ext
from verl_ext.bench.report import cpu_device, gpu_device
gpu = torch.cuda.is_available()
print(json.dumps({"device": gpu_device() if gpu else cpu_device(), "gpu": torch.cuda.get_device_name() if gpu else None,
                  "capability": list(torch.cuda.get_device_capability()) if gpu else None, "torch": torch.__version__,
                  "torch_cuda": torch.version.cuda, "triton": triton.__version__, "python": sys.version.split()[0],
                  "verl_ext_file": verl_ext.__file__}))
"""

#: JIT-builds and calls FlashInfer's sampling kernel once, so later processes load it from the cache.
FLASHINFER_WARMUP = """
import torch, flashinfer, flashinfer.sampling as fs
logits = torch.randn(4, 1000, device="cuda")
tok = fs.top_k_top_p_sampling_from_logits(logits, 10, 0.9)
torch.cuda.synchronize()
assert tok.shape == (4,) and bool(((tok >= 0) & (tok < 1000)).all()), tok
print("flashinfer", flashinfer.__version__, "sampling module built and ran")
"""


def find_nvcc() -> str | None:
    """nvcc for FlashInfer's JIT: on PATH, under CUDA_HOME, or in the usual install folders."""
    found = shutil.which("nvcc")
    if found:
        return found
    for base in (os.environ.get("CUDA_HOME"), "/usr/local/cuda", *sorted(map(str, Path("/usr/local").glob("cuda-*")))):
        if base and Path(base, "bin", "nvcc").is_file():
            return str(Path(base, "bin", "nvcc"))
    return None


def gpu_test_files(tests: Path) -> list[str]:
    """The test files holding ``gpu``-marked tests, relative to ``tests``' parent. Only these are collected:
    other files may run kernels at import time in Triton's interpreter (CPU only), which the compiled run
    turns off."""
    return [p.relative_to(tests.parent).as_posix() for p in sorted(tests.rglob("test_*.py"))
            if "pytest.mark.gpu" in p.read_text(errors="replace")]


def junit_summary(path: Path) -> dict[str, object]:
    """Counts and skip reasons from a pytest JUnit XML file."""
    if not path.exists():
        return {"missing": True}
    root = ET.parse(path).getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    if suite is None:
        return {"missing": True}
    counts = {k: int(suite.get(k, "0")) for k in ("tests", "failures", "errors", "skipped")}
    skips: dict[str, int] = {}
    failed = []
    for case in suite.iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        for tag in ("failure", "error"):
            if case.find(tag) is not None:
                failed.append(name)
        skip = case.find("skipped")
        if skip is not None:
            reason = skip.get("message", "")
            skips[reason] = skips.get(reason, 0) + 1
    return {**counts, "passed": counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"],
            "failed": failed, "skip_reasons": skips}


def run_suite(root: Path = ROOT, out: Path | None = None, work: Path = Path("/tmp/verl-ext-gpu"),
              budget_s: float = DEFAULT_BUDGET_S, python: str = sys.executable, rehearsal: bool = False) -> int:
    """The device half. 0 when every stage passed; the summary is written whatever happens.

    ``rehearsal`` runs every stage without a GPU (the GPU tests skip, the benchmarks check correctness only)
    and writes only to ``out``: a test of this orchestration on any machine, never results to publish.
    """
    t0 = time.monotonic()
    out = out or (root / "benchmarks" / "runs" / "gpu-suite")
    results = out if rehearsal else root / "benchmarks" / "results"
    for d in (out, results):
        d.mkdir(parents=True, exist_ok=True)
    if work.exists():
        shutil.rmtree(work)
    # Named so that no folder here shadows a package: benchmarks and tests run with cwd = suite_dir.
    site, fi_site, suite_dir = work / "site-verl-ext", work / "site-flashinfer", work / "suite"
    verl_site = work / "site-verl"
    for d in (site, fi_site, suite_dir, verl_site):
        d.mkdir(parents=True)
    log = out / "gpu-suite.log"
    log.write_text("")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TRITON_INTERPRET")}
    env.update(PYTHONPATH=str(site), PYTHONUNBUFFERED="1", HYPOTHESIS_PROFILE="ci", PATH=f"{site / 'bin'}:"
               f"{env.get('PATH', '/usr/bin:/bin')}",
               # tests/ops/conftest.py defaults to the interpreter; the GPU suite tests the compiled kernels
               TRITON_INTERPRET="0")
    if rehearsal:
        env["VERL_EXT_GPU_SUITE_REHEARSAL"] = "1"
    r = Runner(log=log, deadline=t0 + budget_s, env=env)
    summary: dict[str, object] = {"suite": "gpu", "budget_s": budget_s, "rehearsal": rehearsal}
    manifest_path = root / WHEEL_DIR / MANIFEST
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    summary["commit"] = manifest.get("commit")

    def finish(code: int, device: str = "unknown") -> int:
        summary.update(device=device, seconds=round(time.monotonic() - t0, 1), ok=code == 0,
                       stages=[s.as_dict() for s in r.stages])
        text = json.dumps(summary, indent=2) + "\n"
        name = f"gpu-suite-{device}.json"
        (out / name).write_text(text)
        if device != "unknown" and results != out:
            (results / name).write_text(text)
        print("\n[ci/gpu] stage                 rc   seconds")
        for s in r.stages:
            print(f"[ci/gpu] {s.name:<20} {'T/O' if s.timed_out else s.rc!s:>4} {s.seconds:8.0f}  {s.note}")
        print(f"[ci/gpu] {'ok' if code == 0 else 'FAILED'} in {time.monotonic() - t0:.0f} s; results in {out}")
        return code

    # 1. Install: the carried wheels, never built here; FlashInfer apart, so a failed JIT can drop it.
    wheels = sorted((root / WHEEL_DIR).glob("*.whl"))
    ours = [w for w in wheels if w.name.startswith("verl_ext-")]
    fi = [w for w in wheels if w.name.startswith(FLASHINFER_WHEELS)]
    verl = [w for w in wheels if w.name.startswith(VERL_WHEEL)]
    if len(ours) != 1:
        print(f"ci/gpu run: expected one verl_ext wheel in {WHEEL_DIR}/ (run `ci/gpu prepare` here and carry "
              f"{WHEEL_DIR}), found {len(ours)}", file=sys.stderr)
        return finish(2)
    pip = [python, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--no-compile", "--no-cache-dir",
           "--disable-pip-version-check", "--target"]
    if r.run("install verl-ext", [*pip, str(site), str(ours[0])], root, cap=60).rc != 0:
        return finish(1)
    if fi:
        r.run("install flashinfer", [*pip, str(fi_site), *map(str, fi)], root, cap=60)
    if verl:  # only on the logprob bench's path (below): the tests must not see a verl without its dependencies
        r.run("install verl", [*pip, str(verl_site), *map(str, verl)], root, cap=60)

    # 2. Preflight: a GPU, and the wheel built from this tree (a stale wheel would misattribute results).
    pre = r.run("preflight", [python, "-c", PREFLIGHT], suite_dir, cap=90, log=work / "preflight.log")
    lines = (work / "preflight.log").read_text().strip().splitlines()
    if pre.rc != 0 or not lines:
        msg = lines[-1] if lines else "no output"
        print(f"ci/gpu run: preflight failed: {msg}\n  ci/gpu run needs an NVIDIA GPU (a lent H100/H200 through "
              "the device tool); on this machine use `ci/gpu prepare`.", file=sys.stderr)
        return finish(3)
    facts = json.loads(lines[-1])
    summary["environment"] = facts
    device = str(facts["device"])
    if not str(facts["verl_ext_file"]).startswith(str(site)):
        print(f"ci/gpu run: verl_ext was imported from {facts['verl_ext_file']}, not the carried wheel",
              file=sys.stderr)
        return finish(1, device)
    if manifest.get("sources_sha256") not in (None, sources_digest(root)):
        print("ci/gpu run: the carried wheel was built from other sources than this tree; run `ci/gpu prepare` "
              "again before the device call", file=sys.stderr)
        return finish(1, device)

    # 3. FlashInfer's JIT build (nvcc, ninja) in the background while the Triton tests run.
    fi_state: dict[str, object] = {"carried": bool(fi)}
    warm = None
    nvcc = find_nvcc()
    if fi and nvcc:
        fi_env = dict(env, PYTHONPATH=f"{site}:{fi_site}", CUDA_HOME=str(Path(nvcc).parents[1]),
                      MAX_JOBS=str(max(1, (os.cpu_count() or 4) - 4)))  # leave cores to the Triton tests
        warm_runner = Runner(log=work / "flashinfer-warmup.log", deadline=r.deadline, env=fi_env,
                             stages=r.stages)
        # FlashInfer is the baseline, verl-ext the subject: its build never eats the benchmarks' time.
        warm_cap = r.timeout(240, reserve=240)
        warm = (warm_runner, *warm_runner.start("flashinfer JIT", [python, "-c", FLASHINFER_WARMUP], suite_dir,
                                                 warm_runner.log), warm_cap)
    elif fi:
        fi_state["reason"] = "no nvcc on this machine for FlashInfer's JIT build"

    tests = root / "tests"
    shutil.copytree(tests, suite_dir / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(root / "pyproject.toml", suite_dir / "pyproject.toml")  # markers and pytest options
    # A file that fails to import costs its own tests, not the others' results (the stage still fails).
    pytest = [python, "-m", "pytest", "-p", "no:cacheprovider", "--continue-on-collection-errors", "-m", "gpu",
              "-rs", "-q", *gpu_test_files(suite_dir / "tests")]

    # 4. GPU tests without FlashInfer (from a copy of tests/, so the repo's verl_ext/ cannot shadow the wheel).
    junit_triton = out / "pytest-triton.xml"
    r.run("pytest (triton)", [*pytest, "-k", "not flashinfer", f"--junitxml={junit_triton}"], suite_dir, cap=200,
          reserve=150)

    if warm is not None:
        warm_runner, proc, started, cap = warm
        stage = warm_runner.finish("flashinfer JIT", proc, started, cap)
        with log.open("ab") as f:
            f.write(warm_runner.log.read_bytes())
        fi_state["jit_seconds"] = round(stage.seconds, 1)
        if stage.rc == 0:
            env["PYTHONPATH"] = f"{site}:{fi_site}"
            env["CUDA_HOME"] = str(Path(nvcc or "").parents[1])
        else:
            tail = warm_runner.log.read_text(errors="replace").strip().splitlines()[-1:] or ["no output"]
            fi_state["reason"] = ("FlashInfer's JIT build timed out" if stage.timed_out else
                                  f"FlashInfer's JIT build failed: {tail[0][:300]}")
    elif not fi:
        fi_state["reason"] = "flashinfer-python was not carried (ci/gpu prepare downloads it)"
    fi_state["available"] = "reason" not in fi_state
    if "reason" in fi_state:
        env["VERL_EXT_NO_FLASHINFER_REASON"] = str(fi_state["reason"])
    summary["flashinfer"] = fi_state

    junit_fi = out / "pytest-flashinfer.xml"
    r.run("pytest (flashinfer)", [*pytest, "-k", "flashinfer", f"--junitxml={junit_fi}"], suite_dir, cap=120,
          reserve=120)
    summary["pytest"] = {"triton": junit_summary(junit_triton), "flashinfer": junit_summary(junit_fi)}

    # 5. Benchmarks, written with the device's name; bounded repeats keep each well inside its cap.
    bench_files = {}
    for name, bench, extra, cap, reserve in (("logprob", "logprob", [], 180, 90), ("sampling", "sampling", [], 120, 30),
                                             ("sampling-backends", "sampling", SAMPLING_BACKENDS_ARGS, 45, 0)):
        path = results / f"{name}-{device}.json"
        if bench == "logprob":
            r.env = dict(env, PYTHONPATH=f"{env['PYTHONPATH']}:{verl_site}")
        stage = r.run(f"bench {name}", [str(site / "bin" / "verl-ext"), "bench", bench, *extra, "--json", str(path),
                                        "--no-progress"], suite_dir, cap=cap, reserve=reserve)
        r.env = env
        if path.exists() and stage.rc == 0:
            bench_files[name] = path.name
            if results != out:
                shutil.copy2(path, out / path.name)
    summary["results"] = bench_files
    failed = any(s.rc != 0 or s.timed_out for s in r.stages)
    return finish(1 if failed else 0, device)


# ---------------------------------------------------------------------------------------------- collect
def collect(src: Path, root: Path = ROOT) -> int:
    """Copy a run's result files (``<bench>-<device>.json``, ``gpu-suite-<device>.json``) into
    ``benchmarks/results/``."""
    copied = 0
    for p in sorted(src.rglob("*.json")):
        data = json.loads(p.read_text())
        if isinstance(data, dict) and data.get("device") not in (None, "unknown") and (
                "benchmark" in data or data.get("suite") == "gpu"):
            dest = root / "benchmarks" / "results" / p.name
            shutil.copyfile(p, dest)  # files_at is read-only: copy the bytes, not the mode
            print(f"  {dest.relative_to(root)}")
            copied += 1
    if not copied:
        print(f"ci/gpu collect: no result files in {src}", file=sys.stderr)
        return 1
    print("review, then commit them with the device in the message")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="ci/gpu", description=__doc__.split("\n\n")[0] if __doc__ else None)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("prepare", help="(after the wheel is built) download, manifest, size check")
    run = sub.add_parser("run", help="on the GPU machine: install, tests, benchmarks")
    run.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S, help="seconds for the whole run")
    run.add_argument("--cpu-rehearsal", action="store_true",
                     help="every stage without a GPU (tests skip, benchmarks check correctness), results only "
                          "in $OUT or benchmarks/runs/gpu-suite: to test ci/gpu itself")
    sub.add_parser("plan", help="print the device command, carry list and the current bundle's sizes")
    c = sub.add_parser("collect", help="copy a run's results into benchmarks/results/")
    c.add_argument("dir", type=Path)
    args = p.parse_args(argv)
    if args.cmd == "prepare":
        return prepare()
    if args.cmd == "run":
        out = os.environ.get("OUT")
        return run_suite(out=Path(out) if out else None, budget_s=args.budget, rehearsal=args.cpu_rehearsal)
    if args.cmd == "collect":
        return collect(args.dir)
    sizes = bundle_sizes()
    print(json.dumps({"command": device_command(), "carry": list(DEVICE_CARRY), "bytes": sizes,
                      "total_bytes": sum(sizes.values()), "limit_bytes": CARRY_LIMIT_BYTES}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
