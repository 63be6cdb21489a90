"""Shared fixtures: a tiny tokenizer built locally (no hub downloads) and DataProto builders."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import build_tiny_tokenizer


@pytest.fixture(scope="session")
def tiny_tokenizer_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tiny_tokenizer")
    build_tiny_tokenizer(path)
    return path


@pytest.fixture(scope="session")
def tiny_tokenizer(tiny_tokenizer_dir: Path):  # noqa: ANN201 - transformers type
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(tiny_tokenizer_dir))
