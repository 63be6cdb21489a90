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

Both paths run inside the custom ops ``verl_ext::linear_logprobs`` and ``verl_ext::linear_logprobs_backward``
(fake implementations and registered autograd), so ``torch.compile`` keeps them whole in its graph.
"""

from __future__ import annotations

from typing import Any, Literal

import torch

from verl_ext.ops.logprobs import check_labels, resolved_backend, triton_backward, triton_forward

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


def _torch_backward(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, lse: torch.Tensor,
                    mean: torch.Tensor, grad_lp: torch.Tensor, grad_h: torch.Tensor, inv_t: float, ignore_index: int,
                    chunk_tokens: int, chunk_vocab: int, need_hidden: bool, need_weight: bool
                    ) -> tuple[torch.Tensor, torch.Tensor]:
    """d hidden and d weight, recomputing each ``chunk_tokens x chunk_vocab`` chunk of logits, accumulated
    in fp32 (fp64 for fp64 inputs); a gradient not asked for comes back as an empty tensor."""
    acc = lse.dtype
    keep = labels != ignore_index
    g_lp = torch.where(keep, grad_lp.to(acc), 0.0)
    g_h = torch.where(keep, grad_h.to(acc), 0.0)
    d_hidden = torch.zeros(hidden.shape if need_hidden else (0,), dtype=acc, device=hidden.device)
    d_weight = torch.zeros(weight.shape if need_weight else (0,), dtype=acc, device=weight.device)
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
            if need_hidden:
                d_hidden[sl] += d @ w.to(acc)
            if need_weight:
                d_weight[v0:v0 + chunk_vocab] += d.T @ h.to(acc)
    return d_hidden.to(hidden.dtype), d_weight.to(weight.dtype)


def _triton_forward(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, temperature: float,
                    ignore_index: int, chunk_tokens: int) -> tuple[torch.Tensor, ...]:
    """(log-prob, entropy, lse, E[x]) fp32 ``[N]``: one matmul per token chunk, reduced by the fused kernel."""
    labels = labels.contiguous()
    outs = [triton_forward(hidden[t0:t0 + chunk_tokens] @ weight.T, labels[t0:t0 + chunk_tokens], temperature,
                           ignore_index) for t0 in range(0, hidden.shape[0], chunk_tokens)]
    if not outs:
        empty = hidden.new_zeros(0, dtype=torch.float32)
        outs = [(empty, empty, empty, empty)]
    return tuple(torch.cat([o[i] for o in outs]) for i in range(4))


def _triton_backward(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, lse: torch.Tensor,
                     mean: torch.Tensor, grad_lp: torch.Tensor, grad_h: torch.Tensor, temperature: float,
                     ignore_index: int, chunk_tokens: int, need_hidden: bool, need_weight: bool
                     ) -> tuple[torch.Tensor, torch.Tensor]:
    """Per token chunk: recompute the logits, overwrite them in place with their gradient, two matmuls."""
    labels = labels.contiguous()
    g_lp = grad_lp.float().contiguous()
    g_h = grad_h.float().contiguous()
    d_hidden = torch.empty(hidden.shape if need_hidden else (0,), dtype=hidden.dtype, device=hidden.device)
    d_weight = torch.zeros(weight.shape if need_weight else (0,), dtype=torch.float32, device=weight.device)
    for t0 in range(0, hidden.shape[0], chunk_tokens):
        sl = slice(t0, t0 + chunk_tokens)
        h = hidden[sl]
        logits = h @ weight.T
        grad = triton_backward(logits, labels[sl], lse[sl], mean[sl], g_lp[sl], g_h[sl], temperature,
                               ignore_index, out=logits)
        if need_hidden:
            d_hidden[sl] = grad @ weight
        if need_weight:
            d_weight += (grad.T @ h).float()
    return d_hidden, d_weight.to(weight.dtype)


# ------------------------------------------------------------------------------- custom ops + autograd
# ``backend`` reaches the ops already resolved ("triton" or "torch"); see verl_ext.ops.logprobs for what
# composes with torch.compile and CUDA graphs.
@torch.library.custom_op("verl_ext::linear_logprobs", mutates_args=())
def _linear_logprobs_op(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, temperature: float,
                        ignore_index: int, backend: str, chunk_tokens: int, chunk_vocab: int
                        ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(log-prob, entropy, lse, E[x]) ``[N]`` each; the last two are what the backward needs."""
    if backend == "triton":
        lp, ent, lse, mean = _triton_forward(hidden, weight, labels, temperature, ignore_index, chunk_tokens)
        return lp, ent, lse, mean
    check_labels(labels, weight.shape[0], ignore_index)
    lp, ent, lse, mean = _stats(hidden, weight, labels, 1.0 / temperature, ignore_index, chunk_tokens, chunk_vocab)
    return lp, ent, lse, mean


@_linear_logprobs_op.register_fake
def _linear_logprobs_fake(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, temperature: float,
                          ignore_index: int, backend: str, chunk_tokens: int, chunk_vocab: int
                          ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    dtype = torch.float64 if backend == "torch" and hidden.dtype == torch.float64 else torch.float32

    def row() -> torch.Tensor:
        return hidden.new_empty(hidden.shape[:1], dtype=dtype)

    return row(), row(), row(), row()


@torch.library.custom_op("verl_ext::linear_logprobs_backward", mutates_args=())
def _linear_logprobs_backward_op(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, lse: torch.Tensor,
                                 mean: torch.Tensor, grad_logprob: torch.Tensor, grad_entropy: torch.Tensor,
                                 temperature: float, ignore_index: int, backend: str, chunk_tokens: int,
                                 chunk_vocab: int, need_hidden: bool, need_weight: bool
                                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """(d hidden, d weight) in the inputs' dtype; one not asked for (``need_*`` false) is an empty ``[0]``."""
    if backend == "triton":
        return _triton_backward(hidden, weight, labels, lse, mean, grad_logprob, grad_entropy, temperature,
                                ignore_index, chunk_tokens, need_hidden, need_weight)
    return _torch_backward(hidden, weight, labels, lse, mean, grad_logprob, grad_entropy, 1.0 / temperature,
                           ignore_index, chunk_tokens, chunk_vocab, need_hidden, need_weight)


@_linear_logprobs_backward_op.register_fake
def _linear_logprobs_backward_fake(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor,
                                   lse: torch.Tensor, mean: torch.Tensor, grad_logprob: torch.Tensor,
                                   grad_entropy: torch.Tensor, temperature: float, ignore_index: int, backend: str,
                                   chunk_tokens: int, chunk_vocab: int, need_hidden: bool, need_weight: bool
                                   ) -> tuple[torch.Tensor, torch.Tensor]:
    return (hidden.new_empty(hidden.shape if need_hidden else (0,)),
            weight.new_empty(weight.shape if need_weight else (0,)))


def _setup_context(ctx: Any, inputs: tuple[Any, ...], output: tuple[torch.Tensor, ...]) -> None:
    hidden, weight, labels, *args = inputs
    _, _, lse, mean = output
    ctx.mark_non_differentiable(lse, mean)
    ctx.save_for_backward(hidden, weight, labels, lse, mean)
    ctx.args = tuple(args)


def _backward(ctx: Any, grad_lp: torch.Tensor, grad_h: torch.Tensor, _lse: Any, _mean: Any) -> tuple[Any, ...]:
    hidden, weight, labels, lse, mean = ctx.saved_tensors
    need_hidden, need_weight = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
    d_hidden = d_weight = None
    if need_hidden or need_weight:
        d_hidden, d_weight = torch.ops.verl_ext.linear_logprobs_backward(
            hidden, weight, labels, lse, mean, grad_lp, grad_h, *ctx.args, need_hidden, need_weight)
    return (d_hidden if need_hidden else None, d_weight if need_weight else None, *(None,) * 6)


_linear_logprobs_op.register_autograd(_backward, setup_context=_setup_context)


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
    chosen = resolved_backend(backend, hidden.device)
    if chunk_tokens is None:
        chunk_tokens = TRITON_CHUNK_TOKENS if chosen == "triton" else CHUNK_TOKENS
    if chunk_tokens < 1 or chunk_vocab < 1:
        raise ValueError("chunk sizes must be >= 1")
    if chosen == "triton" and hidden.dtype == torch.float64:
        raise ValueError("the Triton backend takes float32, float16 or bfloat16 inputs")
    logprob, entropy, _, _ = torch.ops.verl_ext.linear_logprobs(hidden, weight, labels, float(temperature),
                                                                int(ignore_index), chosen, int(chunk_tokens),
                                                                int(chunk_vocab))
    return (logprob, entropy) if return_entropy else logprob
