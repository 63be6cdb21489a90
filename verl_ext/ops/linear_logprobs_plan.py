"""Memory plan of :func:`verl_ext.ops.linear_logprobs`: the tile sizes it uses and the bytes it allocates.

The op walks the logits ``hidden @ weight.T`` in tiles of ``chunk_tokens x chunk_vocab``: vocabulary tiles
outside, token chunks inside, in the forward and in the backward. Per tile the backward recomputes the
logits, turns them into their gradient in place and feeds two matmuls:

* ``d weight[tile] = d logits.T @ hidden`` — with all tokens in one chunk, one matmul writes the tile of
  ``d weight`` once, in the weight's dtype (cuBLAS accumulates in fp32 inside); otherwise the chunks add up
  in an fp32 accumulator of one tile's rows (``chunk_vocab x H``), copied out once per tile.
* ``d hidden += d logits @ weight[tile]`` — accumulated over the vocabulary tiles in an fp32 ``N x H``
  buffer (for fp16/bf16 inputs; fp32 and fp64 inputs accumulate in ``d hidden`` itself), which is the one
  temporary that grows with ``N``: 4 bytes x H per token, on top of the returned 2 x H.

Sizes: the logits tile gets :data:`TILE_BYTES` in the inputs' dtype. All tokens go in one chunk while the
vocabulary tile stays at least :data:`MIN_VOCAB_TILE` wide (the tile is then ``N x TILE_BYTES / N``); past
that, tiles are :data:`MIN_VOCAB_TILE` wide and the tokens are chunked. At N=16384, H=4096, V=128256 in
bf16: one token chunk, 4096-wide vocabulary tiles (128 MiB), peak 1.48 GiB of which the returned gradients
are 1.10 GiB (``d weight`` 1002 MiB, ``d hidden`` 128 MiB) and the fp32 ``d hidden`` accumulator 256 MiB.

:func:`plan_linear_logprobs` is what the op calls to pick its tiles, and its byte counts are what the tests
compare with the op's real allocations (on CPU); they count every buffer the implementation allocates,
per-token vectors included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch

#: Bytes of one logits tile in the inputs' dtype (bf16: 2^26 logits, e.g. 16384 tokens x 4096 entries).
#: 128 MiB keeps the backward's peak under 1.5 GiB at the issue's size (N=16384, H=4096, V=128256) while
#: each of the three matmuls per tile stays large (>= 16384 x 4096 x 4096 there) and the fp32 ``d hidden``
#: accumulator is read and written once per 4096 vocabulary entries (~7% of the matmuls' time).
TILE_BYTES = 128 * 2**20
#: Narrowest vocabulary tile chosen when the tokens no longer fit one chunk: below this the ``d hidden``
#: accumulator's traffic (N x H x 8 bytes per tile) grows past a tenth of the matmuls' time.
MIN_VOCAB_TILE = 4096
#: Vocabulary tiles are a multiple of this (matmul-friendly widths), unless the vocabulary is narrower.
VOCAB_ALIGN = 128

Backend = Literal["triton", "torch"]


@dataclass(frozen=True)
class LinearLogprobsPlan:
    """Tile sizes and predicted peak extra bytes (above the inputs) of one call.

    ``forward_bytes`` is the forward's peak, its four ``[N]`` outputs included; ``backward_bytes`` is what the
    backward allocates at its peak, the returned gradients included (the forward's outputs, alive then, not
    included); ``peak_bytes`` is the peak of a forward followed by a backward."""

    tokens: int
    hidden: int
    vocab: int
    dtype: torch.dtype
    chunk_tokens: int
    chunk_vocab: int
    output_bytes: int
    forward_bytes: int
    backward_bytes: int

    @property
    def peak_bytes(self) -> int:
        return max(self.forward_bytes, self.output_bytes + self.backward_bytes)

    @property
    def vocab_tiles(self) -> int:
        return -(-self.vocab // self.chunk_vocab)

    @property
    def token_chunks(self) -> int:
        return -(-self.tokens // self.chunk_tokens)


def accumulator_dtype(dtype: torch.dtype) -> torch.dtype:
    """Arithmetic and output dtype of the op for inputs of ``dtype``: fp64 for fp64, else fp32."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def _chunks(tokens: int, vocab: int, itemsize: int, chunk_tokens: int | None, chunk_vocab: int | None
            ) -> tuple[int, int]:
    elements = TILE_BYTES // itemsize
    n = max(tokens, 1)
    if chunk_tokens is not None:
        rows = min(chunk_tokens, n)
        cols = chunk_vocab if chunk_vocab is not None else elements // rows
    elif chunk_vocab is not None:
        cols = min(chunk_vocab, vocab)
        rows = elements // cols
    elif n * min(vocab, MIN_VOCAB_TILE) <= elements:  # all tokens in one chunk, the widest tile that fits
        rows, cols = n, max(elements // n // VOCAB_ALIGN * VOCAB_ALIGN, MIN_VOCAB_TILE)
    else:
        rows, cols = elements // MIN_VOCAB_TILE, MIN_VOCAB_TILE
    return max(1, min(rows, n)), max(1, min(cols, vocab))


def plan_linear_logprobs(tokens: int, hidden: int, vocab: int, dtype: torch.dtype, *, backend: Backend = "triton",
                         chunk_tokens: int | None = None, chunk_vocab: int | None = None, need_hidden: bool = True,
                         need_weight: bool = True, fp32_output_matmul: bool = True) -> LinearLogprobsPlan:
    """The tiles :func:`verl_ext.ops.linear_logprobs` uses for ``hidden [tokens, hidden]`` and ``weight
    [vocab, hidden]`` of ``dtype``, and the bytes it allocates.

    Parameters
    ----------
    tokens, hidden, vocab, dtype
        The problem.
    backend
        ``"triton"`` (in-place kernels: no temporaries beside the tile) or ``"torch"`` (the CPU reference:
        fp32/fp64 copies of the tile while it is reduced).
    chunk_tokens, chunk_vocab
        Fix a tile side (the other one is then chosen from :data:`TILE_BYTES`); ``None`` chooses both.
    need_hidden, need_weight
        Which gradients the backward computes.
    fp32_output_matmul
        Whether fp16/bf16 matmuls can add into an fp32 accumulator in place (``torch.addmm(...,
        out_dtype=torch.float32)``, CUDA). Without it (CPU) the two operands are copied to fp32 first.
    """
    if min(tokens, hidden, vocab) < 0 or vocab < 1:
        raise ValueError(f"need tokens, hidden >= 0 and vocab >= 1, got {tokens}, {hidden}, {vocab}")
    if (chunk_tokens is not None and chunk_tokens < 1) or (chunk_vocab is not None and chunk_vocab < 1):
        raise ValueError("chunk sizes must be >= 1")
    size = torch.empty((), dtype=dtype).element_size()
    acc = accumulator_dtype(dtype).itemsize
    rows, cols = _chunks(tokens, vocab, size, chunk_tokens, chunk_vocab)
    narrow = size < 4  # fp16/bf16: gradients accumulate in separate fp32 buffers
    tile = rows * cols * size
    outputs = 4 * tokens * acc
    if backend == "torch":
        # The tile in the accumulator's dtype (a copy unless the inputs already are) and exp(...) beside it;
        # per row: the new max, its rescale factor, three row sums, label positions (int64) and masks.
        tile_temps = rows * cols * acc * (2 if size != acc else 1)
        forward_rows = rows * (5 * acc + 2 * 8 + 3) + tokens
        # Backward: upstream gradients with ignored rows zeroed (2 x N); per tile p = exp(x - lse) beside the
        # tile's copy, a scaled row vector and the label positions.
        backward_rows = 2 * tokens * acc + tokens + rows * (acc + 2 * 8 + 3)
    else:
        tile_temps = 0
        forward_rows = tokens  # the ignored-rows mask of the final step
        backward_rows = 2 * acc  # a zero for an upstream gradient autograd left out
    several_tiles, several_chunks = cols < vocab, rows < max(tokens, 1)
    d_weight = vocab * hidden * size if need_weight else 0
    d_hidden = tokens * hidden * size if need_hidden else 0
    acc_hidden = tokens * hidden * 4 if need_hidden and several_tiles and narrow else 0
    acc_weight = cols * hidden * 4 if need_weight and several_chunks and narrow else 0
    matmul_temps = 0
    if narrow and not fp32_output_matmul:
        matmul_temps = max(4 * (rows * cols + cols * hidden) if acc_hidden else 0,
                           4 * (rows * cols + rows * hidden) if acc_weight else 0)
    forward = outputs + tile + tile_temps + forward_rows
    backward = d_weight + d_hidden + acc_hidden + acc_weight + tile + max(tile_temps, matmul_temps) + backward_rows
    return LinearLogprobsPlan(tokens=tokens, hidden=hidden, vocab=vocab, dtype=dtype, chunk_tokens=rows,
                              chunk_vocab=cols, output_bytes=outputs, forward_bytes=forward, backward_bytes=backward)
