"""verl_ext.patches: verl's log-prob, entropy and fused-linear paths give verl's results through our ops."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch
import verl.utils.torch_functional as verl_F
from verl.utils.experimental import torch_functional as verl_exp


@pytest.fixture()
def patches() -> Iterator[object]:
    from verl_ext import patches as p

    p.apply()
    yield p
    p.remove()


def _originals(p: object) -> dict:
    return p._ORIGINALS  # type: ignore[attr-defined]


def test_apply_and_remove(patches: object) -> None:
    originals = _originals(patches)
    assert patches.applied()  # type: ignore[attr-defined]
    import verl.workers.engine.fsdp.transformer_impl as fsdp_impl

    assert fsdp_impl.logprobs_from_logits is patches.logprobs_from_logits  # type: ignore[attr-defined]
    assert verl_exp.FusedLinearForPPO is patches.FusedLinearForPPO  # type: ignore[attr-defined]
    ours = verl_F.logprobs_from_logits
    patches.remove()  # type: ignore[attr-defined]
    assert verl_F.logprobs_from_logits is not ours and not originals
    patches.apply()  # type: ignore[attr-defined]
    assert patches.applied()  # type: ignore[attr-defined]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_logprobs_and_entropy_match_verl(patches: object, dtype: torch.dtype) -> None:
    originals = _originals(patches)
    verl_lp = originals[("verl.utils.torch_functional", "logprobs_from_logits")]
    verl_ent = originals[("verl.utils.torch_functional", "entropy_from_logits")]
    g = torch.Generator().manual_seed(0)
    base = (torch.randn(3, 5, 111, generator=g) * 3).to(dtype)
    labels = torch.randint(0, 111, (3, 5), generator=g)
    grads = []
    outs = []
    for fn_lp, fn_ent in ((verl_lp, verl_ent), (verl_F.logprobs_from_logits, verl_F.entropy_from_logits)):
        x = base.clone().requires_grad_(True)
        lp, ent = fn_lp(x, labels), fn_ent(x)
        (lp.float().sum() + ent.float().sum() * 0.5).backward()
        outs.append((lp.float(), ent.float()))
        grads.append(x.grad.float())
    tol = 1e-5 if dtype == torch.float32 else 2e-2  # verl computes in bf16 where we compute in fp32
    assert outs[1][0].shape == (3, 5) and outs[1][0].dtype == torch.float32
    assert torch.allclose(outs[0][0], outs[1][0], atol=tol * 10, rtol=tol)
    assert torch.allclose(outs[0][1], outs[1][1], atol=tol * 10, rtol=tol)
    assert torch.allclose(grads[0], grads[1], atol=tol, rtol=tol)


def test_fused_linear_for_ppo_matches_verl(patches: object) -> None:
    verl_cls = _originals(patches)[("verl.utils.experimental.torch_functional", "FusedLinearForPPO")]
    g = torch.Generator().manual_seed(1)
    hidden0 = torch.randn(2, 6, 16, generator=g)
    weight0 = torch.randn(50, 16, generator=g) * 0.3
    labels = torch.randint(0, 50, (2, 6), generator=g)
    results = []
    for cls in (verl_cls, verl_exp.FusedLinearForPPO):
        h, w = hidden0.clone().requires_grad_(True), weight0.clone().requires_grad_(True)
        lp, ent = cls(impl_backend="torch").forward(h, w, labels, temperature=0.7)
        (lp.sum() - ent.sum() * 0.3).backward()
        results.append((lp.detach(), ent.detach(), h.grad, w.grad))
    for a, b in zip(*results, strict=True):
        assert a.shape == b.shape
        assert torch.allclose(a.float(), b.float(), atol=1e-5, rtol=1e-4)


def test_linear_cross_entropy_delegates_what_it_does_not_cover(patches: object) -> None:
    import verl.utils.kernel.linear_cross_entropy as lce

    calls = []
    key = ("verl.utils.kernel.linear_cross_entropy", "linear_cross_entropy")
    original = _originals(patches)[key]
    _originals(patches)[key] = lambda *a: calls.append(a) or "verl"
    try:
        h, w, labels = torch.randn(4, 8), torch.randn(10, 8), torch.randint(0, 10, (4,))
        assert lce.linear_cross_entropy(h, w, labels, 1.0, "mean") == "verl" and len(calls) == 1
        lp, ent = lce.linear_cross_entropy(h, w, labels, 1.0, "none")
        ref = torch.log_softmax(h @ w.T, -1).gather(-1, labels[:, None])[:, 0]
        assert torch.allclose(lp, ref, atol=1e-5) and ent.shape == (4,)
    finally:
        _originals(patches)[key] = original


def _tiny_causal_lm(vocab: int) -> torch.nn.Module:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    cfg = Qwen2Config(vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                      tie_word_embeddings=False)
    torch.manual_seed(0)
    return Qwen2ForCausalLM(cfg).float()


def _run(model: torch.nn.Module, ids: torch.Tensor, temperature: float, fused: bool
         ) -> tuple[torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
    """verl's actor computation on a model: its fused forward (use_fused_kernels) or logits + verl_F."""
    model.zero_grad()
    if fused:
        out = model(input_ids=ids, attention_mask=torch.ones_like(ids), temperature=temperature, return_dict=True)
        lp, ent = out.log_probs, out.entropy
    else:
        logits = model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits / temperature
        labels = torch.roll(ids, -1, -1)
        lp, ent = verl_F.logprobs_from_logits(logits, labels), verl_F.entropy_from_logits(logits)
    (lp.float().mean() + 0.1 * ent.float().mean()).backward()
    return lp.detach().float(), ent.detach().float(), {n: p.grad.clone() for n, p in model.named_parameters()}


@pytest.mark.parametrize("fused", [False, True], ids=["logits", "use_fused_kernels"])
def test_tiny_local_causal_lm_gives_verls_logprobs_entropy_and_gradients(tiny_tokenizer: object, fused: bool) -> None:
    """A tiny random causal LM and tokenizer built locally: verl's actor path with and without the patch."""
    import copy

    from verl.models.transformers.monkey_patch import apply_monkey_patch

    from verl_ext import patches

    texts = ["The answer is 42.", "Let x = 3; then 2x + 1 = 7."]
    enc = tiny_tokenizer(texts, padding="max_length", max_length=24, truncation=True, return_tensors="pt")
    ids = enc["input_ids"]
    base = _tiny_causal_lm(len(tiny_tokenizer))
    if fused:
        apply_monkey_patch(base, use_remove_padding=False, use_fused_kernels=True, fused_kernels_backend="torch")
    patches.remove()
    try:
        want = _run(copy.deepcopy(base), ids, 0.7, fused)
    finally:
        patches.apply()
    assert patches.applied() and verl_exp.FusedLinearForPPO is patches.FusedLinearForPPO
    got = _run(copy.deepcopy(base), ids, 0.7, fused)
    assert torch.allclose(got[0], want[0], atol=1e-5, rtol=1e-5)
    assert torch.allclose(got[1], want[1], atol=1e-5, rtol=1e-5)
    assert got[2].keys() == want[2].keys()
    for name in want[2]:
        assert torch.allclose(got[2][name], want[2][name], atol=1e-6, rtol=1e-4), name
    patches.remove()
