"""verl-ext's fused sampler inside vLLM 0.24.0's real samplers, on CPU.

V1: ``vllm.v1.sample.sampler.Sampler`` (with its ``TopKTopPSampler``) is built as vLLM's V1 runner builds it and
driven through its own ``forward``. V2: the V2 runner's ``vllm.v1.worker.gpu.sample.sampler.Sampler`` is built with
its real ``RequestState`` and fed requests with ``add_request``; its pinned-memory UVA buffers (which need a GPU)
are replaced by plain CPU tensors, and its Triton kernels run in Triton's interpreter (``conftest.py`` here); the
min-p kernel, which the interpreter cannot run, becomes a torch transcription in the one min-p test. V1's Triton
top-k/top-p gives way to vLLM's own PyTorch one for the same reason. The fused sampler goes in through
``VLLMWorkerExtension.monkey_patch_model``, the call verl makes on every rollout worker. vLLM's own sampler on the
same inputs is the reference: the processed logits/log-probs must match it exactly (continuous logits, so no ties at
a top-k/top-p boundary), and since the two draw with different noise, the draws are compared by distribution (G-test
against the probabilities vLLM's own processed log-probs give, fixed seeds, a 1e-6 threshold).
"""

from __future__ import annotations

import importlib
import logging
import math
import os
import subprocess
import sys
import types
from typing import Any

import numpy as np
import pytest
import torch
from torch import nn

from tests.helpers import chi2_sf
from verl_ext.exceptions import ConfigError
from verl_ext.rollout import FusedTopKTopP, FusedV2Sample, install_fused_sampler, vllm_sampler

vllm = pytest.importorskip("vllm", reason="vLLM is not installed (ci/requirements-vllm.lock pins it)")
SamplingParams = importlib.import_module("vllm.sampling_params").SamplingParams
LogitsProcessors = importlib.import_module("vllm.v1.sample.logits_processor").LogitsProcessors
SamplingMetadata = importlib.import_module("vllm.v1.sample.metadata").SamplingMetadata
V1Sampler = importlib.import_module("vllm.v1.sample.sampler").Sampler

VOCAB = 48
#: A false failure of a distribution test needs a G statistic this unlikely under the true distribution.
ALPHA = 1e-6


def logits_batch(n: int, seed: int = 0, vocab: int = VOCAB) -> torch.Tensor:
    """Continuous logits (no ties), spread so top-k and top-p both cut."""
    return torch.randn(n, vocab, generator=torch.Generator().manual_seed(seed)) * 2.5


def g_test_p(tokens: torch.Tensor, log_probs: torch.Tensor) -> float:
    """p-value of the G-test of ``tokens`` against the distribution ``exp(log_probs)`` ``[V]``; draws outside
    its support fail outright."""
    probs = log_probs.double().exp()
    counts = torch.bincount(tokens, minlength=probs.numel()).double()
    if (counts[probs == 0] > 0).any():
        return 0.0
    kept = probs > 0
    expected = probs[kept] * counts.sum()
    observed = counts[kept]
    g = 2 * torch.sum(torch.where(observed > 0, observed * torch.log(observed / expected), 0.0)).item()
    dof = int(kept.sum()) - 1
    return chi2_sf(g, dof)


# ---------------------------------------------------------------------------------------------------- V1

def metadata(temperature: torch.Tensor, top_k: torch.Tensor | None, top_p: torch.Tensor | None,
             generators: dict[int, torch.Generator], max_num_logprobs: int | None = -1,
             logitsprocs: Any = None) -> Any:
    """What vLLM's V1 InputBatch hands its sampler, for a batch without penalties (and without logits
    processors unless given)."""
    n = temperature.shape[0]
    greedy = temperature < 1e-5
    empty = torch.zeros(n)
    return SamplingMetadata(
        temperature=temperature, all_greedy=bool(greedy.all()), all_random=not bool(greedy.any()), top_p=top_p,
        top_k=top_k, generators=generators, max_num_logprobs=max_num_logprobs, no_penalties=True,
        prompt_token_ids=None, frequency_penalties=empty, presence_penalties=empty,
        repetition_penalties=torch.ones(n), output_token_ids=[[] for _ in range(n)], allowed_token_ids_mask=None,
        bad_words_token_ids={}, logitsprocs=logitsprocs or LogitsProcessors())


def v1_sampler(mode: str) -> Any:
    """vLLM's V1 sampler as a CUDA worker configures it: in the processed modes ``TopKTopPSampler`` serves
    with ``forward_native`` (FlashInfer returns no processed log-probs); vLLM's sort-based top-k/top-p."""
    sampler = V1Sampler(mode)
    sampler.topk_topp_sampler.forward = sampler.topk_topp_sampler.forward_native
    return sampler


class TinyLM(nn.Module):
    """The model object verl patches, shaped like vLLM's ``*ForCausalLM``: an inner ``model`` and
    ``compute_logits`` over hidden states (both runners call it)."""

    def __init__(self, hidden: int = 8, vocab: int = VOCAB) -> None:
        super().__init__()
        self.model = nn.LayerNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)

    def compute_logits(self, hidden_states: torch.Tensor) -> torch.Tensor:
        return self.lm_head(self.model(hidden_states))


def through_verl(sampler: Any, vocab_size: int = VOCAB, backend: str = "torch",
                 monkeypatch: pytest.MonkeyPatch | None = None) -> Any:
    """A worker with ``sampler`` after verl's ``monkey_patch_model`` (which installs verl-ext's sampler)."""
    from verl_ext.rollout import VLLMWorkerExtension

    if monkeypatch is not None:
        monkeypatch.setenv(vllm_sampler.BACKEND_ENV, backend)
    worker = object.__new__(VLLMWorkerExtension)  # vLLM's Worker __init__ needs a GPU; verl's hook does not
    worker.model_runner = types.SimpleNamespace(model=TinyLM(), sampler=sampler,
                                                vllm_config=types.SimpleNamespace(speculative_config=None))
    worker.monkey_patch_model(vocab_size)
    return worker


@pytest.mark.parametrize("mode", ["processed_logprobs", "processed_logits", "raw_logprobs"])
def test_v1_processed_output_equals_vllms_and_tokens_stay_in_it(mode: str, monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    n = 32
    logits = logits_batch(n)
    temperature = torch.tensor([0.0, 0.7, 1.0, 1.3] * (n // 4))
    top_k = torch.tensor([VOCAB, 5, 12, 1, 30, VOCAB, 7, 20] * (n // 8), dtype=torch.int32)  # VOCAB: off
    top_p = torch.tensor([1.0, 0.9, 0.5, 0.75] * (n // 4))
    reference = v1_sampler(mode)(logits.clone(), metadata(temperature, top_k, top_p, {}))
    fused_sampler = v1_sampler(mode)
    through_verl(fused_sampler, monkeypatch=monkeypatch)
    assert isinstance(fused_sampler.topk_topp_sampler.forward, FusedTopKTopP)
    out = fused_sampler(logits.clone(), metadata(temperature, top_k, top_p, {}))

    tokens = out.sampled_token_ids[:, 0].long()
    greedy = temperature < 1e-5
    assert torch.equal(tokens[greedy], logits[greedy].argmax(-1))  # vLLM's greedy rows, untouched
    if mode == "raw_logprobs":  # vLLM's raw log-probs, before any filter
        torch.testing.assert_close(out.logprobs_tensors.logprobs, reference.logprobs_tensors.logprobs)
        return
    ours, theirs = out.logprobs_tensors.logprobs, reference.logprobs_tensors.logprobs
    assert torch.equal(torch.isfinite(ours), torch.isfinite(theirs))
    finite = torch.isfinite(ours)
    torch.testing.assert_close(ours[finite], theirs[finite], atol=2e-6, rtol=0)
    assert torch.isfinite(ours.gather(1, tokens[:, None])).all(), "a token outside vLLM's kept set"


def test_v1_ties_at_the_boundary_are_all_kept_where_vllm_keeps_part(monkeypatch: pytest.MonkeyPatch) -> None:
    """Model logits in bf16 tie often. vLLM's sort keeps part of a tie at the top-p (and top-k) boundary; verl-ext
    keeps every token at or above its threshold: a superset of vLLM's kept set, closed upwards, and larger where a
    tie straddles vLLM's cut (docs/fused-ops.md, "Where the draws differ")."""
    n, vocab = 8, 3000
    logits = (logits_batch(n, seed=3, vocab=vocab)).bfloat16().float()
    temperature = torch.ones(n)
    top_k = torch.tensor([vocab, 50] * (n // 2), dtype=torch.int32)  # vocab: off
    top_p = torch.full((n,), 0.9)
    reference = v1_sampler("processed_logprobs")(logits.clone(), metadata(temperature, top_k, top_p, {}))
    fused_sampler = v1_sampler("processed_logprobs")
    through_verl(fused_sampler, vocab_size=vocab, monkeypatch=monkeypatch)
    out = fused_sampler(logits.clone(), metadata(temperature, top_k, top_p, {}))
    ours = torch.isfinite(out.logprobs_tensors.logprobs)
    theirs = torch.isfinite(reference.logprobs_tensors.logprobs)
    assert not (theirs & ~ours).any(), "a token vLLM keeps is dropped"
    lowest = torch.where(ours, logits, math.inf).min(-1, keepdim=True).values
    assert torch.equal(ours, logits >= lowest), "the kept set is not every token at or above its threshold"
    assert (ours.sum(-1) > theirs.sum(-1)).any(), "no tie straddled vLLM's cut: the case is not exercised"


@pytest.mark.parametrize("offset", [1e5, 1e6])
def test_v1_processed_logprobs_keep_their_precision_at_large_logits(offset: float,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Logits far from 0 (vLLM divides them by the temperature first, so a temperature of 1e-5 makes logits of
    10 into 1e6): the processed log-probs are taken relative to the row's max, as vLLM's log-softmax takes
    them; ``logits - log_norm`` was off by up to half an fp32 ulp of the max (0.03 at 1e6)."""
    n = 16
    logits = logits_batch(n, seed=5) + offset
    temperature = torch.ones(n)
    top_k = torch.tensor([VOCAB, 5, 12, 30] * (n // 4), dtype=torch.int32)
    top_p = torch.tensor([0.9, 1.0, 0.5, 0.75] * (n // 4))
    fused_sampler = v1_sampler("processed_logprobs")
    through_verl(fused_sampler, monkeypatch=monkeypatch)
    out = fused_sampler(logits.clone(), metadata(temperature, top_k, top_p, {}))
    ours = out.logprobs_tensors.logprobs
    kept = torch.isfinite(ours)
    expected = torch.log_softmax(torch.where(kept, logits.double(), float("-inf")), -1)
    assert (ours[kept].double() - expected[kept]).abs().max() < 1e-5
    assert kept.gather(1, out.sampled_token_ids.long()).all()
    # (No kept-set equality with vLLM here: fp32 rounds these logits to steps of 1/128 at 1e5, so they tie, and
    # vLLM's sort keeps part of a tie where verl-ext keeps all of it.)


def v1_min_p(values: list[float]) -> Any:
    """vLLM's own V1 min-p logits processor, told of one request per value as the V1 InputBatch tells it."""
    from vllm.v1.sample.logits_processor import BatchUpdate, MinPLogitsProcessor

    config = types.SimpleNamespace(scheduler_config=types.SimpleNamespace(max_num_seqs=len(values)))
    processor = MinPLogitsProcessor(config, torch.device("cpu"), is_pin_memory=False)
    added = [(i, SamplingParams(min_p=v), None, []) for i, v in enumerate(values)]
    processor.update_state(BatchUpdate(batch_size=len(values), removed=[], added=added, moved=[]))
    return LogitsProcessors([processor])


def test_v1_min_p_cuts_before_the_fused_draw_as_in_vllm(monkeypatch: pytest.MonkeyPatch) -> None:
    n = 24
    logits = logits_batch(n, seed=17)
    min_p = [0.0, 0.2, 0.05, 0.9] * (n // 4)
    temperature = torch.tensor([1.0, 0.8, 1.0, 1.2] * (n // 4))
    top_k = torch.tensor([VOCAB, VOCAB, 9, 30] * (n // 4), dtype=torch.int32)
    top_p = torch.tensor([1.0, 1.0, 0.95, 0.9] * (n // 4))
    reference = v1_sampler("processed_logprobs")(logits.clone(), metadata(temperature, top_k, top_p, {},
                                                                          logitsprocs=v1_min_p(min_p)))
    fused_sampler = v1_sampler("processed_logprobs")
    through_verl(fused_sampler, monkeypatch=monkeypatch)
    out = fused_sampler(logits.clone(), metadata(temperature, top_k, top_p, {}, logitsprocs=v1_min_p(min_p)))

    ours, theirs = out.logprobs_tensors.logprobs, reference.logprobs_tensors.logprobs
    assert torch.equal(torch.isfinite(ours), torch.isfinite(theirs))
    torch.testing.assert_close(ours[torch.isfinite(ours)], theirs[torch.isfinite(theirs)], atol=2e-6, rtol=0)
    tokens = out.sampled_token_ids[:, 0].long()
    assert torch.isfinite(ours.gather(1, tokens[:, None])).all(), "a token min-p removed was drawn"
    kept = torch.isfinite(ours).sum(1)
    assert (kept[1::4] < VOCAB).all() and (kept[0::4] == VOCAB).all()  # min-p cut, and off is off


def test_v1_draws_follow_vllms_distribution_and_seeds_repeat(monkeypatch: pytest.MonkeyPatch) -> None:
    n = 6000
    row = logits_batch(1, seed=3)
    logits = row.expand(n, VOCAB).contiguous()
    temperature = torch.full((n,), 0.9)
    top_k, top_p = torch.full((n,), 20, dtype=torch.int32), torch.full((n,), 0.85)

    def seeded(offset: int) -> dict[int, torch.Generator]:  # every row seeded: deterministic, vLLM's own way
        return {i: torch.Generator().manual_seed(offset + i) for i in range(n)}

    ours = v1_sampler("processed_logprobs")
    through_verl(ours, monkeypatch=monkeypatch)
    theirs = v1_sampler("processed_logprobs")
    a = ours(logits.clone(), metadata(temperature, top_k, top_p, seeded(0))).sampled_token_ids[:, 0].long()
    b = ours(logits.clone(), metadata(temperature, top_k, top_p, seeded(0))).sampled_token_ids[:, 0].long()
    ref = theirs(logits.clone(), metadata(temperature, top_k, top_p, seeded(10**6)))
    assert torch.equal(a, b), "seeded requests must repeat their draws"
    target = ref.logprobs_tensors.logprobs[0]  # vLLM's own processed distribution
    assert g_test_p(a, target) > ALPHA
    assert g_test_p(ref.sampled_token_ids[:, 0].long(), target) > ALPHA  # the test accepts vLLM's own draws
    skewed = torch.where(a == target.argmax(), a, target.argmax())  # and rejects a wrong sampler
    assert g_test_p(skewed, target) < ALPHA


def test_v1_fallback_to_vllms_own_sampler(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
                                          ) -> None:
    sampler = v1_sampler("processed_logprobs")
    native = sampler.topk_topp_sampler.forward
    through_verl(sampler, monkeypatch=monkeypatch)
    again = install_fused_sampler(types.SimpleNamespace(sampler=sampler), backend="torch")
    assert isinstance(again, FusedTopKTopP) and again.fallback == native  # reinstalling keeps vLLM's as fallback
    calls = []

    def broken(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        raise RuntimeError("kernel failed to compile")

    monkeypatch.setattr(vllm_sampler, "sample_processed", broken)
    logits = logits_batch(8)
    meta = metadata(torch.ones(8), torch.full((8,), 5, dtype=torch.int32), None, {})
    with caplog.at_level(logging.ERROR):
        first = sampler(logits.clone(), meta)
    second = sampler(logits.clone(), meta)
    assert "vLLM's own sampler takes over" in caplog.text and calls == [1]  # not retried after the failure
    for out in (first, second):
        assert torch.isfinite(out.logprobs_tensors.logprobs.gather(1, out.sampled_token_ids.long())).all()


def test_v1_nan_rows_get_a_token_id(monkeypatch: pytest.MonkeyPatch) -> None:
    sampler = v1_sampler("raw_logprobs")
    through_verl(sampler, monkeypatch=monkeypatch)
    logits = logits_batch(4)
    logits[2, 7] = float("nan")
    out = sampler(logits.clone(), metadata(torch.ones(4), None, None, {}, max_num_logprobs=None))
    tokens = out.sampled_token_ids[:, 0]
    assert ((tokens >= 0) & (tokens < VOCAB)).all()


def test_v1_rows_without_a_distribution_get_nan_log_probs_as_vllms(monkeypatch: pytest.MonkeyPatch) -> None:
    """A +inf or NaN logit: vLLM's log-softmax gives NaN over the whole row, and so does the fused path (a +inf
    row's threshold keeps only the +inf token, which gave -inf everywhere else)."""
    mode = "processed_logprobs"
    logits = logits_batch(4)
    logits[1, 5], logits[2, 7] = float("inf"), float("nan")
    args = (torch.ones(4), torch.full((4,), 5, dtype=torch.int32), torch.full((4,), 0.9), {})
    theirs = v1_sampler(mode)(logits.clone(), metadata(*args)).logprobs_tensors.logprobs
    sampler = v1_sampler(mode)
    through_verl(sampler, monkeypatch=monkeypatch)
    out = sampler(logits.clone(), metadata(*args))
    ours = out.logprobs_tensors.logprobs
    assert theirs[1:3].isnan().all() and ours[1:3].isnan().all()
    assert torch.equal(torch.isfinite(ours[[0, 3]]), torch.isfinite(theirs[[0, 3]]))
    assert ((out.sampled_token_ids >= 0) & (out.sampled_token_ids < VOCAB)).all()


def test_verls_vocabulary_cut_holds_under_the_fused_sampler(monkeypatch: pytest.MonkeyPatch) -> None:
    sampler = v1_sampler("processed_logprobs")
    worker = through_verl(sampler, vocab_size=VOCAB - 8, monkeypatch=monkeypatch)  # the padded tail is -inf
    hidden = torch.randn(64, 8, generator=torch.Generator().manual_seed(1)) * 4
    with torch.no_grad():
        logits = worker.model_runner.model.compute_logits(hidden)
    out = sampler(logits, metadata(torch.full((64,), 1.5), None, None, {}))
    assert (out.sampled_token_ids < VOCAB - 8).all()


def test_backend_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    sampler = v1_sampler("raw_logprobs")
    through_verl(sampler, backend="torch", monkeypatch=monkeypatch)
    assert sampler.topk_topp_sampler.forward.backend == "torch"
    monkeypatch.setenv(vllm_sampler.BACKEND_ENV, "cuda-please")
    with pytest.raises(ValueError, match=vllm_sampler.BACKEND_ENV):
        install_fused_sampler(types.SimpleNamespace(sampler=sampler))
    # FlashInfer's sampler cannot take the uniform each row draws with: refused by name, not silently replaced.
    monkeypatch.setenv(vllm_sampler.BACKEND_ENV, "flashinfer")
    with pytest.raises(ValueError, match="own uniform"):
        install_fused_sampler(types.SimpleNamespace(sampler=sampler))
    with pytest.raises(ValueError, match="own uniform"):
        install_fused_sampler(types.SimpleNamespace(sampler=sampler), backend="flashinfer")
    # A configuration error of verl-ext's own type (still a ValueError), naming the key; an empty or non-string
    # argument is refused too, not read as "use the environment".
    with pytest.raises(ConfigError, match="own uniform") as info:
        install_fused_sampler(types.SimpleNamespace(sampler=sampler))
    assert info.value.key == vllm_sampler.BACKEND_ENV
    for wrong in ("", 0, "Triton", " triton"):
        with pytest.raises(ConfigError, match="not a rollout sampler backend") as info:
            install_fused_sampler(types.SimpleNamespace(sampler=sampler), backend=wrong)  # type: ignore[arg-type]
        assert info.value.key == "backend"
    monkeypatch.delenv(vllm_sampler.BACKEND_ENV)
    fused = install_fused_sampler(types.SimpleNamespace(sampler=sampler))
    assert fused is not None and fused.backend == "auto"


def test_a_bad_backend_stops_the_worker_when_vllm_imports_the_extension() -> None:
    """vLLM imports the worker extension while it builds the worker, before the model loads: the environment
    variable is checked there, not first in ``monkey_patch_model`` after the weights are in GPU memory."""
    env = {**os.environ, vllm_sampler.BACKEND_ENV: "flashinfer"}
    run = subprocess.run([sys.executable, "-c", "import verl_ext.rollout.vllm_worker"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode != 0 and "ConfigError: VERL_EXT_SAMPLER_BACKEND" in run.stderr, run.stderr[-2000:]
    env[vllm_sampler.BACKEND_ENV] = "torch"
    ok = subprocess.run([sys.executable, "-c", "import verl_ext.rollout.vllm_worker"], env=env, capture_output=True,
                        text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr[-2000:]


# ---------------------------------------------------------------------------------------------------- V2

def v2_sampler(v2: types.ModuleType, params: list[Any], mode: str = "processed_logprobs") -> Any:
    from vllm.v1.worker.gpu.states import RequestState

    cpu = torch.device("cpu")
    states = RequestState(max_num_reqs=len(params), max_model_len=64, max_num_batched_tokens=64,
                          num_speculative_steps=0, vocab_size=VOCAB, device=cpu)
    sampler = v2.Sampler(len(params), VOCAB, cpu, states, logprobs_mode=mode)
    for i, p in enumerate(params):
        sampler.add_request(i, 4, p)
    sampler.apply_staged_writes()
    return sampler


def v2_call(sampler: Any, logits: torch.Tensor, requests: torch.Tensor, positions: torch.Tensor
            ) -> tuple[torch.Tensor, torch.Tensor]:
    """``Sampler.sample`` as the V2 runner's ``__call__`` makes it: one row per scheduled token."""
    idx = requests.to(torch.int32)
    zeros = torch.zeros_like(idx)
    return sampler.sample(logits.clone(), idx, np.unique(idx.numpy()), positions.to(torch.int64), zeros, zeros,
                          return_logprobs=True)


PARAMS = [SamplingParams(temperature=0.0), SamplingParams(temperature=0.7, top_k=5),
          SamplingParams(temperature=1.0, top_p=0.6), SamplingParams(temperature=1.3, top_k=12, top_p=0.8, seed=7),
          SamplingParams(temperature=1.0, seed=11), SamplingParams(temperature=0.5, top_k=1)]


def test_v2_processed_logits_equal_vllms_and_tokens_stay_in_them(v2: types.ModuleType,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    requests = torch.arange(len(PARAMS)).repeat(4)
    positions = torch.arange(requests.numel()) + 3
    logits = logits_batch(requests.numel(), seed=5)
    ref_tokens, ref_processed = v2_call(v2_sampler(v2, PARAMS), logits, requests, positions)
    sampler = v2_sampler(v2, PARAMS)
    through_verl(sampler, monkeypatch=monkeypatch)
    assert isinstance(sampler.sample, FusedV2Sample)
    tokens, processed = v2_call(sampler, logits, requests, positions)

    assert tokens.dtype == torch.int64 and tokens.shape == ref_tokens.shape
    assert torch.equal(torch.isfinite(processed), torch.isfinite(ref_processed))
    torch.testing.assert_close(processed.masked_fill(~torch.isfinite(processed), 0),
                               ref_processed.masked_fill(~torch.isfinite(ref_processed), 0), atol=0, rtol=0)
    assert torch.isfinite(processed.gather(1, tokens[:, None])).all(), "a token outside vLLM's kept set"
    deterministic = torch.tensor([PARAMS[int(r)].temperature == 0 or PARAMS[int(r)].top_k == 1 for r in requests])
    assert torch.equal(tokens[deterministic], ref_tokens[deterministic])  # greedy and top-1 rows

    # Without log-probs vLLM never reads the processed logits: same draws, no filtering pass.
    idx, zeros = requests.to(torch.int32), torch.zeros(requests.numel(), dtype=torch.int32)
    again, unfiltered = sampler.sample(logits.clone(), idx, np.unique(idx.numpy()), positions, zeros, zeros,
                                       return_logprobs=False)
    assert torch.equal(again, tokens) and torch.isfinite(unfiltered).all()


def _min_p_as_vllms_kernel(logits: torch.Tensor, expanded_idx_mapping: torch.Tensor, min_p: torch.Tensor) -> None:
    """vLLM 0.24.0's ``_min_p_kernel`` in torch, in place: per row, logits below ``max + log(min_p)`` become
    -inf; rows with min-p 0 are untouched."""
    row_min_p = min_p[expanded_idx_mapping.long()][:, None]
    threshold = logits.max(-1, keepdim=True).values + torch.log(row_min_p)
    logits.masked_fill_((row_min_p > 0) & (logits < threshold), float("-inf"))


def test_v2_min_p_cuts_before_the_fused_draw_as_in_vllm(v2: types.ModuleType, monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    # vLLM's min-p kernel loops to a runtime vocabulary size, which Triton's interpreter on NumPy 2 cannot run
    # ("only 0-dimensional arrays can be converted to Python scalars"); the reference and the fused sampler
    # both get the same torch transcription of it, so the test checks what follows min-p: the fused draw.
    from vllm.v1.worker.gpu.sample import states as v2_states

    monkeypatch.setattr(v2_states, "apply_min_p", _min_p_as_vllms_kernel)
    params = [SamplingParams(temperature=1.0, min_p=0.2, seed=3), SamplingParams(temperature=0.8, min_p=0.05, top_k=9),
              SamplingParams(temperature=1.0, min_p=0.9, top_p=0.95, seed=4), SamplingParams(temperature=1.0)]
    requests = torch.arange(len(params)).repeat(6)
    positions = torch.arange(requests.numel())
    logits = logits_batch(requests.numel(), seed=13)
    _, ref_processed = v2_call(v2_sampler(v2, params), logits, requests, positions)
    tokens, processed = v2_call(v2_sampler_installed(v2, params, monkeypatch), logits, requests, positions)

    assert torch.equal(torch.isfinite(processed), torch.isfinite(ref_processed))
    torch.testing.assert_close(processed.masked_fill(~torch.isfinite(processed), 0),
                               ref_processed.masked_fill(~torch.isfinite(ref_processed), 0), atol=0, rtol=0)
    assert torch.isfinite(processed.gather(1, tokens[:, None])).all(), "a token min-p removed was drawn"
    kept = torch.isfinite(processed).sum(1)
    assert (kept[requests == 0] < VOCAB).all() and (kept[requests == 3] == VOCAB).all()  # min-p cut, off is off


def test_v2_seeds_repeat_per_position_and_draws_follow_vllms_distribution(v2: types.ModuleType,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # Temperature 1 (vLLM skips its temperature kernel then; the test above covers other temperatures): each
    # of vLLM's kernels runs one interpreted program per row here.
    params = [SamplingParams(temperature=1.0, top_k=16, top_p=0.9, seed=1234)]
    n = 2000
    logits = logits_batch(1, seed=9).expand(n, VOCAB).contiguous()
    requests, positions = torch.zeros(n, dtype=torch.int64), torch.arange(n)
    a, _ = v2_call(v2_sampler_installed(v2, params, monkeypatch), logits, requests, positions)
    b, _ = v2_call(v2_sampler_installed(v2, params, monkeypatch), logits[:100], requests[:100], positions[:100])
    assert torch.equal(a[:100], b), "a seeded request must draw the same token at the same position"
    assert a.unique().numel() > 1, "positions must draw anew"
    m = 300  # vLLM's own draws: fewer, as its Gumbel kernel is interpreted
    theirs, ref_processed = v2_call(v2_sampler(v2, params), logits[:m], requests[:m], positions[:m])
    target = torch.log_softmax(ref_processed[0].double(), -1)
    assert g_test_p(a, target) > ALPHA
    assert g_test_p(theirs, target) > ALPHA  # vLLM's own Gumbel draws pass the same test


def v2_sampler_installed(v2: types.ModuleType, params: list[Any], monkeypatch: pytest.MonkeyPatch) -> Any:
    sampler = v2_sampler(v2, params)
    through_verl(sampler, monkeypatch=monkeypatch)
    return sampler


def test_v2_unseeded_requests_differ_and_fallback_takes_over(v2: types.ModuleType, monkeypatch: pytest.MonkeyPatch,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    params = [SamplingParams(temperature=1.0) for _ in range(8)]  # vLLM draws each an int64 seed
    logits = torch.zeros(8, VOCAB)
    sampler = v2_sampler_installed(v2, params, monkeypatch)
    native = sampler.sample.fallback
    tokens, _ = v2_call(sampler, logits, torch.arange(8), torch.zeros(8))
    assert tokens.unique().numel() > 1, "requests without a seed must not draw alike"
    assert install_fused_sampler(types.SimpleNamespace(sampler=sampler), backend="torch").fallback == native

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("kernel failed to compile")

    monkeypatch.setattr(vllm_sampler, "sample_processed", broken)
    with caplog.at_level(logging.ERROR):
        tokens, processed = v2_call(sampler, logits, torch.arange(8), torch.zeros(8))
    assert "vLLM's own sampler takes over" in caplog.text and sampler.sample.failed
    assert tokens.shape == (8,) and processed.shape == (8, VOCAB)


def test_speculative_decoding_is_named_as_outside_the_fused_path(caplog: pytest.LogCaptureFixture) -> None:
    runner = types.SimpleNamespace(sampler=v1_sampler("raw_logprobs"), speculative_config=object())
    with caplog.at_level(logging.WARNING, logger=vllm_sampler.__name__):
        install_fused_sampler(runner, backend="torch")
    # V1's rejection sampler draws the bonus token through the runner's sampler (vLLM 0.24.0), so the fused one.
    assert "acceptance of draft tokens" in caplog.text and "bonus token" in caplog.text


def test_v2_runner_without_a_sampler_is_left_alone() -> None:
    # Pipeline stages before the last (and pooling models) have sampler None in the V2 runner.
    assert install_fused_sampler(types.SimpleNamespace(sampler=None), backend="torch") is None


def test_an_unknown_sampler_is_refused_with_the_way_out() -> None:
    with pytest.raises(RuntimeError, match="worker_extension_cls"):
        install_fused_sampler(types.SimpleNamespace(sampler=object()), backend="torch")


def test_worker_extension_subclasses_verls_and_adds_only_the_hook() -> None:
    from verl.workers.rollout.vllm_rollout.utils import vLLMColocateWorkerExtension

    from verl_ext.rollout import VLLMWorkerExtension

    assert issubclass(VLLMWorkerExtension, vLLMColocateWorkerExtension)
    assert set(vars(VLLMWorkerExtension)) - {"__module__", "__doc__", "__qualname__", "__firstlineno__",
                                              "__static_attributes__", "__annotations__"} == {"monkey_patch_model"}
