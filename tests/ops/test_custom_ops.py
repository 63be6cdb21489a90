"""The ops as torch custom ops (``torch.library.custom_op`` under ``verl_ext::``): registration checked by
``torch.library.opcheck`` (schema, fake tensors, autograd registration, AOT dispatch), output metadata under
fake and meta tensors and symbolic sizes, ``torch.compile(fullgraph=True)`` on CPU equal to eager (values
and gradients), and the Triton path (interpreted on CPU) through the ops equal to the torch path."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
import torch
from torch._dynamo.testing import AotEagerAndRecordGraphs
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx

from verl_ext.ops import kept_threshold, linear_logprobs, logprobs_from_logits, sample
from verl_ext.ops.sampling import sample_processed, sample_with_threshold

OPS = torch.ops.verl_ext
#: The Triton path takes CPU tensors only in Triton's interpreter (tests/ops/conftest.py sets it on CPU hosts;
#: the GPU suite runs compiled, TRITON_INTERPRET=0): the CPU cases below use it only there.
CPU_BACKENDS = ("torch", "triton") if os.environ.get("TRITON_INTERPRET") == "1" else ("torch",)
IGNORE = -100
SCHEMAS = {
    "logprobs_from_logits": "verl_ext::logprobs_from_logits(Tensor logits, Tensor labels, float temperature, "
                            "SymInt ignore_index, str backend, SymInt chunk_rows) -> (Tensor, Tensor, Tensor, Tensor)",
    "logprobs_from_logits_backward": "verl_ext::logprobs_from_logits_backward(Tensor logits, Tensor labels, "
                                     "Tensor lse, Tensor mean, Tensor grad_logprob, Tensor grad_entropy, "
                                     "float temperature, SymInt ignore_index, str backend, SymInt chunk_rows) "
                                     "-> Tensor",
    "linear_logprobs": "verl_ext::linear_logprobs(Tensor hidden, Tensor weight, Tensor labels, float temperature, "
                       "SymInt ignore_index, str backend, SymInt chunk_tokens, SymInt chunk_vocab) "
                       "-> (Tensor, Tensor, Tensor, Tensor)",
    "linear_logprobs_backward": "verl_ext::linear_logprobs_backward(Tensor hidden, Tensor weight, Tensor labels, "
                                "Tensor lse, Tensor mean, Tensor grad_logprob, Tensor grad_entropy, "
                                "float temperature, SymInt ignore_index, str backend, SymInt chunk_tokens, "
                                "SymInt chunk_vocab, bool need_hidden, bool need_weight) -> (Tensor, Tensor)",
    "sample": "verl_ext::sample(Tensor logits, Tensor inv_temperature, Tensor top_k, Tensor top_p, Tensor min_p, "
              "Tensor uniform, str backend, bool draw) -> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)",
}


def _randn(*shape: int, seed: int, dtype: torch.dtype = torch.float32, scale: float = 2.0) -> torch.Tensor:
    return (torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64) * scale).to(dtype)


LABELS = torch.tensor([1, IGNORE, 10, 0, 4])


def test_schemas() -> None:
    for name, schema in SCHEMAS.items():
        assert str(getattr(OPS, name).default._schema) == schema


def _logprobs_cases() -> list[Any]:
    wide = _randn(5, 14, seed=1)
    wide[2, 5] = float("-inf")
    cases = []
    for name, logits, backend in [("fp32", _randn(5, 11, seed=0), "torch"),
                                  ("fp64 strided -inf", wide[:, 2:13].double(), "torch"),
                                  ("bf16", _randn(5, 11, seed=2, dtype=torch.bfloat16), "torch"),
                                  ("fp32", _randn(5, 11, seed=0), "triton"),
                                  ("bf16 strided -inf", wide[:, 2:13].bfloat16(), "triton")]:
        if backend not in CPU_BACKENDS:
            continue
        x = logits.detach().requires_grad_(True)
        cases.append(pytest.param(OPS.logprobs_from_logits, (x, LABELS, 0.7, IGNORE, backend, 2),
                                  id=f"logprobs-{backend}-{name}"))
        lp, _, lse, mean = OPS.logprobs_from_logits(logits, LABELS, 0.7, IGNORE, backend, 2)
        grads = (_randn(5, seed=3, dtype=lp.dtype), _randn(5, seed=4, dtype=lp.dtype))
        cases.append(pytest.param(OPS.logprobs_from_logits_backward,
                                  (logits, LABELS, lse, mean, *grads, 0.7, IGNORE, backend, 2),
                                  id=f"logprobs_backward-{backend}-{name}"))
    return cases


def _linear_cases() -> list[Any]:
    cases = []
    for name, dtype, backend in [("fp32", torch.float32, "torch"), ("fp64", torch.float64, "torch"),
                                 ("fp32", torch.float32, "triton")]:
        if backend not in CPU_BACKENDS:
            continue
        hidden = _randn(5, 4, seed=5, dtype=dtype).requires_grad_(True)
        weight = _randn(11, 4, seed=6, dtype=dtype).requires_grad_(True)
        args = (0.8, IGNORE, backend, 2, 3)
        cases.append(pytest.param(OPS.linear_logprobs, (hidden, weight, LABELS, *args), id=f"linear-{backend}-{name}"))
        _, _, lse, mean = OPS.linear_logprobs(hidden.detach(), weight.detach(), LABELS, *args)
        grads = (_randn(5, seed=7, dtype=lse.dtype), _randn(5, seed=8, dtype=lse.dtype))
        for need in [(True, True), (False, True)]:
            cases.append(pytest.param(OPS.linear_logprobs_backward,
                                      (hidden.detach(), weight.detach(), LABELS, lse, mean, *grads, *args, *need),
                                      id=f"linear_backward-{backend}-{name}-{need}"))
    return cases


def _sample_cases() -> list[Any]:
    logits = _randn(4, 37, seed=9)
    # opcheck compares outputs without equal_nan: no invalid rows (their NaN log-probs) here.
    rows = (torch.tensor([1.0, 1.4, 0.5, 2.0]), torch.tensor([0, 5, 1, 3], dtype=torch.int32),
            torch.tensor([0.9, 1.0, 0.5, 0.9]), torch.tensor([0.0, 0.05, 0.0, 0.0]), torch.tensor([0.1, 0.5, 0.7, 0.9]))
    return [pytest.param(OPS.sample, (logits, *rows, backend, draw), id=f"sample-{backend}-draw={draw}")
            for backend in CPU_BACKENDS for draw in (True, False)]


@pytest.mark.parametrize(("op", "args"), _logprobs_cases() + _linear_cases() + _sample_cases())
def test_opcheck(op: Any, args: tuple) -> None:
    result = torch.library.opcheck(op, args)
    assert set(result.values()) == {"SUCCESS"}, result


def test_fake_tensors_give_shapes_dtypes_and_gradients() -> None:
    with FakeTensorMode():
        labels = torch.zeros(6, dtype=torch.long)
        for dtype, backend, want in [(torch.bfloat16, "torch", torch.float32), (torch.float64, "torch", torch.float64),
                                     (torch.float16, "triton", torch.float32)]:
            if backend not in CPU_BACKENDS:
                continue
            logits = torch.empty(6, 50, dtype=dtype, requires_grad=True)
            lp, ent = logprobs_from_logits(logits, labels, return_entropy=True, backend=backend)
            assert isinstance(lp, FakeTensor) and lp.shape == ent.shape == (6,) and lp.dtype == ent.dtype == want
            (lp.sum() + ent.sum()).backward()
            assert logits.grad is not None and logits.grad.shape == (6, 50) and logits.grad.dtype == dtype

            hidden = torch.empty(6, 8, dtype=dtype, requires_grad=True)
            weight = torch.empty(50, 8, dtype=dtype, requires_grad=True)
            lp, ent = linear_logprobs(hidden, weight, labels, return_entropy=True, backend=backend)
            assert lp.shape == ent.shape == (6,) and lp.dtype == ent.dtype == want
            ent.sum().backward()
            assert hidden.grad is not None and weight.grad is not None
            assert (hidden.grad.shape, weight.grad.shape) == ((6, 8), (50, 8))
            assert hidden.grad.dtype == weight.grad.dtype == dtype

        for backend in CPU_BACKENDS:
            logits = torch.empty(6, 50, dtype=torch.bfloat16)
            out = sample(logits, top_k=5, top_p=0.9, seed=1, return_logprobs=True, backend=backend)
            assert out.token_ids.dtype == torch.int64 and out.token_ids.shape == (6,)
            assert out.logprobs.dtype == out.raw_logprobs.dtype == torch.float32 and out.logprobs.shape == (6,)
            tau, log_norm = kept_threshold(logits, top_p=torch.full((6,), 0.5), backend=backend)
            assert tau.shape == log_norm.shape == (6,) and tau.dtype == torch.float32
            tok, tau, _ = sample_with_threshold(logits, min_p=0.1, uniform=torch.rand(6), backend=backend)
            assert tok.dtype == torch.int64 and tok.shape == tau.shape == (6,)


def test_meta_tensors() -> None:
    logits = torch.empty(3, 1000, device="meta", dtype=torch.bfloat16, requires_grad=True)
    labels = torch.zeros(3, device="meta", dtype=torch.long)
    lp, ent = logprobs_from_logits(logits, labels, return_entropy=True)
    assert lp.device.type == "meta" and lp.shape == (3,) and lp.dtype == torch.float32
    (lp.sum() + ent.sum()).backward()
    assert logits.grad is not None and logits.grad.shape == (3, 1000) and logits.grad.device.type == "meta"
    hidden = torch.empty(3, 16, device="meta")
    assert linear_logprobs(hidden, torch.empty(1000, 16, device="meta"), labels).shape == (3,)
    assert sample(logits.detach(), top_k=4, seed=0).shape == (3,)


def test_symbolic_sizes_flow_through_the_ops() -> None:
    """Traced with symbolic sizes, every op's outputs have the batch size of its input, as a symbol."""
    def f(logits: torch.Tensor, hidden: torch.Tensor, weight: torch.Tensor, labels: torch.Tensor) -> tuple:
        return (logprobs_from_logits(logits, labels, return_entropy=True, backend="torch"),
                linear_logprobs(hidden, weight, labels, backend="torch"),
                sample(logits, top_p=0.9, uniform=torch.rand(labels.shape[0]), return_logprobs=True, backend="torch"))

    gm = make_fx(f, tracing_mode="symbolic")(_randn(5, 11, seed=0), _randn(5, 4, seed=1), _randn(11, 4, seed=2),
                                             LABELS)
    batch = next(n for n in gm.graph.nodes if n.op == "placeholder").meta["val"].shape[0]
    assert isinstance(batch, torch.SymInt)
    ours = [n for n in gm.graph.nodes if n.op == "call_function" and str(n.target).startswith("verl_ext.")]
    assert sorted(str(n.target) for n in ours) == ["verl_ext.linear_logprobs.default",
                                                   "verl_ext.logprobs_from_logits.default", "verl_ext.sample.default"]
    for node in ours:
        for out in node.meta["val"]:
            assert str(out.shape[0]) == str(batch), (node.target, out.shape)


def _leaves(*tensors: torch.Tensor) -> list[torch.Tensor]:
    return [t.detach().clone().requires_grad_(True) for t in tensors]


@pytest.mark.parametrize("backend", CPU_BACKENDS)
@pytest.mark.filterwarnings("ignore:Your compiler for AOTAutograd:UserWarning")  # the recording backend's
def test_compile_fullgraph_equals_eager_with_gradients(backend: str) -> None:
    """Log-probs and entropy from logits and from hidden states: one graph, forward and backward, both ops
    kept whole (the backward graph calls the backward ops)."""
    logits, hidden, weight = _randn(5, 11, seed=0), _randn(5, 4, seed=1), _randn(11, 4, seed=2)
    wide = _randn(5, 14, seed=3)
    g_lp, g_h = _randn(5, seed=4), _randn(5, seed=5)

    def loss(logits: torch.Tensor, strided: torch.Tensor, hidden: torch.Tensor, weight: torch.Tensor) -> tuple:
        lp, ent = logprobs_from_logits(logits, LABELS, temperature=0.8, return_entropy=True, backend=backend,
                                       chunk_rows=2)
        only_ent = logprobs_from_logits(strided[:, 2:13], LABELS, return_entropy=True, backend=backend)[1]
        lin_lp, lin_ent = linear_logprobs(hidden, weight, LABELS, temperature=0.8, return_entropy=True,
                                          backend=backend, chunk_tokens=2, chunk_vocab=3)
        total = (lp * g_lp + ent * g_h).sum() + only_ent.sum() + (lin_lp * g_h + lin_ent * g_lp).sum()
        return total, lp, ent, lin_lp, lin_ent

    recorder = AotEagerAndRecordGraphs()
    compiled = torch.compile(loss, fullgraph=True, backend=recorder)
    eager_in, compiled_in = _leaves(logits, wide, hidden, weight), _leaves(logits, wide, hidden, weight)
    want, got = loss(*eager_in), compiled(*compiled_in)
    want[0].backward()
    got[0].backward()
    for a, b in zip(got, want, strict=True):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-6)
    for a, b in zip(compiled_in, eager_in, strict=True):
        assert a.grad is not None and b.grad is not None and b.grad.abs().sum() > 0
        torch.testing.assert_close(a.grad, b.grad, atol=1e-6, rtol=1e-6)
    fw = "".join(g.code for g in recorder.fw_graphs)
    bw = "".join(g.code for g in recorder.bw_graphs)
    assert "verl_ext.logprobs_from_logits.default" in fw and "verl_ext.linear_logprobs.default" in fw
    assert "verl_ext.logprobs_from_logits_backward.default" in bw and "verl_ext.linear_logprobs_backward" in bw


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_compile_fullgraph_sampling_equals_eager(backend: str) -> None:
    logits = _randn(6, 37, seed=10, scale=3.0)
    u = torch.rand(6, generator=torch.Generator().manual_seed(11))

    def draw(logits: torch.Tensor) -> tuple:
        out = sample(logits, temperature=0.8, top_k=7, top_p=0.9, seed=3, return_logprobs=True, backend=backend)
        thr = kept_threshold(logits, top_p=torch.linspace(0.3, 1.0, 6), min_p=0.01, backend=backend)
        with_thr = sample_with_threshold(logits, top_k=torch.arange(6), uniform=u, backend=backend)
        proc = sample_processed(logits, temperature=0.7, top_p=0.8, uniform=u, backend=backend)
        return (*out, *thr, *with_thr, *proc[:4], proc.logprobs(logits))

    got = torch.compile(draw, fullgraph=True, backend="aot_eager")(logits)
    want = draw(logits)
    assert torch.equal(got[0], want[0]) and torch.equal(got[5], want[5])
    torch.testing.assert_close(got, want, equal_nan=True, atol=0, rtol=0)


def test_compile_with_inductor_equals_eager() -> None:
    """torch.compile's default backend (Inductor, C++ on CPU; ~20 s, so one graph): the ops run as extern
    kernels beside generated code, e.g. the seeded uniforms of ``sample``."""
    scaled_logits, hidden, weight = _randn(5, 11, seed=20), _randn(5, 4, seed=21), _randn(11, 4, seed=22)

    def step(logits: torch.Tensor, hidden: torch.Tensor, weight: torch.Tensor) -> tuple:
        lp, ent = logprobs_from_logits(logits * 1.5, LABELS, return_entropy=True, backend="torch")
        lin = linear_logprobs(hidden, weight, LABELS, temperature=0.9, backend="torch")
        out = sample(logits.detach(), top_k=4, top_p=0.9, seed=5, return_logprobs=True, backend="torch")
        return (lp + ent + lin).sum(), *out

    eager_in, compiled_in = _leaves(scaled_logits, hidden, weight), _leaves(scaled_logits, hidden, weight)
    want, got = step(*eager_in), torch.compile(step, fullgraph=True)(*compiled_in)
    want[0].backward()
    got[0].backward()
    assert torch.equal(got[1], want[1])
    torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-6)
    for a, b in zip(compiled_in, eager_in, strict=True):
        assert a.grad is not None and b.grad is not None
        torch.testing.assert_close(a.grad, b.grad, atol=1e-6, rtol=1e-6)


@pytest.mark.skipif("triton" not in CPU_BACKENDS, reason="Triton on CPU tensors needs TRITON_INTERPRET=1")
def test_triton_ops_match_the_torch_ops() -> None:
    """Forward and backward ops, Triton (interpreted) against torch, on fp32 inputs with -inf logits."""
    logits = _randn(5, 11, seed=12, scale=4.0)
    logits[0, 3] = logits[3, 7] = float("-inf")
    g_lp, g_h = _randn(5, seed=13), _randn(5, seed=14)

    def lp_call(backend: str) -> tuple:
        lp, ent, lse, mean = OPS.logprobs_from_logits(logits, LABELS, 0.9, IGNORE, backend, 2)
        grad = OPS.logprobs_from_logits_backward(logits, LABELS, lse, mean, g_lp, g_h, 0.9, IGNORE, backend, 2)
        return lp, ent, lse, mean, grad

    hidden, weight = _randn(5, 4, seed=15), _randn(11, 4, seed=16)

    def linear_call(backend: str) -> tuple:
        lp, ent, lse, mean = OPS.linear_logprobs(hidden, weight, LABELS, 0.9, IGNORE, backend, 2, 3)
        grads = OPS.linear_logprobs_backward(hidden, weight, LABELS, lse, mean, g_lp, g_h, 0.9, IGNORE, backend, 2,
                                             3, True, True)
        return lp, ent, lse, mean, *grads

    calls: list[Callable[[str], tuple]] = [lp_call, linear_call]
    for call in calls:
        got, want = call("triton"), call("torch")
        for a, b in zip(got, want, strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape
            torch.testing.assert_close(a, b, atol=2e-5, rtol=1e-5)


def test_torch_path_errors_still_raise_from_inside_the_op() -> None:
    """The label range check of the torch path runs in the op (where a host read is fine), as a ValueError,
    eager and compiled."""
    bad = torch.tensor([0, 11, 1, 2, 3])
    with pytest.raises(ValueError, match="labels must be in"):
        OPS.logprobs_from_logits(_randn(5, 11, seed=0), bad, 1.0, IGNORE, "torch", 4)
    with pytest.raises(ValueError, match="labels must be in"):
        OPS.linear_logprobs(_randn(5, 4, seed=0), _randn(11, 4, seed=1), bad, 1.0, IGNORE, "torch", 4, 4)
    f = torch.compile(lambda x: logprobs_from_logits(x, bad, backend="torch"), fullgraph=True, backend="aot_eager")
    with pytest.raises(ValueError, match="labels must be in"):
        f(_randn(5, 11, seed=0))


gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA or ROCm GPU")


@pytest.mark.gpu
@gpu
def test_triton_ops_are_captured_by_cuda_graphs() -> None:
    """The Triton paths allocate no host state and never synchronise, so a CUDA graph captures them; replays
    read new inputs."""
    dev = torch.device("cuda")
    logits = torch.randn(64, 32000, device=dev)
    labels = torch.randint(0, 32000, (64,), device=dev)
    hidden, weight = torch.randn(64, 128, device=dev), torch.randn(32000, 128, device=dev) * 0.1
    u = torch.rand(64, device=dev)
    g = torch.ones(64, device=dev)

    def step() -> tuple:
        lp, ent, lse, mean = OPS.logprobs_from_logits(logits, labels, 1.0, IGNORE, "triton", 1024)
        grad = OPS.logprobs_from_logits_backward(logits, labels, lse, mean, g, g, 1.0, IGNORE, "triton", 1024)
        lin = OPS.linear_logprobs(hidden, weight, labels, 1.0, IGNORE, "triton", 32, 8192)[0]
        tok = sample_with_threshold(logits, top_k=50, top_p=0.9, uniform=u, backend="triton")[0]
        return lp, ent, grad, lin, tok

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        step()  # compile the kernels outside the capture
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = step()
    for seed in range(2):
        torch.manual_seed(seed)
        logits.copy_(torch.randn_like(logits))
        u.copy_(torch.rand_like(u))
        graph.replay()
        torch.cuda.synchronize()
        for a, b in zip(captured, step(), strict=True):
            torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
