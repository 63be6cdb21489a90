"""What is wrong with a composed main_ppo config: the reward manager, the ``verl_ext`` manager's
``reward_kwargs``, the reward functions and (through :mod:`verl_ext.doctor.data`) the data files."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from verl_ext.doctor.config import _get
from verl_ext.doctor.data import _check_data
from verl_ext.doctor.findings import ERROR, OK, Finding
from verl_ext.doctor.routing import _routing
from verl_ext.exceptions import ConfigError


def _config_error(e: ConfigError) -> Finding:
    """A :class:`ConfigError` as a finding under its key (its message less the key prefix)."""
    message = str(e)
    prefix = f"{e.key}: "
    return Finding(ERROR, e.key, message[len(prefix):] if message.startswith(prefix) else message)


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
