"""``verl-ext doctor``: what this host offers verl-ext, and whether the sandbox can run."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verl_ext.exceptions import InvalidInputError, VerlExtError


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


def _registration() -> str | None:
    """None when ``import verl`` registered the ``verl_ext`` reward managers, else what went wrong (verl only
    logs a failing plugin at DEBUG, so a broken install would otherwise surface mid-run)."""
    try:
        importlib.import_module("verl")  # loads the verl.plugins entry points
        from verl.experimental.reward_loop.reward_manager import get_reward_manager_cls as loop_manager
        from verl.workers.reward_manager import get_reward_manager_cls as legacy_manager

        for lookup in (loop_manager, legacy_manager):
            lookup("verl_ext")
    except (ImportError, AttributeError, LookupError, ValueError) as e:  # a missing verl, an unknown manager
        return f"{type(e).__name__}: {e}"
    return None


#: What a Docker container needs for the sandbox (measured with Docker 20.10, see the README).
CONTAINER_HINT = ("run it with --security-opt seccomp=unconfined --security-opt systempaths=unconfined "
                  "(and --security-opt apparmor=unconfined on AppArmor hosts)")


def _in_container() -> bool:
    return Path("/.dockerenv").exists() or Path("/run/.containerenv").exists()


def _mode(sandbox: Any) -> str:
    try:
        mode = sandbox.mode()
    except InvalidInputError as e:
        return f"invalid: {e}"
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


def compose(config: str) -> Any:
    """Compose a main_ppo config the way ``python -m verl.trainer.main_ppo --config-name`` would: ``config``
    is a path to a YAML file or the name of one in verl-ext's ``configs/``."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    path = Path(config)
    if path.suffix not in (".yaml", ".yml"):
        path = configs_dir() / f"{config}.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"no config {config!r} (looked for {path})")
    with initialize_config_dir(config_dir=str(path.resolve().parent), version_base=None):
        return hydra_compose(config_name=path.stem)


def configs_dir() -> Path:
    """verl-ext's configs: ``$VERL_EXT_CONFIGS`` when set, else the package's own (``verl_ext/configs``)."""
    env = os.environ.get("VERL_EXT_CONFIGS")
    return Path(env) if env else Path(__file__).resolve().parent / "configs"


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


def _compose_errors() -> tuple[type[BaseException], ...]:
    """What composing a broken config raises: a missing file, Hydra's and OmegaConf's errors."""
    errors: tuple[type[BaseException], ...] = (OSError, ValueError, ImportError)
    try:
        from hydra.errors import HydraException
        from omegaconf.errors import OmegaConfBaseException
    except ImportError:
        return errors
    return (*errors, HydraException, OmegaConfBaseException)


def _report_config(config: str, accelerator: str, sandbox_ok: bool, require_sandbox: bool) -> bool:
    """Print what ``config`` needs; False when something is missing (the sandbox only if required)."""
    try:
        cfg = compose(config)
    except _compose_errors() as e:  # a broken config is a finding, not a crash
        print(f"config {config}: does not compose: {e}")
        return False
    print(f"config {config} needs:")
    ok = True
    for need in needs(cfg, accelerator, sandbox_ok):
        waived = not need.present and not require_sandbox and "sandbox" in need.what
        state = "ok     " if need.present else "waived " if waived else "MISSING"
        print(f"  {state} {need.what}  <- {need.why}{'  (--no-sandbox)' if waived else ''}")
        ok &= need.present or waived
    return ok


def run(require_sandbox: bool = True, config: str | None = None) -> int:
    """Print the report; non-zero when ``import verl`` does not register verl-ext's reward manager, when the
    sandbox (needed by code rewards) is unavailable, or when
    ``config`` needs something this host lacks (each missing item is named with the key that needs it)."""
    from verl_ext import __version__, sandbox

    print(f"verl-ext {__version__} on {platform.system()} {platform.release()} ({platform.machine()}), "
          f"Python {platform.python_version()}")
    for dist in ("verl", "torch", "ray", "vllm", "triton", "flashinfer-python"):
        print(f"  {dist:<18} {_version(dist)}")
    accelerator = _accelerator()
    print(f"  accelerator        {accelerator}")
    broken = _registration()
    print(f"  verl plugin        {'reward manager verl_ext registered' if broken is None else 'BROKEN: ' + broken}")
    from verl_ext.ops._backend import triton_available
    from verl_ext.ops.sampling import flashinfer_available

    print(f"  kernels            triton {'yes' if triton_available() else 'no'}, "
          f"flashinfer {'yes' if flashinfer_available() else 'no'}")
    caps = sandbox.capabilities()
    ok = bool(caps["full_isolation"])
    print("sandbox (code rewards):")
    print(f"  full isolation     {'yes' if ok else 'NO: ' + str(caps['error'])}")
    if not ok and _in_container():
        print(f"  in a container     {CONTAINER_HINT}")
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
    print(f"  mode               {_mode(sandbox)}")
    if ok:
        print(f"  warm starts        {_warm_starts(sandbox)}")
    config_ok = _report_config(config, accelerator, ok, require_sandbox) if config else True
    if broken is not None:
        print("doctor: verl cannot use verl-ext (the reward manager is not registered, see above)")
        return 1
    if require_sandbox and not ok:
        print("doctor: the sandbox is unavailable, so code rewards will refuse to run (see above)")
        return 1
    if not config_ok:
        print(f"doctor: config {config} cannot run on this host (see above)")
        return 1
    return 0
