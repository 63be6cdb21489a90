"""Log-probabilities (and entropy) from hidden states and the output projection, without ``[N, V]`` logits.

``logits = hidden @ weight.T / temperature`` is only ever formed for a chunk of ``chunk_tokens x
chunk_vocab``: the forward walks the vocabulary with an online log-sum-exp (running max, sum of
``exp``, sum of ``exp * x``) and keeps two floats per token; the backward recomputes each chunk, turns
it into ``d logits = (g_lp * (onehot - p) + g_H * p * (E[x] - x)) / temperature`` and accumulates
``d hidden = d logits @ weight`` and ``d weight = d logits.T @ hidden`` in fp32, so peak extra memory
is one chunk plus the fp32 gradient accumulators, independent of ``V`` beyond the weight itself.

Two paths. ``torch`` chunks tokens and vocabulary (CPU, and the reference of the tests). ``triton`` (GPU)
chunks tokens only: each chunk's logits come from one cuBLAS matmul in the input dtype, the fused
log-prob kernels of :mod:`verl_ext.ops.logprobs` reduce them, and the backward recomputes the chunk,
overwrites it in place with its gradient and feeds two matmuls, so the peak is one
``chunk_tokens x V`` logits chunk. Rows whose label is ``ignore_index`` give 0 and no gradient, as in
:func:`verl_ext.ops.logprobs_from_logits`.
"""

from __future__ import annotations

from typing import Literal

import torch

from verl_ext.ops._backend import resolve_backend

#: Tokens per chunk of the Triton path (bf16 chunk: 2048 x 128256 x 2 B = 0.5 GiB).
TRITON_CHUNK_TOKENS = 2048
#: Tokens and vocabulary entries per chunk of the torch path (fp32 chunk: 4096 x 8192 x 4 B = 128 MiB).
CHUNK_TOKENS = 4096
CHUNK_VOCAB = 8192


def _chunk_logits(h: torch.Tensor, w: torch.Tensor, inv_t: float) -> torch.Tensor:
    # Products in the input dtype (as the unfused path does), accumulated and kept in fp32.
    return torch.matmul(h, w.T).float() * inv_t if h.dtype != torch.float64 else (h @ w.T) * inv_t


def _stats(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, inv_t: float, ignore_index: int,
           chunk_tokens: int, chunk_vocab: int) -> tuple[torch.Tensor, ...]:
    """Per token: log-prob, entropy, lse and E[x], by an online pass over vocabulary chunks."""
    n, vocab = hidden.shape[0], weight.shape[0]
    acc = torch.float64 if hidden.dtype == torch.float64 else torch.float32
    lse = torch.empty(n, dtype=acc, device=hidden.device)
    mean = torch.empty_like(lse)
    x_label = torch.empty_like(lse)
    ignored = labels == ignore_index
    safe = torch.where(ignored, torch.zeros_like(labels), labels).long()
    for t0 in range(0, n, chunk_tokens):
        h = hidden[t0:t0 + chunk_tokens]
        m = torch.full((h.shape[0],), float("-inf"), dtype=acc, device=h.device)
        s = torch.zeros_like(m)
        t = torch.zeros_like(m)
        lab = safe[t0:t0 + chunk_tokens]
        xl = torch.zeros_like(m)
        for v0 in range(0, vocab, chunk_vocab):
            x = _chunk_logits(h, weight[v0:v0 + chunk_vocab], inv_t)
            m_new = torch.maximum(m, x.max(-1).values)
            alpha = torch.where(m_new == float("-inf"), 0.0, torch.exp(m - m_new))
            e = torch.exp(x - m_new[:, None])
            s = s * alpha + e.sum(-1)
            t = t * alpha + (e * x).sum(-1)
            m = m_new
            inside = (lab >= v0) & (lab < v0 + x.shape[1])
            local = (lab - v0).clamp(0, x.shape[1] - 1)
            xl = torch.where(inside, x.gather(-1, local[:, None])[:, 0], xl)
        lse[t0:t0 + chunk_tokens] = m + torch.log(s)
        mean[t0:t0 + chunk_tokens] = t / s
        x_label[t0:t0 + chunk_tokens] = xl
    zero = torch.zeros_like(lse)
    logprob = torch.where(ignored, zero, x_label - lse)
    entropy = torch.where(ignored, zero, lse - mean)
    return logprob, entropy, lse, mean


class _LinearLogprobs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor,
                temperature: float, ignore_index: int, chunk_tokens: int, chunk_vocab: int
                ) -> tuple[torch.Tensor, torch.Tensor]:
        inv_t = 1.0 / temperature
        logprob, entropy, lse, mean = _stats(hidden, weight, labels, inv_t, ignore_index, chunk_tokens, chunk_vocab)
        ctx.save_for_backward(hidden, weight, labels, lse, mean)
        ctx.args = (inv_t, ignore_index, chunk_tokens, chunk_vocab)
        return logprob, entropy

    @staticmethod
    def backward(ctx, grad_lp: torch.Tensor | None, grad_h: torch.Tensor | None):
        hidden, weight, labels, lse, mean = ctx.saved_tensors
        inv_t, ignore_index, chunk_tokens, chunk_vocab = ctx.args
        acc = lse.dtype
        ignored = labels == ignore_index
        g_lp = torch.zeros_like(lse) if grad_lp is None else grad_lp.to(acc)
        g_h = torch.zeros_like(lse) if grad_h is None else grad_h.to(acc)
        g_lp = torch.where(ignored, 0.0, g_lp)
        g_h = torch.where(ignored, 0.0, g_h)
        d_hidden = torch.zeros(hidden.shape, dtype=acc, device=hidden.device) if ctx.needs_input_grad[0] else None
        d_weight = torch.zeros(weight.shape, dtype=acc, device=weight.device) if ctx.needs_input_grad[1] else None
        n, vocab = hidden.shape[0], weight.shape[0]
        for t0 in range(0, n, chunk_tokens):
            sl = slice(t0, t0 + chunk_tokens)
            h = hidden[sl]
            for v0 in range(0, vocab, chunk_vocab):
                w = weight[v0:v0 + chunk_vocab]
                x = _chunk_logits(h, w, inv_t)
                p = torch.exp(x - lse[sl, None])
                onehot = (labels[sl, None] - v0) == torch.arange(x.shape[1], device=x.device)[None, :]
                d = (g_lp[sl, None] * (onehot.to(acc) - p) + g_h[sl, None] * p * (mean[sl, None] - x)) * inv_t
                if d_hidden is not None:
                    d_hidden[sl] += d @ w.to(acc)
                if d_weight is not None:
                    d_weight[v0:v0 + chunk_vocab] += d.T @ h.to(acc)
        return (None if d_hidden is None else d_hidden.to(hidden.dtype),
                None if d_weight is None else d_weight.to(weight.dtype), None, None, None, None, None)


class _LinearLogprobsTriton(torch.autograd.Function):
    @staticmethod
    def forward(ctx, hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor,
                temperature: float, ignore_index: int, chunk_tokens: int) -> tuple[torch.Tensor, torch.Tensor]:
        from verl_ext.ops.logprobs import triton_forward

        labels = labels.contiguous()
        outs = [triton_forward(hidden[t0:t0 + chunk_tokens] @ weight.T, labels[t0:t0 + chunk_tokens], temperature,
                               ignore_index) for t0 in range(0, hidden.shape[0], chunk_tokens)]
        if not outs:
            empty = hidden.new_zeros(0, dtype=torch.float32)
            outs = [(empty, empty, empty, empty)]
        logprob, entropy, lse, mean = (torch.cat([o[i] for o in outs]) for i in range(4))
        ctx.save_for_backward(hidden, weight, labels, lse, mean)
        ctx.args = (temperature, ignore_index, chunk_tokens)
        return logprob, entropy

    @staticmethod
    def backward(ctx, grad_lp: torch.Tensor | None, grad_h: torch.Tensor | None):
        from verl_ext.ops.logprobs import triton_backward

        hidden, weight, labels, lse, mean = ctx.saved_tensors
        temperature, ignore_index, chunk_tokens = ctx.args
        g_lp = torch.zeros_like(lse) if grad_lp is None else grad_lp.float().contiguous()
        g_h = torch.zeros_like(lse) if grad_h is None else grad_h.float().contiguous()
        d_hidden = torch.empty_like(hidden) if ctx.needs_input_grad[0] else None
        d_weight = torch.zeros(weight.shape, dtype=torch.float32, device=weight.device) \
            if ctx.needs_input_grad[1] else None
        for t0 in range(0, hidden.shape[0], chunk_tokens):
            sl = slice(t0, t0 + chunk_tokens)
            h = hidden[sl]
            logits = h @ weight.T
            grad = triton_backward(logits, labels[sl], lse[sl], mean[sl], g_lp[sl], g_h[sl], temperature,
                                   ignore_index, out=logits)
            if d_hidden is not None:
                d_hidden[sl] = grad @ weight
            if d_weight is not None:
                d_weight += (grad.T @ h).float()
        return (d_hidden, None if d_weight is None else d_weight.to(weight.dtype), None, None, None, None)


def linear_logprobs(
    hidden: torch.Tensor,
    weight: torch.Tensor,
    labels: torch.Tensor,
    *,
    temperature: float = 1.0,
    return_entropy: bool = False,
    ignore_index: int = -100,
    backend: Literal["auto", "triton", "torch"] = "auto",
    chunk_tokens: int | None = None,
    chunk_vocab: int = CHUNK_VOCAB,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """Log-probability of each token's label under ``softmax(hidden @ weight.T / temperature)`` (and its
    entropy), without materialising the ``[N, V]`` logits.

    Parameters
    ----------
    hidden
        ``[N, H]`` float32/float16/bfloat16 (float64 for gradient checks).
    weight
        ``[V, H]`` output projection (``lm_head.weight``), same dtype and device.
    labels
        ``[N]`` int64/int32 in ``[0, V)``, or ``ignore_index`` (log-prob 0, entropy 0, no gradient).
    temperature, return_entropy, ignore_index
        As in :func:`verl_ext.ops.logprobs_from_logits`.
    backend
        ``"triton"`` (GPU, or CPU under ``TRITON_INTERPRET=1``), ``"torch"``, or ``"auto"``: Triton for GPU
        tensors when available, otherwise torch.
    chunk_tokens, chunk_vocab
        Chunk sizes (the Triton path chunks tokens only, by default :data:`TRITON_CHUNK_TOKENS`); results
        do not depend on them beyond floating-point summation order.

    Returns
    -------
    fp32 log-probs ``[N]`` (fp64 for fp64 inputs), and the entropy ``[N]`` when asked; differentiable with
    respect to ``hidden`` and ``weight`` (chunks are recomputed in the backward, not stored).
    """
    if hidden.dim() != 2 or weight.dim() != 2 or hidden.shape[1] != weight.shape[1]:
        raise ValueError(f"need hidden [N, H] and weight [V, H], got {tuple(hidden.shape)} and {tuple(weight.shape)}")
    if labels.shape != hidden.shape[:1] or labels.dtype not in (torch.int64, torch.int32):
        raise ValueError(f"labels must be int64/int32 of shape [{hidden.shape[0]}], got {labels.dtype} "
                         f"{tuple(labels.shape)}")
    if hidden.dtype != weight.dtype or hidden.device != weight.device or labels.device != hidden.device:
        raise ValueError("hidden, weight and labels must share a device, and hidden and weight a dtype")
    if hidden.dtype not in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
        raise ValueError(f"hidden must be a floating dtype, got {hidden.dtype}")
    if not (temperature > 0 and temperature != float("inf")):
        raise ValueError(f"temperature must be positive and finite, got {temperature}")
    chosen = resolve_backend(backend, hidden.device)
    if chunk_tokens is None:
        chunk_tokens = TRITON_CHUNK_TOKENS if chosen == "triton" else CHUNK_TOKENS
    if chunk_tokens < 1 or chunk_vocab < 1:
        raise ValueError("chunk sizes must be >= 1")
    if chosen == "triton":
        if hidden.dtype == torch.float64:
            raise ValueError("the Triton backend takes float32, float16 or bfloat16 inputs")
        logprob, entropy = _LinearLogprobsTriton.apply(hidden, weight, labels, float(temperature), int(ignore_index),
                                                       int(chunk_tokens))
    else:
        bad = (labels != ignore_index) & ((labels < 0) | (labels >= weight.shape[0]))
        if bad.any():
            raise ValueError("labels must be in [0, V) or equal to ignore_index")
        logprob, entropy = _LinearLogprobs.apply(hidden, weight, labels, float(temperature), int(ignore_index),
                                                 int(chunk_tokens), int(chunk_vocab))
    return (logprob, entropy) if return_entropy else logprob
