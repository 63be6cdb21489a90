"""Triton kernels of :mod:`verl_ext.ops.linear_logprobs`: one pass over a tile of logits ``[rows, cols]``
(tokens x a slice of the vocabulary starting at ``col_offset``), in place, one program per row.

* :func:`tile_stats` folds the tile into each row's running statistics (max, sum of ``exp``, sum of
  ``exp * x``) and picks up the label's logit when the label falls inside the tile.
* :func:`tile_gradient` overwrites the tile with ``d logits`` (in the tile's dtype), which then feeds the
  two gradient matmuls.

Layout: kernels, then launchers (Liger style); the autograd and the tile loops live in the op's module.
"""

from __future__ import annotations

import torch

from verl_ext.ops._backend import triton_available, warps_for

#: Columns a program handles per step (a power of two; as in :data:`verl_ext.ops.logprobs.BLOCK_V`).
BLOCK_COLS = 4096

if triton_available():
    import triton
    import triton.language as tl

    @triton.jit
    def _tile_stats_kernel(x_ptr, labels_ptr, max_ptr, sum_ptr, dot_ptr, label_logit_ptr, stride_row, cols,
                           col_offset, inv_temperature, BLOCK: tl.constexpr, NUM_BLOCKS: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        base = x_ptr + row * stride_row
        m = tl.load(max_ptr + row)
        s = tl.load(sum_ptr + row)
        t = tl.load(dot_ptr + row)
        # Compile-time block count (one compilation per tile width): Triton's interpreter cannot loop over a
        # runtime bound with the NumPy 2 in our stack.
        for b in range(NUM_BLOCKS):
            c = b * BLOCK + tl.arange(0, BLOCK)
            inside = c < cols
            x = tl.load(base + c, mask=inside, other=float("-inf")).to(tl.float32) * inv_temperature
            m_new = tl.maximum(m, tl.max(x, 0))
            # Nothing finite seen yet means nothing to rescale (and no exp(-inf - -inf) = nan).
            alpha = tl.where(m_new == float("-inf"), 0.0, tl.exp(m - m_new))
            e = tl.where(inside, tl.exp(x - m_new), 0.0)
            s = s * alpha + tl.sum(e, 0)
            t = t * alpha + tl.sum(e * tl.where(inside, x, 0.0), 0)
            m = m_new
        tl.store(max_ptr + row, m)
        tl.store(sum_ptr + row, s)
        tl.store(dot_ptr + row, t)
        local = tl.load(labels_ptr + row) - col_offset
        here = (local >= 0) & (local < cols)
        x_label = tl.load(base + tl.where(here, local, 0)).to(tl.float32) * inv_temperature
        tl.store(label_logit_ptr + row, x_label, mask=here)

    @triton.jit
    def _tile_gradient_kernel(x_ptr, labels_ptr, lse_ptr, mean_ptr, grad_lp_ptr, grad_h_ptr, stride_row,
                              grad_lp_stride, grad_h_stride, cols, col_offset, inv_temperature, ignore_index,
                              BLOCK: tl.constexpr, NUM_BLOCKS: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        base = x_ptr + row * stride_row
        label = tl.load(labels_ptr + row)
        ignored = label == ignore_index
        lse = tl.load(lse_ptr + row)
        mean = tl.load(mean_ptr + row)
        g_lp = tl.where(ignored, 0.0, tl.load(grad_lp_ptr + row * grad_lp_stride))
        g_h = tl.where(ignored, 0.0, tl.load(grad_h_ptr + row * grad_h_stride))
        local = label - col_offset
        for b in range(NUM_BLOCKS):
            c = b * BLOCK + tl.arange(0, BLOCK)
            inside = c < cols
            x = tl.load(base + c, mask=inside, other=0.0).to(tl.float32) * inv_temperature
            p = tl.exp(x - lse)
            onehot = tl.where(c == local, 1.0, 0.0)
            d = g_lp * (onehot - p) + g_h * p * (mean - x)
            tl.store(base + c, (d * inv_temperature).to(x_ptr.dtype.element_ty), mask=inside)


def _blocks(cols: int) -> dict[str, int]:
    block = min(BLOCK_COLS, triton.next_power_of_2(cols))
    return {"BLOCK": block, "NUM_BLOCKS": triton.cdiv(cols, block), "num_warps": warps_for(block)}


def tile_stats(tile: torch.Tensor, labels: torch.Tensor, running_max: torch.Tensor, running_sum: torch.Tensor,
               running_dot: torch.Tensor, label_logit: torch.Tensor, col_offset: int, inv_temperature: float) -> None:
    """Fold a contiguous tile ``[rows, cols]`` of logits (vocabulary entries ``col_offset + [0, cols)``) into
    the fp32 ``[rows]`` running statistics, in place; ``label_logit`` is written for rows whose label is in
    the tile."""
    rows, cols = tile.shape
    if rows:
        _tile_stats_kernel[(rows,)](tile, labels, running_max, running_sum, running_dot, label_logit, tile.stride(0),
                                    cols, col_offset, inv_temperature, **_blocks(cols))


def tile_gradient(tile: torch.Tensor, labels: torch.Tensor, lse: torch.Tensor, mean: torch.Tensor,
                  grad_lp: torch.Tensor, grad_h: torch.Tensor, col_offset: int, inv_temperature: float,
                  ignore_index: int) -> None:
    """Overwrite a contiguous tile of logits with their gradient. ``grad_lp`` and ``grad_h`` are fp32 ``[rows]`` of
    any stride (0 for a gradient broadcast from a scalar, which is then never copied)."""
    rows, cols = tile.shape
    if rows:
        _tile_gradient_kernel[(rows,)](tile, labels, lse, mean, grad_lp, grad_h, tile.stride(0), grad_lp.stride(0),
                                       grad_h.stride(0), cols, col_offset, inv_temperature, ignore_index,
                                       **_blocks(cols))
