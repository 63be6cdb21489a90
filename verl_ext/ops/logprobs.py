"""Log-probabilities of labels (and entropy) from logits ``[N, V]``, fused, with autograd.

For each row ``x = logits / temperature`` (computed in fp32, never as an fp32 copy of the logits):
``lse = log sum exp x``, ``logprob = x[label] - lse``, ``entropy = lse - sum softmax(x) * x``.
The forward keeps two floats per row (``lse`` and ``E[x] = sum softmax(x) * x``); the backward makes one
pass over the logits and writes ``d logits = (g_lp * (onehot - p) + g_H * p * (E[x] - x)) / temperature``.
Rows whose label is ``ignore_index`` give log-prob 0 and entropy 0 and get no gradient.

Layout (one file per op): Triton kernels -> launchers -> torch path -> custom ops with autograd. The
torch path (chunked over rows, so at most ``chunk_rows x V`` fp32 temporaries in the forward and in the
backward) serves CPUs. Both paths run inside the custom ops ``verl_ext::logprobs_from_logits`` and
``verl_ext::logprobs_from_logits_backward`` (``torch.library.custom_op``, with fake implementations and
registered autograd), so ``torch.compile`` keeps them whole in its graph; gradients are first order only.
"""

from __future__ import annotations

from typing import Any, Literal, overload

import torch

from verl_ext.ops._backend import resolve_backend, triton_available, warps_for

Backend = Literal["auto", "triton", "torch"]

#: Vocabulary entries a Triton program handles per step (a power of two; 4096 fp32 = 16 KiB of registers
#: across the warps, the usual sweet spot for a streaming row reduction).
BLOCK_V = 4096
#: Rows per chunk of the torch path: bounds its fp32 temporaries to TORCH_CHUNK_ROWS x V.
TORCH_CHUNK_ROWS = 1024

if triton_available():
    import triton
    import triton.language as tl

    @triton.jit
    def _forward_kernel(logits_ptr, labels_ptr, logprob_ptr, entropy_ptr, lse_ptr, mean_ptr, stride_row, vocab,
                        inv_temperature, ignore_index, BLOCK: tl.constexpr, NUM_BLOCKS: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        base = logits_ptr + row * stride_row
        m = tl.full((), float("-inf"), tl.float32)
        s = tl.zeros((), tl.float32)
        t = tl.zeros((), tl.float32)
        # The block count is a compile-time constant (one compilation per vocabulary size, which a model
        # fixes); Triton's interpreter cannot loop over a runtime bound with the NumPy 2 in our stack.
        for b in range(NUM_BLOCKS):
            cols = b * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(base + cols, mask=cols < vocab, other=float("-inf")).to(tl.float32) * inv_temperature
            m_new = tl.maximum(m, tl.max(x, 0))
            # exp(-inf - -inf) would be nan: nothing finite seen yet means nothing to rescale.
            alpha = tl.where(m_new == float("-inf"), 0.0, tl.exp(m - m_new))
            finite_x = tl.where(x == float("-inf"), 0.0, x)  # p = 0 there: counts 0, and no 0 * inf
            e = tl.where(x == float("-inf"), 0.0, tl.exp(x - m_new))
            s = s * alpha + tl.sum(e, 0)
            t = t * alpha + tl.sum(e * finite_x, 0)
            m = m_new
        lse = m + tl.log(s)
        mean = t / s
        label = tl.load(labels_ptr + row)
        ignored = label == ignore_index
        invalid = (label < 0) | (label >= vocab)
        safe = tl.where(invalid, 0, label)
        x_label = tl.load(base + safe).to(tl.float32) * inv_temperature
        logprob = tl.where(invalid, float("nan"), x_label - lse)
        tl.store(logprob_ptr + row, tl.where(ignored, 0.0, logprob))
        tl.store(entropy_ptr + row, tl.where(ignored, 0.0, lse - mean))
        tl.store(lse_ptr + row, lse)
        tl.store(mean_ptr + row, mean)

    @triton.jit
    def _backward_kernel(logits_ptr, labels_ptr, lse_ptr, mean_ptr, grad_lp_ptr, grad_h_ptr, grad_ptr, stride_row,
                         grad_stride_row, vocab, inv_temperature, ignore_index, BLOCK: tl.constexpr,
                         NUM_BLOCKS: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        base = logits_ptr + row * stride_row
        out = grad_ptr + row * vocab  # d logits is written contiguous
        label = tl.load(labels_ptr + row)
        ignored = label == ignore_index
        lse = tl.load(lse_ptr + row)
        mean = tl.load(mean_ptr + row)
        # grad_stride_row: the row stride of both upstream gradients (0 when broadcast from a scalar).
        g_lp = tl.where(ignored, 0.0, tl.load(grad_lp_ptr + row * grad_stride_row))
        g_h = tl.where(ignored, 0.0, tl.load(grad_h_ptr + row * grad_stride_row))
        # The block count is a compile-time constant (one compilation per vocabulary size, which a model
        # fixes); Triton's interpreter cannot loop over a runtime bound with the NumPy 2 in our stack.
        for b in range(NUM_BLOCKS):
            cols = b * BLOCK + tl.arange(0, BLOCK)
            inside = cols < vocab
            x = tl.load(base + cols, mask=inside, other=float("-inf")).to(tl.float32) * inv_temperature
            p = tl.where(x == float("-inf"), 0.0, tl.exp(x - lse))
            finite_x = tl.where(x == float("-inf"), 0.0, x)
            onehot = tl.where(cols == label, 1.0, 0.0)
            d = g_lp * (onehot - p) + g_h * p * (mean - finite_x)
            tl.store(out + cols, (d * inv_temperature).to(grad_ptr.dtype.element_ty), mask=inside)


def _blocks(vocab: int) -> dict[str, int]:
    block = min(BLOCK_V, triton.next_power_of_2(vocab))
    return {"BLOCK": block, "NUM_BLOCKS": triton.cdiv(vocab, block), "num_warps": warps_for(block)}


def triton_forward(logits: torch.Tensor, labels: torch.Tensor, temperature: float, ignore_index: int
                   ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Launch the forward kernel: (log-prob, entropy, lse, E[x]), fp32 ``[N]`` each. ``logits`` must have a
    dense last dimension."""
    n, vocab = logits.shape
    logprob, entropy, lse, mean = (torch.empty(n, dtype=torch.float32, device=logits.device) for _ in range(4))
    if n:
        _forward_kernel[(n,)](logits, labels, logprob, entropy, lse, mean, logits.stride(0), vocab,
                              1.0 / temperature, ignore_index, **_blocks(vocab))
    return logprob, entropy, lse, mean


def triton_backward(logits: torch.Tensor, labels: torch.Tensor, lse: torch.Tensor, mean: torch.Tensor,
                    grad_lp: torch.Tensor, grad_h: torch.Tensor, temperature: float, ignore_index: int
                    ) -> torch.Tensor:
    """Launch the backward kernel: d logits, contiguous, in the logits' dtype. The fp32 upstream gradients
    are read where they lie when they share a row stride (two broadcast scalars, as ``lp.sum() + ent.sum()``
    gives, cost no memory); otherwise they are made contiguous first."""
    n, vocab = logits.shape
    if grad_lp.stride(0) != grad_h.stride(0):
        grad_lp, grad_h = grad_lp.contiguous(), grad_h.contiguous()
    grad = torch.empty((n, vocab), dtype=logits.dtype, device=logits.device)
    if n:
        _backward_kernel[(n,)](logits, labels, lse, mean, grad_lp, grad_h, grad, logits.stride(0), grad_lp.stride(0),
                               vocab, 1.0 / temperature, ignore_index, **_blocks(vocab))
    return grad


def _check(logits: torch.Tensor, labels: torch.Tensor, temperature: float) -> None:
    if logits.dim() != 2:
        raise ValueError(f"logits must be [N, V], got shape {tuple(logits.shape)}")
    if labels.shape != logits.shape[:1]:
        raise ValueError(f"labels must be [N] = [{logits.shape[0]}], got shape {tuple(labels.shape)}")
    if logits.dtype not in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
        raise ValueError(f"logits must be float32, float16 or bfloat16, got {logits.dtype}")
    if labels.dtype not in (torch.int64, torch.int32):
        raise ValueError(f"labels must be int64 or int32, got {labels.dtype}")
    if not (temperature > 0 and temperature == temperature and temperature != float("inf")):
        raise ValueError(f"temperature must be positive and finite, got {temperature}")
    if labels.device != logits.device:
        raise ValueError(f"labels are on {labels.device}, logits on {logits.device}")


@torch.compiler.assume_constant_result
def resolved_backend(backend: str, device: torch.device) -> str:
    """:func:`resolve_backend`, taken as a constant by ``torch.compile`` (it imports modules and reads the
    environment, which Dynamo would not trace: a graph break)."""
    return resolve_backend(backend, device)


def check_labels(labels: torch.Tensor, vocab: int, ignore_index: int) -> None:
    """Raise for a label outside ``[0, V)`` that is not ``ignore_index`` (reads a flag back to the host)."""
    bad = (labels != ignore_index) & ((labels < 0) | (labels >= vocab))
    if bad.any():
        raise ValueError("labels must be in [0, V) or equal to ignore_index")


def _accumulator(dtype: torch.dtype) -> torch.dtype:
    return torch.float64 if dtype == torch.float64 else torch.float32


def _torch_forward(logits: torch.Tensor, labels: torch.Tensor, temperature: float, ignore_index: int,
                   chunk_rows: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(log-prob, entropy, lse, E[x]) in fp32 (fp64 for fp64 logits), ``chunk_rows`` rows at a time."""
    n = logits.shape[0]
    acc = _accumulator(logits.dtype)
    logprob, entropy, lse, mean = (torch.empty(n, dtype=acc, device=logits.device) for _ in range(4))
    ignored = labels == ignore_index
    safe = torch.where(ignored, torch.zeros_like(labels), labels).long()
    for r0 in range(0, n, chunk_rows):
        rows = slice(r0, r0 + chunk_rows)
        x = logits[rows].to(acc) / temperature
        lse_c = torch.logsumexp(x, dim=-1)
        # E[x] with -inf logits (p = 0) counted as 0, not as 0 * inf.
        finite_x = torch.where(torch.isfinite(x), x, torch.zeros_like(x))
        mean_c = (torch.softmax(x, dim=-1) * finite_x).sum(-1)
        lse[rows], mean[rows] = lse_c, mean_c
        logprob[rows] = x.gather(-1, safe[rows, None])[:, 0] - lse_c
        entropy[rows] = lse_c - mean_c
    zero = torch.zeros_like(lse)
    return torch.where(ignored, zero, logprob), torch.where(ignored, zero, entropy), lse, mean


def _torch_backward(logits: torch.Tensor, labels: torch.Tensor, lse: torch.Tensor, mean: torch.Tensor,
                    grad_lp: torch.Tensor, grad_h: torch.Tensor, temperature: float, ignore_index: int,
                    chunk_rows: int) -> torch.Tensor:
    """d logits of the torch path, in the logits' dtype, with ``chunk_rows x V`` temporaries."""
    acc = lse.dtype
    keep = labels != ignore_index
    g_lp = torch.where(keep, grad_lp.to(acc), 0.0)
    g_h = torch.where(keep, grad_h.to(acc), 0.0)
    grad = torch.empty(logits.shape, dtype=logits.dtype, device=logits.device)
    cols = torch.arange(logits.shape[1], device=logits.device)
    for r0 in range(0, logits.shape[0], chunk_rows):
        rows = slice(r0, r0 + chunk_rows)
        x = logits[rows].to(acc) / temperature
        finite = torch.isfinite(x)
        p = torch.where(finite, torch.exp(x - lse[rows, None]), 0.0)
        finite_x = torch.where(finite, x, 0.0)
        onehot = (cols[None, :] == labels[rows, None]).to(acc)
        d = g_lp[rows, None] * (onehot - p) + g_h[rows, None] * p * (mean[rows, None] - finite_x)
        grad[rows] = d / temperature
    return grad


# ------------------------------------------------------------------------------- custom ops + autograd
# ``backend`` reaches the ops already resolved ("triton" or "torch"). The ops are pure functions of their
# inputs, so torch.compile treats them as opaque nodes (no graph break) and, on the Triton path, CUDA graphs
# can capture them; the torch path reads a label check back to the host (not capturable).
@torch.library.custom_op("verl_ext::logprobs_from_logits", mutates_args=())
def _logprobs_op(logits: torch.Tensor, labels: torch.Tensor, temperature: float, ignore_index: int, backend: str,
                 chunk_rows: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(log-prob, entropy, lse, E[x]) ``[N]`` each; the last two are what the backward needs."""
    if backend == "triton":
        return triton_forward(logits if logits.stride(-1) == 1 else logits.contiguous(), labels.contiguous(),
                              temperature, ignore_index)
    check_labels(labels, logits.shape[1], ignore_index)
    return _torch_forward(logits, labels, temperature, ignore_index, chunk_rows)


@_logprobs_op.register_fake
def _logprobs_fake(logits: torch.Tensor, labels: torch.Tensor, temperature: float, ignore_index: int, backend: str,
                   chunk_rows: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    dtype = torch.float32 if backend == "triton" else _accumulator(logits.dtype)

    def row() -> torch.Tensor:
        return logits.new_empty(logits.shape[:1], dtype=dtype)

    return row(), row(), row(), row()


@torch.library.custom_op("verl_ext::logprobs_from_logits_backward", mutates_args=())
def _logprobs_backward_op(logits: torch.Tensor, labels: torch.Tensor, lse: torch.Tensor, mean: torch.Tensor,
                          grad_logprob: torch.Tensor, grad_entropy: torch.Tensor, temperature: float,
                          ignore_index: int, backend: str, chunk_rows: int) -> torch.Tensor:
    """d logits (contiguous, in the logits' dtype) for upstream gradients of log-prob and entropy."""
    if backend == "triton":
        return triton_backward(logits if logits.stride(-1) == 1 else logits.contiguous(), labels.contiguous(),
                               lse, mean, grad_logprob.float(), grad_entropy.float(), temperature, ignore_index)
    return _torch_backward(logits, labels, lse, mean, grad_logprob, grad_entropy, temperature, ignore_index,
                           chunk_rows)


@_logprobs_backward_op.register_fake
def _logprobs_backward_fake(logits: torch.Tensor, labels: torch.Tensor, lse: torch.Tensor, mean: torch.Tensor,
                            grad_logprob: torch.Tensor, grad_entropy: torch.Tensor, temperature: float,
                            ignore_index: int, backend: str, chunk_rows: int) -> torch.Tensor:
    return logits.new_empty(logits.shape)


def _setup_context(ctx: Any, inputs: tuple[Any, ...], output: tuple[torch.Tensor, ...]) -> None:
    logits, labels, temperature, ignore_index, backend, chunk_rows = inputs
    _, _, lse, mean = output
    ctx.mark_non_differentiable(lse, mean)
    # No zero-filled [N] gradients for outputs nobody used (lse and E[x] always, entropy often).
    ctx.set_materialize_grads(False)
    ctx.save_for_backward(logits, labels, lse, mean)
    ctx.args = (temperature, ignore_index, backend, chunk_rows)


def _backward(ctx: Any, grad_lp: torch.Tensor | None, grad_h: torch.Tensor | None, _lse: Any, _mean: Any
              ) -> tuple[Any, ...]:
    logits, labels, lse, mean = ctx.saved_tensors
    grad = None
    # A gradient autograd left out is a zero broadcast like the other one: no [N] buffer when the other is
    # broadcast too (one when it is a real [N] tensor: the kernel reads both with one stride).
    if grad_lp is None and grad_h is not None:
        grad_lp = grad_h.new_zeros(()).expand(grad_h.shape)
    elif grad_h is None and grad_lp is not None:
        grad_h = grad_lp.new_zeros(()).expand(grad_lp.shape)
    if ctx.needs_input_grad[0] and grad_lp is not None and grad_h is not None:
        grad = torch.ops.verl_ext.logprobs_from_logits_backward(logits, labels, lse, mean, grad_lp, grad_h,
                                                                 *ctx.args)
    return grad, None, None, None, None, None


_logprobs_op.register_autograd(_backward, setup_context=_setup_context)


@overload
def logprobs_from_logits(logits: torch.Tensor, labels: torch.Tensor, *, temperature: float = ...,
                         return_entropy: Literal[False] = ..., ignore_index: int = ..., backend: Backend = ...,
                         chunk_rows: int = ...) -> torch.Tensor: ...
@overload
def logprobs_from_logits(logits: torch.Tensor, labels: torch.Tensor, *, temperature: float = ...,
                         return_entropy: Literal[True], ignore_index: int = ..., backend: Backend = ...,
                         chunk_rows: int = ...) -> tuple[torch.Tensor, torch.Tensor]: ...
def logprobs_from_logits(
    logits: torch.Tensor,
    labels: torch.Tensor,
    *,
    temperature: float = 1.0,
    return_entropy: bool = False,
    ignore_index: int = -100,
    backend: Backend = "auto",
    chunk_rows: int = TORCH_CHUNK_ROWS,
) -> torch.Tensor | tuple[torch.Tensor, torch.Tensor]:
    """Log-probability of each row's label under ``softmax(logits / temperature)``, optionally with the
    row's entropy.

    Parameters
    ----------
    logits
        ``[N, V]`` float32, float16 or bfloat16 (any row stride; the last dimension must be dense for the
        Triton path or it is copied).
    labels
        ``[N]`` int64/int32 indices into ``V``; rows equal to ``ignore_index`` give 0 and no gradient. An
        index outside ``[0, V)`` raises on the torch path and gives NaN on the Triton path (checking
        there would cost a device synchronisation per call).
    temperature
        Positive divisor applied to the logits.
    return_entropy
        Also return the entropy ``[N]``.
    backend
        ``"triton"`` (GPU, or CPU under ``TRITON_INTERPRET=1``), ``"torch"`` (chunked reference), or
        ``"auto"``: Triton for GPU tensors when available, otherwise torch.
    chunk_rows
        Rows per chunk of the torch path.

    Returns
    -------
    fp32 log-probs ``[N]`` (fp64 for fp64 logits on the torch path), and the entropy ``[N]`` when asked.
    Both are differentiable with respect to ``logits``.
    """
    _check(logits, labels, temperature)
    if chunk_rows < 1:
        raise ValueError(f"chunk_rows must be >= 1, got {chunk_rows}")
    chosen = resolved_backend(backend, logits.device)
    if chosen == "triton" and logits.dtype == torch.float64:
        raise ValueError("the Triton backend takes float32, float16 or bfloat16 logits")
    logprob, entropy, _, _ = torch.ops.verl_ext.logprobs_from_logits(logits, labels, float(temperature),
                                                                     int(ignore_index), chosen, int(chunk_rows))
    return (logprob, entropy) if return_entropy else logprob
