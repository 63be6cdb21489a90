"""The Hydra overrides a verl run needs on CPU (beside ``VERL_PLATFORM=cpu``), each with the reason: used by
``verl-ext smoke`` and the end-to-end test. Sizes (batch, lengths) are the caller's."""

from __future__ import annotations

#: (override, why).
CPU_OVERRIDES: tuple[tuple[str, str], ...] = (
    ("trainer.device=cpu", "verl's trainer places its tensors by this name"),
    ("trainer.nnodes=1", "one host"),
    ("trainer.n_gpus_per_node=1", "one worker (verl's pools ask for GPUs: see the next line)"),
    ("+ray_kwargs.ray_init.num_gpus=1", "verl builds every resource pool with use_gpu=True "
     "(single_controller/ray/base.py:210): one logical GPU for the one worker"),
    ("actor_rollout_ref.actor.strategy=fsdp2", "FSDP1's set-up broadcasts module states over a GPU "
     "(workers/engine/fsdp/transformer_impl.py:444); FSDP2 runs on a CPU mesh"),
    ("actor_rollout_ref.ref.strategy=fsdp2", "the same for the reference policy"),
    ("actor_rollout_ref.model.use_remove_padding=False", "padding removal needs flash-attention's kernels"),
    ("+actor_rollout_ref.model.override_config.attn_implementation=sdpa",
     "flash-attention is the default (workers/config/model.py:185) and needs CUDA"),
    ("actor_rollout_ref.actor.use_torch_compile=False", "no compiler toolchain is assumed"),
    ("actor_rollout_ref.ref.use_torch_compile=False", "the same for the reference policy"),
    ("actor_rollout_ref.rollout.enforce_eager=True", "no CUDA graphs"),
    ("actor_rollout_ref.rollout.free_cache_engine=False", "vLLM has no sleep mode on CPU"),
    ("+actor_rollout_ref.rollout.enable_sleep_mode=False", "the same"),
    ("actor_rollout_ref.rollout.tensor_model_parallel_size=1", "one worker"),
    ("actor_rollout_ref.rollout.load_format=auto", "load the (tiny) weights from the checkpoint"),
)


def cpu_overrides() -> list[str]:
    """The overrides alone, in order."""
    return [override for override, _ in CPU_OVERRIDES]
