"""The stand-ins a CPU run trains: a byte-level tokenizer with a chat template and a tiny random model of a
given architecture family (a few hundred thousand parameters), saved as a Hugging Face checkpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from verl_ext.bench.dataproto import build_tiny_tokenizer

#: A chat template for the byte-level tokenizer: verl applies the tokenizer's template to every prompt.
CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>{% endif %}")
#: The shrunk sizes (each layer's attention: 2 heads of 64).
TINY = {"hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 2, "num_attention_heads": 2,
        "num_key_value_heads": 2, "head_dim": 64, "max_position_embeddings": 2048}


def tiny_checkpoint(dest: Path, family: Any = None, seed: int = 0) -> int:
    """Save a byte-level tokenizer and a random model shaped like ``family`` (a ``transformers`` config;
    default Qwen2) but :data:`TINY` in size to ``dest``; returns its parameter count."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    dest.mkdir(parents=True, exist_ok=True)
    build_tiny_tokenizer(dest)
    tokenizer = AutoTokenizer.from_pretrained(dest)
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(dest)
    fields = family.to_dict() if family is not None else {"model_type": "qwen2"}
    fields.pop("layer_types", None)  # one per layer of the full model: rebuilt for the tiny one
    fields.update(TINY, vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id,
                  eos_token_id=tokenizer.eos_token_id, bos_token_id=tokenizer.eos_token_id,
                  tie_word_embeddings=True, torch_dtype="bfloat16")
    config = AutoConfig.for_model(fields.pop("model_type"), **fields)
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config).to(torch.bfloat16)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(dest)
    return sum(p.numel() for p in model.parameters())
