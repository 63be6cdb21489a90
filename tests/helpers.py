"""Test helpers (shared with the benchmarks)."""

from verl_ext.bench.dataproto import build_tiny_tokenizer, make_dataproto

__all__ = ["build_tiny_tokenizer", "make_dataproto"]
