"""A byte-level tokenizer that round-trips any text, and verl DataProto batches (benchmarks and tests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def build_tiny_tokenizer(path: Path) -> None:
    """Save a byte-level BPE tokenizer with no merges (256 byte tokens + specials) to ``path``.

    Decoding is exact for any text, so rewards computed from decoded responses are deterministic.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {tok: i for i, tok in enumerate(sorted(alphabet))}
    for special in ("<pad>", "<eos>"):
        vocab[special] = len(vocab)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>")
    fast.save_pretrained(str(path))


def make_dataproto(tokenizer: Any, samples: list[dict[str, Any]], prompt_len: int = 8, response_len: int = 0) -> Any:
    """A DataProto as verl's rollout produces it: left-padded prompts, right-padded responses.

    Each sample: ``{"prompt", "response", "data_source", "ground_truth"}`` (+ optional ``extra_info``).
    """
    import torch
    from verl import DataProto

    prompts = [tokenizer.encode(s["prompt"], add_special_tokens=False)[-prompt_len:] for s in samples]
    responses = [[*tokenizer.encode(s["response"], add_special_tokens=False), tokenizer.eos_token_id]
                 for s in samples]
    r_len = max(response_len, max(len(r) for r in responses))
    pad = tokenizer.pad_token_id
    p_ids = torch.full((len(samples), prompt_len), pad, dtype=torch.long)
    r_ids = torch.full((len(samples), r_len), pad, dtype=torch.long)
    mask = torch.zeros((len(samples), prompt_len + r_len), dtype=torch.long)
    for i, (p, r) in enumerate(zip(prompts, responses, strict=True)):
        p_ids[i, prompt_len - len(p):] = torch.tensor(p, dtype=torch.long)
        r_ids[i, : len(r)] = torch.tensor(r, dtype=torch.long)
        mask[i, prompt_len - len(p): prompt_len + len(r)] = 1
    non_tensor = {
        "data_source": np.array([s["data_source"] for s in samples], dtype=object),
        "reward_model": np.array([{"ground_truth": s["ground_truth"], "style": "rule"} for s in samples], dtype=object),
        "extra_info": np.array([dict(s.get("extra_info", {"index": i})) for i, s in enumerate(samples)], dtype=object),
    }
    return DataProto.from_dict(
        tensors={"prompts": p_ids, "responses": r_ids, "attention_mask": mask,
                 "input_ids": torch.cat([p_ids, r_ids], dim=1)},
        non_tensors=non_tensor,
    )
