"""Log-probabilities (and entropy) from hidden states and the output projection, without ``[N, V]`` logits.

``logits = hidden @ weight.T / temperature`` only ever exists as one tile of ``chunk_tokens x chunk_vocab``
(sizes from :func:`verl_ext.ops.linear_logprobs_plan.plan_linear_logprobs`, which also predicts the bytes
allocated). Both passes walk vocabulary tiles outside and token chunks inside, one matmul per tile:

* forward: each tile is folded into per-token running statistics (max, sum of ``exp``, sum of ``exp * x``,
  kept in the four output buffers), giving log-prob, entropy, ``lse`` and ``E[x]`` — the two floats per token
  the backward needs;
* backward: each tile is recomputed and overwritten in place with ``d logits = (g_lp * (onehot - p) + g_H *
  p * (E[x] - x)) / temperature``, then ``d weight[tile] = d logits.T @ hidden`` (written once per tile in the
  weight's dtype when all tokens are one chunk, else through an fp32 accumulator of one tile's rows) and
  ``d hidden += d logits @ weight[tile]`` (an fp32 ``N x H`` accumulator for fp16/bf16). Three matmuls per
  tile, as many as the forward's one plus the two a plain backward does; no ``V x H`` fp32 buffer.

Two backends share those loops: ``triton`` reduces each tile with the in-place kernels of
:mod:`verl_ext.ops.linear_logprobs_triton` (GPU, or CPU under ``TRITON_INTERPRET=1``); ``torch`` does it with
torch ops in fp32 (fp64 for fp64 inputs; CPU, and the reference of the tests). Rows whose label is
``ignore_index`` give 0 and no gradient, as in :func:`verl_ext.ops.logprobs_from_logits`.

Both run inside the custom ops ``verl_ext::linear_logprobs`` and ``verl_ext::linear_logprobs_backward``
(fake implementations and registered autograd), so ``torch.compile`` keeps them whole in its graph.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any, Literal

import torch

from verl_ext.ops import linear_logprobs_triton as kernels
from verl_ext.ops.linear_logprobs_plan import LinearLogprobsPlan, accumulator_dtype, plan_linear_logprobs
from verl_ext.ops.logprobs import check_labels, resolved_backend


@functools.cache
def fp32_output_matmul(device_type: str) -> bool:
    """Whether fp16/bf16 matmuls on this device type can add into an fp32 tensor in place
    (``torch.addmm(..., out_dtype=torch.float32, out=acc)``: CUDA builds of torch >= 2.8). Probed once, on
    a 1 x 1 product."""
    a = torch.ones(1, 1, dtype=torch.bfloat16, device=device_type)
    acc = torch.zeros(1, 1, dtype=torch.float32, device=device_type)
    try:
        torch.addmm(acc, a, a, out_dtype=torch.float32, out=acc)
    except (RuntimeError, TypeError):  # no such overload for this device (CPU), or an older torch
        return False
    return bool(acc.item() == 1.0)


def make_plan(hidden: torch.Tensor, weight: torch.Tensor, backend: str, chunk_tokens: int, chunk_vocab: int,
              needs: tuple[bool, bool] | None = None) -> LinearLogprobsPlan:
    """The plan of a call (chunk sizes of 0 are chosen by the plan); ``needs`` = (d hidden, d weight) for
    the backward's, ``None`` for the forward's (which never probes the device: no synchronisation there)."""
    narrow = hidden.dtype in (torch.float16, torch.bfloat16)
    need_hidden, need_weight = needs or (True, True)
    return plan_linear_logprobs(hidden.shape[0], hidden.shape[1], weight.shape[0], hidden.dtype,
                                backend="triton" if backend == "triton" else "torch",
                                chunk_tokens=chunk_tokens or None, chunk_vocab=chunk_vocab or None,
                                need_hidden=need_hidden, need_weight=need_weight,
                                fp32_output_matmul=needs is None or not narrow
                                or fp32_output_matmul(hidden.device.type))


def _tiles(hidden: torch.Tensor, weight: torch.Tensor, plan: LinearLogprobsPlan
           ) -> Iterator[tuple[int, int, torch.Tensor]]:
    """(vocabulary offset, token offset, logits tile) in loop order, every tile in one reused buffer."""
    buffer = torch.empty(plan.chunk_tokens * plan.chunk_vocab, dtype=hidden.dtype, device=hidden.device)
    for v0 in range(0, plan.vocab, plan.chunk_vocab):
        w = weight[v0:v0 + plan.chunk_vocab]
        for t0 in range(0, plan.tokens, plan.chunk_tokens):
            h = hidden[t0:t0 + plan.chunk_tokens]
            tile = buffer[:h.shape[0] * w.shape[0]].view(h.shape[0], w.shape[0])
            torch.mm(h, w.T, out=tile)  # products in the inputs' dtype, as the unfused path computes them
            yield v0, t0, tile


# ------------------------------------------------------------------------------------------ torch tile steps
def _torch_tile_stats(tile: torch.Tensor, labels: torch.Tensor, m: torch.Tensor, s: torch.Tensor, t: torch.Tensor,
                      x_label: torch.Tensor, v0: int, inv_t: float) -> None:
    """The torch twin of :func:`verl_ext.ops.linear_logprobs_triton.tile_stats` (fp32, or fp64 for fp64)."""
    x = tile if tile.dtype == m.dtype else tile.to(m.dtype)
    x.mul_(inv_t)
    m_new = torch.maximum(m, x.amax(-1))
    alpha = (m - m_new).exp_()  # exp(-inf) = 0 before the first tile; logits of finite inputs are finite
    e = (x - m_new[:, None]).exp_()
    s.mul_(alpha).add_(e.sum(-1))
    t.mul_(alpha).add_(e.mul_(x).sum(-1))
    m.copy_(m_new)
    local = labels - v0
    rows = ((local >= 0) & (local < x.shape[1])).nonzero()[:, 0]
    x_label[rows] = x[rows, local[rows]]


def _torch_tile_gradient(tile: torch.Tensor, labels: torch.Tensor, lse: torch.Tensor, mean: torch.Tensor,
                         g_lp: torch.Tensor, g_h: torch.Tensor, v0: int, inv_t: float) -> None:
    """The torch twin of :func:`verl_ext.ops.linear_logprobs_triton.tile_gradient`; ``g_lp`` and ``g_h`` are
    already zero on ignored rows."""
    x = tile if tile.dtype == lse.dtype else tile.to(lse.dtype)
    x.mul_(inv_t)
    p = (x - lse[:, None]).exp_()
    # g_lp * (onehot - p) + g_h * p * (E[x] - x) = p * (g_h * (E[x] - x) - g_lp) + g_lp * onehot
    x.sub_(mean[:, None]).mul_(g_h.neg()[:, None]).sub_(g_lp[:, None]).mul_(p)
    del p
    local = labels - v0
    rows = ((local >= 0) & (local < x.shape[1])).nonzero()[:, 0]
    x[rows, local[rows]] += g_lp[rows]
    x.mul_(inv_t)
    if x is not tile:
        tile.copy_(x)


# ----------------------------------------------------------------------------------------- forward, backward
def _forward(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, temperature: float,
             ignore_index: int, backend: str, plan: LinearLogprobsPlan) -> tuple[torch.Tensor, ...]:
    """(log-prob, entropy, lse, E[x]) ``[N]``; the running statistics live in the output buffers."""
    n, acc, inv_t = hidden.shape[0], accumulator_dtype(hidden.dtype), 1.0 / temperature
    lse = torch.full((n,), float("-inf"), dtype=acc, device=hidden.device)  # running max
    entropy = torch.zeros(n, dtype=acc, device=hidden.device)  # running sum of exp(x - max)
    mean = torch.zeros(n, dtype=acc, device=hidden.device)  # running sum of exp(x - max) * x
    logprob = torch.full((n,), float("nan"), dtype=acc, device=hidden.device)  # the label's logit once seen
    for v0, t0, tile in _tiles(hidden, weight, plan):
        rows = slice(t0, t0 + tile.shape[0])
        if backend == "triton":
            kernels.tile_stats(tile, labels[rows], lse[rows], entropy[rows], mean[rows], logprob[rows], v0, inv_t)
        else:
            _torch_tile_stats(tile, labels[rows], lse[rows], entropy[rows], mean[rows], logprob[rows], v0, inv_t)
    # In place: mean = t / s, lse = max + log s, entropy = lse - mean, log-prob = x[label] - lse. A label
    # outside [0, V) on the Triton path leaves NaN (checking would synchronise the device).
    mean.div_(entropy)
    lse.add_(entropy.log_())
    torch.sub(lse, mean, out=entropy)
    logprob.sub_(lse)
    ignored = labels == ignore_index
    logprob.masked_fill_(ignored, 0.0)
    entropy.masked_fill_(ignored, 0.0)
    return logprob, entropy, lse, mean


def _add_matmul(out: torch.Tensor, a: torch.Tensor, b: torch.Tensor, first: bool, fp32_output: bool) -> None:
    """``out = a @ b`` (first) or ``out += a @ b``, rounded once into ``out``'s dtype."""
    beta = 0.0 if first else 1.0  # beta = 0 ignores out's (uninitialised) contents
    if out.dtype == a.dtype:
        out.addmm_(a, b, beta=beta)
    elif fp32_output:
        torch.addmm(out, a, b, beta=beta, out_dtype=out.dtype, out=out)
    else:
        out.addmm_(a.to(out.dtype), b.to(out.dtype), beta=beta)


def _backward(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, lse: torch.Tensor,
              mean: torch.Tensor, grad_lp: torch.Tensor, grad_h: torch.Tensor, temperature: float, ignore_index: int,
              backend: str, plan: LinearLogprobsPlan, need_hidden: bool, need_weight: bool
              ) -> tuple[torch.Tensor, torch.Tensor]:
    """d hidden and d weight in the inputs' dtype (``[0]`` when not needed); see the module's docstring."""
    n, inv_t, dev = hidden.shape[0], 1.0 / temperature, hidden.device
    narrow = hidden.dtype in (torch.float16, torch.bfloat16)
    fp32_output = narrow and fp32_output_matmul(dev.type)
    d_hidden = torch.empty(hidden.shape if need_hidden else (0,), dtype=hidden.dtype, device=dev)
    d_weight = torch.empty(weight.shape if need_weight else (0,), dtype=weight.dtype, device=dev)
    if n == 0:
        return d_hidden, d_weight.zero_()
    one_tile, one_chunk = plan.vocab_tiles == 1, plan.token_chunks == 1
    acc_hidden = d_hidden
    if need_hidden and narrow and not one_tile:
        acc_hidden = torch.empty(hidden.shape, dtype=torch.float32, device=dev)
    acc_weight = None
    if need_weight and narrow and not one_chunk:
        acc_weight = torch.empty(plan.chunk_vocab, weight.shape[1], dtype=torch.float32, device=dev)
    if backend == "torch":
        keep = labels != ignore_index
        grad_lp = torch.where(keep, grad_lp.to(lse.dtype), 0.0)
        grad_h = torch.where(keep, grad_h.to(lse.dtype), 0.0)
    for v0, t0, tile in _tiles(hidden, weight, plan):
        rows, cols = slice(t0, t0 + tile.shape[0]), slice(v0, v0 + tile.shape[1])
        if backend == "triton":
            kernels.tile_gradient(tile, labels[rows], lse[rows], mean[rows], grad_lp[rows], grad_h[rows], v0, inv_t,
                                  ignore_index)
        else:
            _torch_tile_gradient(tile, labels[rows], lse[rows], mean[rows], grad_lp[rows], grad_h[rows], v0, inv_t)
        if need_weight:
            h = hidden[rows]
            if one_chunk:
                torch.mm(tile.T, h, out=d_weight[cols])
            else:
                into = d_weight[cols] if acc_weight is None else acc_weight[:tile.shape[1]]
                _add_matmul(into, tile.T, h, t0 == 0, fp32_output)
                if acc_weight is not None and t0 + tile.shape[0] >= n:
                    d_weight[cols].copy_(into)
        if need_hidden:
            if one_tile:
                torch.mm(tile, weight[cols], out=d_hidden[rows])
            else:
                _add_matmul(acc_hidden[rows], tile, weight[cols], v0 == 0, fp32_output)
    if acc_hidden is not d_hidden:
        d_hidden.copy_(acc_hidden)
    return d_hidden, d_weight


# ------------------------------------------------------------------------------- custom ops + autograd
# ``backend`` reaches the ops already resolved ("triton" or "torch"), chunk sizes as given (0: the plan's).
@torch.library.custom_op("verl_ext::linear_logprobs", mutates_args=())
def _linear_logprobs_op(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, temperature: float,
                        ignore_index: int, backend: str, chunk_tokens: int, chunk_vocab: int
                        ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(log-prob, entropy, lse, E[x]) ``[N]`` each; the last two are what the backward needs."""
    if backend != "triton":
        check_labels(labels, weight.shape[0], ignore_index)
    plan = make_plan(hidden, weight, backend, chunk_tokens, chunk_vocab)
    lp, ent, lse, mean = _forward(hidden, weight, labels.contiguous(), temperature, ignore_index, backend, plan)
    return lp, ent, lse, mean


@_linear_logprobs_op.register_fake
def _linear_logprobs_fake(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, temperature: float,
                          ignore_index: int, backend: str, chunk_tokens: int, chunk_vocab: int
                          ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    dtype = accumulator_dtype(hidden.dtype)

    def row() -> torch.Tensor:
        return hidden.new_empty(hidden.shape[:1], dtype=dtype)

    return row(), row(), row(), row()


@torch.library.custom_op("verl_ext::linear_logprobs_backward", mutates_args=())
def _linear_logprobs_backward_op(hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor, lse: torch.Tensor,
                                 mean: torch.Tensor, grad_logprob: torch.Tensor, grad_entropy: torch.Tensor,
                                 temperature: float, ignore_index: int, backend: str, chunk_tokens: int,
                                 chunk_vocab: int, need_hidden: bool, need_weight: bool
                                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """(d hidden, d weight) in the inputs' dtype; one not asked for (``need_*`` false) is an empty ``[0]``.
    The upstream gradients may have any stride (a scalar's broadcast is read in place)."""
    plan = make_plan(hidden, weight, backend, chunk_tokens, chunk_vocab, (need_hidden, need_weight))
    return _backward(hidden, weight, labels.contiguous(), lse, mean, grad_logprob, grad_entropy, temperature,
                     ignore_index, backend, plan, need_hidden, need_weight)


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
    # No zero-filled [N] gradients for outputs nobody used (lse and E[x] always, entropy often).
    ctx.set_materialize_grads(False)
    ctx.save_for_backward(hidden, weight, labels, lse, mean)
    ctx.args = tuple(args)


def _backward_fn(ctx: Any, grad_lp: torch.Tensor | None, grad_h: torch.Tensor | None, _lse: Any, _mean: Any
                 ) -> tuple[Any, ...]:
    hidden, weight, labels, lse, mean = ctx.saved_tensors
    need_hidden, need_weight = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
    d_hidden = d_weight = None
    if (need_hidden or need_weight) and (grad_lp is not None or grad_h is not None):
        zero = lse.new_zeros(()).expand(lse.shape)  # stride 0: no [N] buffer
        d_hidden, d_weight = torch.ops.verl_ext.linear_logprobs_backward(
            hidden, weight, labels, lse, mean, zero if grad_lp is None else grad_lp,
            zero if grad_h is None else grad_h, *ctx.args, need_hidden, need_weight)
    return (d_hidden if need_hidden else None, d_weight if need_weight else None, *(None,) * 6)


_linear_logprobs_op.register_autograd(_backward_fn, setup_context=_setup_context)


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
    chunk_vocab: int | None = None,
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
        Tile sizes; ``None`` lets :func:`verl_ext.ops.linear_logprobs_plan.plan_linear_logprobs` choose them
        from the sizes. Results do not depend on them beyond floating-point summation order.

    Returns
    -------
    fp32 log-probs ``[N]`` (fp64 for fp64 inputs), and the entropy ``[N]`` when asked; differentiable with
    respect to ``hidden`` and ``weight`` (tiles are recomputed in the backward, not stored).
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
    if (chunk_tokens is not None and chunk_tokens < 1) or (chunk_vocab is not None and chunk_vocab < 1):
        raise ValueError("chunk sizes must be >= 1")
    chosen = resolved_backend(backend, hidden.device)
    if chosen == "triton" and hidden.dtype == torch.float64:
        raise ValueError("the Triton backend takes float32, float16 or bfloat16 inputs")
    logprob, entropy, _, _ = torch.ops.verl_ext.linear_logprobs(hidden, weight, labels, float(temperature),
                                                                int(ignore_index), chosen, int(chunk_tokens or 0),
                                                                int(chunk_vocab or 0))
    return (logprob, entropy) if return_entropy else logprob
