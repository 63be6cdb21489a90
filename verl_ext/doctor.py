"""``verl-ext doctor``: what this host offers verl-ext, whether the sandbox can run, and whether a config will.

``verl-ext doctor --config NAME [overrides...]`` composes a main_ppo config as ``python -m
verl.trainer.main_ppo --config-name NAME overrides...`` would (the same Hydra overrides), then checks,
before anything starts, what a run would otherwise discover late: what the config needs from the host
(:func:`needs`), and what is wrong with the config itself (:func:`check_config`): the reward manager's
name, the ``verl_ext`` manager's ``reward_kwargs``, the user's reward functions (import, signature, kind)
and the data files (existence, columns, data sources without a scorer, ground truths of a type their
scorer cannot read). Each finding names the config key it comes from. ``--json`` prints one JSON object
instead of the report. The exit status is 1 when something is missing or wrong.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import importlib.util
import inspect
import json
import os
import platform
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from verl_ext import container
from verl_ext.exceptions import ConfigError, InvalidInputError, VerlExtError
from verl_ext.wording import counted

__all__ = ["Finding", "Need", "add_arguments", "add_config_arguments", "check_config", "compose", "config_argument",
           "config_file", "configs_dir", "main", "needs", "plugins_disabled", "run"]

#: Version of the ``--json`` object's layout.
SCHEMA_VERSION = 1
#: Distributions whose versions the report lists.
DISTS = ("verl", "torch", "ray", "vllm", "triton", "flashinfer-python")
#: Rows read from the start of each parquet data file (only its data source and reward_model columns).
DATA_ROWS = 4096
#: Code ground truths parsed per data source and file (they can be megabytes each).
CODE_ROWS = 256
#: Finding levels; ``error`` fails the doctor.
OK, WARNING, ERROR = "ok", "warning", "error"
_LABELS = {OK: "ok     ", WARNING: "WARNING", ERROR: "ERROR  "}


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _accelerator() -> str:
    try:
        import torch
    except ImportError:
        return "unknown (torch not installed)"
    if torch.cuda.is_available():
        kind = "ROCm" if getattr(torch.version, "hip", None) else "CUDA"
        return f"{kind}: {torch.cuda.get_device_name(0)} (x{torch.cuda.device_count()})"
    return "none (CPU only)"


def plugins_disabled() -> str | None:
    """``VERL_USE_EXTERNAL_PLUGINS=...`` when it keeps ``import verl`` from loading verl-ext's plugin (then
    the manager is used by import path, as the README shows), else None."""
    policy = os.environ.get("VERL_USE_EXTERNAL_PLUGINS", "auto").strip().lower()
    if policy == "auto" or (policy != "none" and "verl_ext" in {p.strip() for p in policy.split(",")}):
        return None
    return f"VERL_USE_EXTERNAL_PLUGINS={policy}"


def _registration() -> str | None:
    """None when ``import verl`` registered the ``verl_ext`` reward managers (or, with the plugin disabled, when
    the managers import by path), else what went wrong (verl only logs a failing plugin at DEBUG, so a broken
    install would otherwise surface mid-run)."""
    if plugins_disabled():
        try:
            manager = importlib.import_module("verl_ext.reward.manager")
            for name in ("VerlExtRewardManager", "VerlExtBatchRewardManager"):
                getattr(manager, name)
        except (ImportError, AttributeError) as e:
            return f"{type(e).__name__}: {e}"
        return None
    try:
        importlib.import_module("verl")  # loads the verl.plugins entry points
        from verl.experimental.reward_loop.reward_manager import get_reward_manager_cls as loop_manager
        from verl.workers.reward_manager import get_reward_manager_cls as legacy_manager

        for lookup in (loop_manager, legacy_manager):
            lookup("verl_ext")
    except (ImportError, AttributeError, LookupError, ValueError) as e:  # a missing verl, an unknown manager
        return f"{type(e).__name__}: {e}"
    return None


def _mode_fix(sandbox: Any) -> str:
    return (f"set VERL_EXT_SANDBOX_MODE to one of {', '.join(sandbox.MODES)}, or unset it "
            f"({sandbox.MODES[0]} is the default)")


def _mode(sandbox: Any) -> str:
    try:
        mode = sandbox.mode()
    except InvalidInputError as e:
        return f"invalid: {e}; {_mode_fix(sandbox)}"
    if mode == sandbox.WEAK_MODE:
        return f"{mode} (VERL_EXT_SANDBOX_MODE): NO namespace isolation, a warning on every batch"
    return f"{mode} (refuses to run code where isolation is unavailable)"


def _warm_starts(sandbox: Any) -> str:
    """Try the zygote once; report the per-execution cost."""
    if not sandbox.warm_starts():
        return "off (VERL_EXT_SANDBOX_WARM=0 or per-execution cgroups requested): an interpreter per execution"
    try:
        sandbox.run("pass")
        start = time.perf_counter()
        runs = sandbox.run_many(["pass"] * 20, num_threads=1)
        per = (time.perf_counter() - start) / len(runs) * 1e3
    except (VerlExtError, OSError) as e:
        return f"FAILED ({e}); set VERL_EXT_SANDBOX_WARM=0 to start an interpreter per execution"
    if any(r.status != "ok" for r in runs):
        return f"FAILED: {runs[0]}"
    return f"yes: a zygote forks each execution, {per:.1f} ms each (empty program)"


@dataclass(frozen=True)
class Need:
    """Something a config needs from the host, and which config key asks for it."""

    what: str
    why: str
    present: bool


@dataclass(frozen=True)
class Finding:
    """One result of checking a config (or the environment): ``key`` is the config key or environment
    variable it comes from, ``level`` one of ``ok``, ``warning``, ``error`` (errors fail the doctor)."""

    level: str
    key: str
    message: str


def configs_dir() -> Path:
    """verl-ext's configs: ``$VERL_EXT_CONFIGS`` when set, else the package's own (``verl_ext/configs``)."""
    env = os.environ.get("VERL_EXT_CONFIGS")
    return Path(env) if env else Path(__file__).resolve().parent / "configs"


def config_file(config: str) -> Path:
    """The YAML file of ``config``: a path to one, or a name: one of verl-ext's configs (:func:`configs_dir`,
    where main_ppo finds it too), else ``NAME.yaml`` in the current directory. Raises FileNotFoundError."""
    path = Path(config).expanduser()
    if path.suffix in (".yaml", ".yml"):
        candidates = [path]
    else:
        candidates = [configs_dir() / f"{config}.yaml", Path(f"{config}.yaml")]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"no config {config!r} (looked for {' and '.join(str(c) for c in candidates)})")


def config_argument(args: argparse.Namespace) -> str | None:
    """``--config``, or main_ppo's ``--config-name NAME`` (a name, as ``--config`` takes it) with
    ``--config-path DIR`` (then the file DIR/NAME.yaml). Raises ValueError for a mix of the two forms."""
    if args.config_name is None:
        if args.config_path is not None:
            raise ValueError("--config-path needs --config-name (as on main_ppo's command line)")
        return args.config
    if args.config is not None:
        raise ValueError("give --config, or main_ppo's --config-path/--config-name, not both")
    if args.config_path is None:
        return str(args.config_name)
    name = args.config_name if args.config_name.endswith((".yaml", ".yml")) else f"{args.config_name}.yaml"
    return str(Path(args.config_path) / name)


def add_config_arguments(p: argparse.ArgumentParser, required: bool) -> None:
    """``--config`` (a name or a YAML path) and main_ppo's own ``--config-path``/``--config-name``."""
    p.add_argument("--config", default=None, metavar="NAME_OR_YAML",
                   help=("" if required else "also check ") + "the main_ppo config: a name in verl-ext's configs "
                        "(verl_ext/configs) or in the current directory (NAME.yaml), or a YAML path")
    p.add_argument("--config-path", default=None, metavar="DIR", help="as on main_ppo's command line (with "
                   "--config-name)")
    p.add_argument("--config-name", default=None, metavar="NAME", help="as on main_ppo's command line")


def compose(config: str, overrides: Sequence[str] = ()) -> Any:
    """Compose a main_ppo config the way ``python -m verl.trainer.main_ppo --config-name`` would, with the
    same Hydra ``overrides``: ``config`` is a path to a YAML file or the name of one of verl-ext's configs
    (:func:`configs_dir`). verl's configs and verl-ext's are on the search path (verl-ext's Hydra plugin)."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    path = config_file(config)
    with initialize_config_dir(config_dir=str(path.resolve().parent), version_base=None):
        return hydra_compose(config_name=path.stem, overrides=list(overrides))


def needs(cfg: Any, accelerator: str, sandbox_ok: bool) -> list[Need]:
    """What ``cfg`` needs from this host. Only what a run would otherwise discover late (after Ray and the
    model are up) is listed."""
    found: list[Need] = []
    rollout = cfg.actor_rollout_ref.rollout
    engine = str(rollout.get("name", ""))
    if engine in ("vllm", "sglang"):
        found.append(Need(engine, f"actor_rollout_ref.rollout.name={engine}",
                          importlib.util.find_spec(engine) is not None))
    gpus = int(cfg.trainer.get("n_gpus_per_node", 0) or 0)
    if gpus > 0:
        found.append(Need("a CUDA or ROCm GPU", f"trainer.n_gpus_per_node={gpus}", not accelerator.startswith("none")
                          and not accelerator.startswith("unknown")))
    ext = str(rollout.get("engine_kwargs", {}).get("vllm", {}).get("worker_extension_cls", "") or "")
    if ext.startswith("verl_ext."):
        found.append(Need("triton", f"engine_kwargs.vllm.worker_extension_cls={ext} (fused sampler)",
                          importlib.util.find_spec("triton") is not None))
    model = cfg.actor_rollout_ref.model
    if str(model.get("external_lib", "") or "") == "verl_ext.patches":
        found.append(Need("triton", "actor_rollout_ref.model.external_lib=verl_ext.patches (fused kernels on GPU)",
                          importlib.util.find_spec("triton") is not None))
    manager = cfg.reward.get("reward_manager", {})
    if str(manager.get("name", "")) == "verl_ext":
        found.append(Need("the verl-ext code sandbox (full isolation)",
                          "reward.reward_manager.name=verl_ext scores code data sources in it", sandbox_ok))
    return found


def compose_errors() -> tuple[type[BaseException], ...]:
    """What composing a broken config raises: a missing file, Hydra's and OmegaConf's errors."""
    errors: tuple[type[BaseException], ...] = (OSError, ValueError, ImportError)
    try:
        from hydra.errors import HydraException
        from omegaconf.errors import OmegaConfBaseException
    except ImportError:
        return errors
    return (*errors, HydraException, OmegaConfBaseException)


# ---- config checks -----------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """An OmegaConf node as plain Python, interpolations resolved (``None`` stays ``None``)."""
    from omegaconf import DictConfig, ListConfig, OmegaConf

    if isinstance(value, (DictConfig, ListConfig)):
        return OmegaConf.to_container(value, resolve=True)
    return value


def _config_error(e: ConfigError) -> Finding:
    """A :class:`ConfigError` as a finding under its key (its message less the key prefix)."""
    message = str(e)
    prefix = f"{e.key}: "
    return Finding(ERROR, e.key, message[len(prefix):] if message.startswith(prefix) else message)


def _node_errors() -> tuple[type[BaseException], ...]:
    """What reading a composed node may raise (an interpolation that does not resolve)."""
    from omegaconf.errors import OmegaConfBaseException

    return (OmegaConfBaseException, ValueError, KeyError)


def _get(node: Any, dotted: str, findings: list[Finding]) -> Any:
    """``node``'s value at ``dotted`` as plain Python (None if absent); a key that does not resolve is an
    error finding (and None)."""
    from omegaconf import OmegaConf

    try:
        return _plain(OmegaConf.select(node, dotted, default=None, throw_on_resolution_failure=True))
    except _node_errors() as e:
        findings.append(Finding(ERROR, dotted, f"does not resolve: {type(e).__name__}: {str(e).splitlines()[0]}"))
        return None


def _check_manager(source: str, name: str, module: Mapping[str, Any] | None) -> Finding:
    """verl builds the manager named by ``reward.reward_manager`` (RewardManagerConfig): a registered name,
    or a class in a module with ``source=importlib``."""
    if source == "importlib":
        path = str((module or {}).get("path") or "")
        where = "reward.reward_manager.module.path"
        if not path:
            return Finding(ERROR, where, "required with reward.reward_manager.source=importlib")
        if not path.startswith("pkg://"):  # a file, as verl's load_extern_object reads it
            found = Path(path).expanduser().is_file()
            return Finding(OK if found else ERROR, where, f"{path} {'exists' if found else 'does not exist'}")
        try:
            cls = getattr(importlib.import_module(path[len("pkg://"):]), name, None)
        except Exception as e:  # noqa: BLE001 - whatever the module raises on import is the finding
            return Finding(ERROR, where, f"{path} does not import: {type(e).__name__}: {e}")
        if cls is None:
            return Finding(ERROR, "reward.reward_manager.name", f"{path} has no {name!r}")
        return Finding(OK, where, f"{path} has {name}")
    key = "reward.reward_manager.name"
    if source != "register":
        return Finding(ERROR, "reward.reward_manager.source", f"expected register or importlib, got {source!r}")
    try:
        importlib.import_module("verl")  # registers the plugins' managers
        from verl.experimental.reward_loop.reward_manager.registry import REWARD_MANAGER
    except ImportError as e:
        return Finding(ERROR, key, f"cannot check {name!r}: verl's reward manager registry does not import ({e})")
    if name in REWARD_MANAGER:
        return Finding(OK, key, f"{name} is registered")
    return Finding(ERROR, key, f"{name!r} is not a registered reward manager; registered: "
                   f"{', '.join(sorted(REWARD_MANAGER))}")


def _check_functions(custom: Mapping[str, Any] | None, functions: Sequence[Any]) -> tuple[bool, list[Finding]]:
    """Import each reward function (``reward.custom_reward_function``, then ``reward_kwargs.functions``) and
    check its signature and kind. Returns whether any is configured, and the findings."""
    from verl_ext.reward.functions import load_function, resolve_kind, specs_from_config

    try:
        specs = specs_from_config(custom, functions)
    except ConfigError as e:
        return True, [_config_error(e)]
    has_custom = bool((custom or {}).get("path"))
    found: list[Finding] = []
    for i, spec in enumerate(specs):
        where = "reward.custom_reward_function" if has_custom and i == 0 else \
            f"reward.reward_kwargs.functions[{i - has_custom}]"
        try:
            fn = load_function(spec, where)
            kind = resolve_kind(spec, fn, where)
        except ConfigError as e:
            found.append(_config_error(e))
            continue
        try:
            signature = str(inspect.signature(fn))
        except (TypeError, ValueError):
            signature = "(...)"
        found.append(Finding(OK, f"{where}.path", f"{spec.path}: {spec.name}{signature} imports (runs as {kind}, "
                             f"weight {spec.weight:g})"))
    return bool(specs), found


def _routing(options: Any, has_functions: bool) -> Callable[[str], str]:
    """What scores a data source: ``python`` (the user's functions), ``code`` (verl-ext's sandbox, verl's
    prime_code procedure), a native scorer's name (``gsm8k``, ``math_reward``, ``math_dapo``,
    ``math_verify``), or ``""`` (verl's ``default_compute_score``). ``options`` is the verl_ext manager's
    (None for verl's own managers, which call the user's function for every sample when one is set)."""
    from verl_ext.reward import native_scorer
    from verl_ext.reward.code import CODE_SOURCES

    def route(data_source: str) -> str:
        if options is not None:
            source = options.native_source(data_source)
            if not source:
                return "python"
        elif has_functions:
            return "python"
        else:
            source = data_source
        if source in CODE_SOURCES:
            return "code"
        return native_scorer(source) or ""

    return route


#: What a native scorer does with a ground truth that is not a str (checked in the Rust core, dispatch.rs).
_NOT_STR = {
    "gsm8k": "gsm8k compares the extracted answer with it as a string, so each such sample scores 0 silently",
    "math_reward": "math_reward compares the boxed answer with it as a string, so each such sample scores 0 "
                   "silently",
    "math_dapo": "math_dapo needs a str: each such sample fails (unscorable: 0 with on_error=zero, a crash with "
                 "on_error=raise; verl raises too)",
    "math_verify": "math_verify needs a str: each such sample fails (unscorable: 0 with on_error=zero, a crash "
                   "with on_error=raise)",
}


def _ground_truth_problem(route: str, data_source: str, ground_truth: Any) -> tuple[str, str] | None:
    """What is wrong with one ground truth for the scorer of ``route``, and what that does, or None."""
    if route in _NOT_STR:
        if isinstance(ground_truth, str):
            return None
        return f"a ground truth of type {type(ground_truth).__name__}", _NOT_STR[route] + "; store it as a string"
    if route == "code":
        from verl_ext.reward.code import ASSERT_SOURCES, ground_truth_problem

        problem = ground_truth_problem(data_source, ground_truth)
        if problem is None:
            return None
        how = "runs check(entry_point) from it" if data_source in ASSERT_SOURCES else \
            "is scored with verl's prime_code procedure from it"
        return f"a ground truth that is {problem}", f"{data_source} {how}, so each such sample scores 0"
    return None


def _rows_text(n: int) -> str:
    return f"{n} row{'s' * (n != 1)}"


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass
class _Tally:
    """Rows with one problem: how many, the first one (index and value), and what the problem does."""

    why: str
    count: int = 0
    first: int = 0
    example: Any = None

    def add(self, row: int, value: Any) -> None:
        if self.count == 0:
            self.first, self.example = row, value
        self.count += 1


def head_rows(path: Path, columns: Sequence[str], limit: int) -> Iterator[dict[str, Any]]:
    """The first ``limit`` rows of a parquet file, only ``columns`` read."""
    import pyarrow.parquet as pq

    done = 0
    for batch in pq.ParquetFile(path).iter_batches(batch_size=min(limit, 1024), columns=list(columns)):
        for row in batch.to_pylist():
            yield row
            done += 1
            if done >= limit:
                return


def _check_parquet(key: str, path: Path, source_key: str, prompt_key: str, route: Callable[[str], str],
                   warn_unscored: bool) -> list[Finding]:
    """The columns verl reads, and the first :data:`DATA_ROWS` rows' data sources and ground truths."""
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(path)
    except (OSError, ValueError) as e:  # pyarrow's ArrowInvalid is a ValueError
        return [Finding(ERROR, key, f"{path}: not a readable parquet file: {e}")]
    total = meta.metadata.num_rows
    names = meta.schema_arrow.names
    missing = [c for c in (prompt_key, source_key, "reward_model") if c not in names]
    found: list[Finding] = []
    if missing:
        found.append(Finding(ERROR, key, f"{path}: no column {', '.join(missing)} (verl reads {prompt_key!r} "
                             f"(data.prompt_key), {source_key!r} (data.reward_fn_key) and reward_model.ground_truth; "
                             f"columns: {', '.join(names)})"))
        if source_key in missing or "reward_model" in missing:
            return found
    rows: dict[str, int] = {}  # per data source
    checked: dict[str, int] = {}  # ground truths checked per data source
    tallies: dict[tuple[str, str], _Tally] = {}  # (data source, problem)
    read = 0
    for i, row in enumerate(head_rows(path, [source_key, "reward_model"], DATA_ROWS)):
        read += 1
        ds, rm = row.get(source_key), row.get("reward_model")
        if not isinstance(ds, str):
            why = f"verl-ext (and verl) choose the scorer by it ({source_key!r}, data.reward_fn_key)"
            tallies.setdefault(("", f"a {source_key} of type {type(ds).__name__}"), _Tally(why)).add(i, ds)
            continue
        rows[ds] = rows.get(ds, 0) + 1
        if not isinstance(rm, dict) or "ground_truth" not in rm:
            why = "verl reads the ground truth from reward_model['ground_truth']"
            tallies.setdefault((ds, "no reward_model.ground_truth"), _Tally(why)).add(i, rm)
            continue
        r = route(ds)
        if r == "code" and checked.get(ds, 0) >= CODE_ROWS:
            continue
        checked[ds] = checked.get(ds, 0) + 1
        problem = _ground_truth_problem(r, ds, rm["ground_truth"])
        if problem is not None:
            tallies.setdefault((ds, problem[0]), _Tally(problem[1])).add(i, rm["ground_truth"])
    for (ds, issue), tally in tallies.items():
        of = read if not ds else checked.get(ds, 0) if issue.startswith("a ground truth") else rows[ds]
        where = f"{path}: {ds}" if ds else str(path)
        found.append(Finding(ERROR, key, f"{where}: {tally.count} of {_rows_text(of)} checked have {issue} "
                             f"(row {tally.first}: {_short(tally.example)}): {tally.why}"))
    if warn_unscored:
        for ds, n in sorted(rows.items()):
            if route(ds) == "" and not _verl_knows(ds):
                # verl's meaning is kept: its default_compute_score raises, and the run stops at the first batch
                # (scoring a whole data source 0 would train on rows nothing can reward): an error here, before
                # any model loads.
                found.append(Finding(ERROR, key, f"{path}: {ds} ({_rows_text(n)}): no scorer knows this data "
                                     "source (verl-ext has no native one, verl's default_compute_score raises "
                                     "NotImplementedError, so the run would stop at its first batch) and no reward "
                                     "function is configured: set reward.custom_reward_function or "
                                     "reward.reward_kwargs.functions"))
    sample = f"the first {read} of {counted(total, 'row')}" if read < total else (
        "its one row" if total == 1 else f"all {total} rows")
    summary = ", ".join(f"{ds} {n} ({route(ds) or 'verl'})" for ds, n in sorted(rows.items()))
    found.append(Finding(OK, key, f"{path}: {sample} read: {summary or 'no rows'}"))
    return found


def _verl_knows(data_source: str) -> bool:
    """Whether verl's ``default_compute_score`` scores this source (it raises NotImplementedError for one it
    does not know; any other outcome of an empty answer means it does)."""
    from verl.utils.reward_score import default_compute_score

    try:
        default_compute_score(data_source, "", "")
    except NotImplementedError:
        return False
    except Exception:  # noqa: BLE001 - it knows the source; an empty answer may fail its own way
        return True
    return True


def data_files(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _check_data(cfg: Any, route: Callable[[str], str], warn_unscored: bool) -> list[Finding]:
    """``data.train_files`` / ``data.val_files``: each exists; a parquet file's first rows are read (its data
    source and reward_model columns) when pyarrow is installed."""
    found: list[Finding] = []
    source_key = str(_get(cfg, "data.reward_fn_key", found) or "data_source")
    prompt_key = str(_get(cfg, "data.prompt_key", found) or "prompt")
    try:
        import pyarrow.parquet  # noqa: F401 - only whether it imports
        has_pyarrow = True
    except ImportError:
        has_pyarrow = False
    for name in ("train_files", "val_files"):
        key = f"data.{name}"
        value = _get(cfg, key, found)
        files = data_files(value)
        if files is None:
            found.append(Finding(ERROR, key, f"expected a path or a list of paths, got {_short(value)}"))
            continue
        for i, file in enumerate(files):
            where = key if isinstance(value, str) else f"{key}[{i}]"
            if "://" in file:
                found.append(Finding(OK, where, f"{file}: remote, not checked"))
                continue
            path = Path(file).expanduser()
            if path.is_dir():
                found.append(Finding(ERROR, where, f"{path} is a directory: verl reads data files (list each one)"))
            elif not path.is_file():
                found.append(Finding(ERROR, where, f"no such file: {path}"))
            elif path.suffix != ".parquet":
                found.append(Finding(OK, where, f"{path} exists (not parquet: its rows are not checked)"))
            elif not has_pyarrow:
                found.append(Finding(OK, where, f"{path} exists (pyarrow is not installed: its rows are not checked)"))
            else:
                found.extend(_check_parquet(where, path, source_key, prompt_key, route, warn_unscored))
    return found


def check_config(cfg: Any) -> list[Finding]:
    """What is wrong with a composed main_ppo config, each finding under the key it comes from: the reward
    manager, the ``verl_ext`` manager's ``reward_kwargs``, the reward functions, the data files."""
    from verl_ext.reward.options import ManagerOptions

    found: list[Finding] = []
    source = str(_get(cfg, "reward.reward_manager.source", found) or "register")
    name = str(_get(cfg, "reward.reward_manager.name", found) or "")
    found.append(_check_manager(source, name, _get(cfg, "reward.reward_manager.module", found)))
    options: ManagerOptions | None = None
    functions: Sequence[Any] = ()
    # verl-ext's manager by name, or by import path (VERL_USE_EXTERNAL_PLUGINS without verl_ext).
    if name in (("verl_ext",) if source == "register" else ("VerlExtRewardManager", "VerlExtBatchRewardManager")):
        try:
            options = ManagerOptions.from_reward_kwargs(_get(cfg, "reward.reward_kwargs", found))
        except ConfigError as e:
            found.append(_config_error(e))
            options = ManagerOptions()  # the data are still checked, routed as by default
        else:
            functions = options.functions
            found.append(Finding(OK, "reward.reward_kwargs", "valid options of the verl_ext manager"))
    custom = _get(cfg, "reward.custom_reward_function", found)
    has_functions, function_findings = _check_functions(custom if isinstance(custom, Mapping) else None, functions)
    found.extend(function_findings)
    if options is not None:
        options = options.with_custom_function(has_functions)
    found.extend(_check_data(cfg, _routing(options, has_functions), warn_unscored=options is not None
                             and not has_functions))
    return found


def _environment(sandbox: Any) -> list[Finding]:
    """verl-ext's environment variables that would make a run fail or behave unexpectedly."""
    found: list[Finding] = []
    try:
        sandbox.mode()
    except InvalidInputError as e:
        found.append(Finding(ERROR, "VERL_EXT_SANDBOX_MODE", f"{e}; {_mode_fix(sandbox)}"))
    backend = os.environ.get("VERL_EXT_SAMPLER_BACKEND")
    if backend is not None:
        from verl_ext.ops.sampling import BACKENDS

        if backend not in BACKENDS:
            found.append(Finding(ERROR, "VERL_EXT_SAMPLER_BACKEND", f"{backend!r} is not a sampler backend (the fused "
                                 f"vLLM sampler raises); set it to one of {', '.join(BACKENDS)}, or unset it (auto)"))
    unsafe = container.host_sysctls_writable()
    if unsafe is not None:
        found.append(Finding(WARNING, "container", unsafe))
    threads = os.environ.get("VERL_EXT_NUM_THREADS")
    if threads is not None and not (threads.strip().isdigit() and int(threads) > 0):
        found.append(Finding(WARNING, "VERL_EXT_NUM_THREADS", f"{threads!r} is not a positive integer: ignored "
                             "(all cores are used)"))
    return found


# ---- the report --------------------------------------------------------------------------------------


@dataclass
class ConfigReport:
    name: str
    overrides: list[str]
    error: str | None = None
    needs: list[Need] = field(default_factory=list)
    waived: list[bool] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None and all(n.present or w for n, w in zip(self.needs, self.waived, strict=True)) \
            and not any(f.level == ERROR for f in self.findings)


def override_key(overrides: Sequence[str], message: str) -> str:
    """The key of the override a Hydra error is about (else ``overrides`` or ``config``)."""
    for override in overrides:
        key = re.split(r"[=@]", override.lstrip("+~"), maxsplit=1)[0]
        if key and (f"'{key}'" in message or f"'{override}'" in message):
            return key
    return "overrides" if overrides else "config"


def _report_config(config: str, overrides: Sequence[str], accelerator: str, sandbox_ok: bool,
                   require_sandbox: bool) -> ConfigReport:
    report = ConfigReport(config, list(overrides))
    try:
        cfg = compose(config, overrides)
    except compose_errors() as e:  # a broken config or an override that does not apply: a finding, not a crash
        report.error = str(e)
        report.findings.append(Finding(ERROR, override_key(overrides, str(e)), f"does not compose: {e}"))
        return report
    errors: tuple[type[BaseException], ...] = (*_node_errors(), AttributeError)
    try:
        report.needs = needs(cfg, accelerator, sandbox_ok)
    except errors as e:
        report.findings.append(Finding(ERROR, "config", f"not a main_ppo config: {type(e).__name__}: {e}"))
    report.waived = [not n.present and not require_sandbox and "sandbox" in n.what for n in report.needs]
    report.findings.extend(check_config(cfg))
    return report


@dataclass
class Report:
    versions: dict[str, str]
    system: str
    accelerator: str
    registration: str | None
    kernels: dict[str, bool]
    capabilities: dict[str, Any]
    mode: str
    warm_starts: str | None
    environment: list[Finding]
    config: ConfigReport | None
    problems: list[str]

    def as_json(self) -> dict[str, Any]:
        config = None
        if self.config is not None:
            c = self.config
            config = {"name": c.name, "overrides": c.overrides, "composed": c.error is None, "error": c.error,
                      "ok": c.ok, "needs": [{**asdict(n), "waived": w} for n, w in zip(c.needs, c.waived, strict=True)],
                      "findings": [asdict(f) for f in c.findings]}
        return {
            "schema_version": SCHEMA_VERSION, "ok": not self.problems, "problems": self.problems,
            "versions": self.versions, "system": self.system, "accelerator": self.accelerator,
            "verl_plugin": {"registered": self.registration is None, "error": self.registration},
            "kernels": self.kernels,
            "sandbox": {"full_isolation": bool(self.capabilities.get("full_isolation")),
                        "error": self.capabilities.get("error"), "mode": self.mode, "warm_starts": self.warm_starts,
                        "capabilities": self.capabilities},
            "environment": [asdict(f) for f in self.environment],
            "config": config,
        }


def collect(require_sandbox: bool = True, config: str | None = None, overrides: Sequence[str] = ()) -> Report:
    """Everything the doctor checks; ``problems`` lists why it fails (empty: exit 0)."""
    from verl_ext import __version__, sandbox
    from verl_ext.ops._backend import triton_available
    from verl_ext.ops.sampling import flashinfer_available

    versions = {"verl-ext": __version__, "python": platform.python_version(), **{d: _version(d) for d in DISTS}}
    system = f"{platform.system()} {platform.release()} ({platform.machine()})"
    accelerator = _accelerator()
    broken = _registration()
    caps = dict(sandbox.capabilities())
    sandbox_ok = bool(caps["full_isolation"])
    environment = _environment(sandbox)
    mode_ok = not any(f.key == "VERL_EXT_SANDBOX_MODE" for f in environment)
    # Not in the rlimits-only mode: the probe would run its programs without isolation.
    weak = mode_ok and sandbox.mode() == sandbox.WEAK_MODE
    warm = _warm_starts(sandbox) if sandbox_ok and mode_ok and not weak else None
    config_report = _report_config(config, overrides, accelerator, sandbox_ok, require_sandbox) if config else None
    problems = []
    if broken is not None:
        problems.append("verl cannot use verl-ext (the reward manager is not registered)")
    if require_sandbox and not sandbox_ok:
        problems.append("the sandbox is unavailable, so code rewards will refuse to run")
    for f in environment:
        if f.level == ERROR:
            problems.append(f.message)
    if config_report is not None and not config_report.ok:
        errors = sum(f.level == ERROR for f in config_report.findings)
        missing = not all(n.present or w for n, w in zip(config_report.needs, config_report.waived, strict=True))
        what = [*(["cannot run on this host"] if missing else []),
                *([f"has {errors} error{'s' * (errors != 1)}"] if errors else [])]
        problems.append(f"config {config} {' and '.join(what)}")
    return Report(versions, system, accelerator, broken, {"triton": triton_available(), "flashinfer":
                  flashinfer_available()}, caps, _mode(sandbox), warm, environment, config_report, problems)


def _print_findings(findings: Iterable[Finding]) -> None:
    for f in findings:
        message = f.message.strip().replace("\n", "\n" + " " * 10)
        print(f"  {_LABELS[f.level]} {f.key}: {message}")


def print_report(report: Report) -> None:
    from verl_ext import sandbox

    v = report.versions
    print(f"verl-ext {v['verl-ext']} on {report.system}, Python {v['python']}")
    for dist in DISTS:
        print(f"  {dist:<18} {v[dist]}")
    print(f"  accelerator        {report.accelerator}")
    broken, disabled = report.registration, plugins_disabled()
    if broken is not None:
        plugin = f"BROKEN: {broken}"
    elif disabled:
        plugin = (f"not loaded ({disabled}): the managers import by path (reward.reward_manager.source=importlib, "
                  "module.path=pkg://verl_ext.reward.manager, name=VerlExtRewardManager; see the README)")
    else:
        plugin = "reward manager verl_ext registered"
    print(f"  verl plugin        {plugin}")
    print(f"  kernels            triton {'yes' if report.kernels['triton'] else 'no'}, "
          f"flashinfer {'yes' if report.kernels['flashinfer'] else 'no'}")
    caps = report.capabilities
    ok = bool(caps["full_isolation"])
    print("sandbox (code rewards):")
    weak = report.mode.startswith(sandbox.WEAK_MODE)
    if weak:
        print(f"  full isolation     {'available on this host, but' if ok else 'unavailable, and'} NOT used: "
              f"{sandbox.WEAK_MODE} mode (below)")
    else:
        print(f"  full isolation     {'yes' if ok else 'NO: ' + str(caps['error'])}")
    if not ok and container.in_container():
        print(f"  in a container     {container.CONTAINER_HINT}")
    allowed = len(caps.get("allowed_syscalls", []))
    print(f"  seccomp filters    {f'allow-list of {allowed} syscalls, the rest EPERM' if caps['seccomp'] else 'no'}")
    landlock = caps["landlock_abi"]
    scope = "files" + (", TCP" if landlock and landlock >= 4 else "") + (
        ", signals and abstract sockets" if landlock and landlock >= 6 else "")
    print(f"  landlock           {f'ABI {landlock}: {scope}' if landlock else 'unavailable'}")
    print("  limits             rlimits (address space, CPU, file size, open files, processes, core=0, "
          "no real-time or raised priority)")
    print(f"  cgroups            {caps['cgroups']}")
    print(f"  memory accounting  {caps['memory']}")
    cold, warm = caps["cpu_share"], caps["cpu_share_warm"]
    if cold == warm:
        print(f"  cpu share          {cold}")
    else:  # per-execution cgroups are made for cold starts only
        in_use = "warm" if sandbox.warm_starts() else "cold"
        print(f"  cpu share          cold starts: {cold}{' (in use)' if in_use == 'cold' else ''}")
        print(f"                     warm starts: {warm}{' (in use)' if in_use == 'warm' else ''}")
    print(f"  memfd              {caps['memfd']}")
    families = caps["socket_families"]
    print(f"  socket families    {', '.join(families)}{'' if families == ['all'] else ' (others: EAFNOSUPPORT)'}")
    print(f"  mode               {report.mode}")
    if report.warm_starts is not None:
        print(f"  warm starts        {report.warm_starts}")
    if report.environment:
        print("environment:")
        _print_findings(report.environment)
    c = report.config
    if c is not None:
        if c.error is None:
            print(f"config {c.name} needs:")
            for need, waived in zip(c.needs, c.waived, strict=True):
                state = "ok     " if need.present else "waived " if waived else "MISSING"
                print(f"  {state} {need.what}  <- {need.why}{'  (--no-sandbox)' if waived else ''}")
        with_overrides = f" (overrides: {' '.join(c.overrides)})" if c.overrides else ""
        print(f"config {c.name} checks{with_overrides}:")
        _print_findings(c.findings)
    for problem in report.problems:
        print(f"doctor: {problem} (see above)")


def run(require_sandbox: bool = True, config: str | None = None, overrides: Sequence[str] = (),
        as_json: bool = False) -> int:
    """Print the report (or, ``as_json``, one JSON object); non-zero when ``import verl`` does not register
    verl-ext's reward manager, when the sandbox (needed by code rewards) is unavailable, when
    ``VERL_EXT_SANDBOX_MODE`` is not a mode, or when ``config`` needs something this host lacks or has an
    error (each named with the key it comes from)."""
    if as_json:
        with contextlib.redirect_stdout(sys.stderr):  # what user modules print on import stays off the JSON
            report = collect(require_sandbox, config, overrides)
        json.dump(report.as_json(), sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    else:
        report = collect(require_sandbox, config, overrides)
        print_report(report)
    return 1 if report.problems else 0


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``verl-ext doctor``'s arguments."""
    p.add_argument("--no-sandbox", action="store_true", help="do not fail when the sandbox is unavailable")
    add_config_arguments(p, required=False)
    p.add_argument("overrides", nargs="*", metavar="KEY=VALUE",
                   help="Hydra overrides of --config, exactly as on main_ppo's command line "
                        "(e.g. data.train_files=/x.parquet +reward.reward_kwargs.format_weight=0.1)")
    p.add_argument("--json", action="store_true", help="print one JSON object (versions, sandbox, config "
                   "findings, ok) instead of the report")


def main(args: argparse.Namespace) -> int:
    """Run ``verl-ext doctor`` with parsed :func:`add_arguments` arguments."""
    overrides = list(getattr(args, "overrides", None) or [])
    try:
        config = config_argument(args)
    except ValueError as e:
        print(f"verl-ext doctor: {e}", file=sys.stderr)
        return 2
    if overrides and not config:
        print(f"verl-ext doctor: overrides ({' '.join(overrides)}) need --config NAME", file=sys.stderr)
        return 2
    return run(require_sandbox=not args.no_sandbox, config=config, overrides=overrides,
               as_json=bool(getattr(args, "json", False)))
