"""Finding, composing and reading a main_ppo config: the ``--config`` arguments, Hydra composition and its
errors, reading composed nodes, and what a config :func:`needs` from the host."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verl_ext.doctor.findings import ERROR, Finding, Need


def configs_dir() -> Path:
    """verl-ext's configs: ``$VERL_EXT_CONFIGS`` when set, else the package's own (``verl_ext/configs``)."""
    env = os.environ.get("VERL_EXT_CONFIGS")
    return Path(env) if env else Path(__file__).resolve().parent.parent / "configs"


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
    # With VERL_EXT_SAMPLER_BACKEND=torch the fused sampler runs the torch reference: no Triton needed.
    if ext.startswith("verl_ext.") and os.environ.get("VERL_EXT_SAMPLER_BACKEND", "auto") != "torch":
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


def override_key(overrides: Sequence[str], message: str) -> str:
    """The key of the override a Hydra error is about (else ``overrides`` or ``config``)."""
    for override in overrides:
        key = re.split(r"[=@]", override.lstrip("+~"), maxsplit=1)[0]
        if key and (f"'{key}'" in message or f"'{override}'" in message):
            return key
    return "overrides" if overrides else "config"


def _plain(value: Any) -> Any:
    """An OmegaConf node as plain Python, interpolations resolved (``None`` stays ``None``)."""
    from omegaconf import DictConfig, ListConfig, OmegaConf

    if isinstance(value, (DictConfig, ListConfig)):
        return OmegaConf.to_container(value, resolve=True)
    return value


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
