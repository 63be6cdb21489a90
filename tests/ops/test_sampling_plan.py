"""verl_ext.ops.sampling_plan: how the Triton sampler fills the device and how many times it reads each logit,
and that the launcher runs exactly the plan (launches recorded under Triton's interpreter)."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from verl_ext.ops import sample
from verl_ext.ops import sampling as S
from verl_ext.ops import sampling_kernels as K
from verl_ext.ops.sampling_plan import (
    BLOCK,
    COUNT_DIGITS,
    K_MAX,
    MASS_DIGITS,
    MASS_FIXED_BITS,
    MASS_TILE,
    MAX_VOCAB,
    MIN_SPLITS,
    launch_plan,
)

LLM_VOCAB = 151936
H100_SMS = 132
FILTERS = [{}, {"top_k": True}, {"min_p": True}, {"top_k": True, "min_p": True}, {"top_p": True},
           {"top_k": True, "top_p": True}, {"top_k": True, "top_p": True, "min_p": True}]


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: "+".join(f) or "none")
def test_one_row_fills_the_device(filters: dict[str, bool]) -> None:
    plan = launch_plan(1, LLM_VOCAB, device_sms=H100_SMS, **filters)
    assert plan.programs >= 2 * H100_SMS
    assert plan.splits * plan.slice_len >= LLM_VOCAB > (plan.splits - 1) * plan.slice_len
    assert plan.slice_len % plan.block == 0


def test_fewer_splits_per_row_as_the_batch_grows() -> None:
    plans = [launch_plan(b, LLM_VOCAB, device_sms=H100_SMS) for b in (1, 8, 64, 128, 256, 1024)]
    assert [p.splits for p in plans] == sorted((p.splits for p in plans), reverse=True)
    for p in plans:  # a few programs per SM, each streaming at least one block
        assert p.programs >= 2 * H100_SMS
        assert p.slice_len >= BLOCK
        assert p.splits == MIN_SPLITS or p.programs <= 8 * H100_SMS
    assert plans[-1].splits == MIN_SPLITS  # the draw's re-read stays at most 1 / MIN_SPLITS


def test_reads_of_each_logit() -> None:
    def reads(**filters: Any) -> float:
        return launch_plan(64, LLM_VOCAB, device_sms=H100_SMS, **filters).reads_per_logit

    plan = launch_plan(64, LLM_VOCAB, device_sms=H100_SMS)
    assert reads() == 1 + 1 / plan.splits  # statistics, then the draw re-reads one split per row
    assert launch_plan(64, LLM_VOCAB, sample=False).reads_per_logit == 1
    # Without filters, two launches: the statistics pass, then the finish (combine, split, draw).
    assert not plan.filtered and plan.launches == launch_plan(64, LLM_VOCAB, sample=False).launches == 2
    assert launch_plan(64, LLM_VOCAB, top_p=True).filtered and launch_plan(64, LLM_VOCAB, min_p=True).filtered
    assert launch_plan(1024, LLM_VOCAB, device_sms=H100_SMS).reads_per_logit == 1 + 1 / MIN_SPLITS
    # Top-k (with or without min-p): the count digits; top-p adds the mass digits. Fixed by the parameters,
    # not the data.
    for filters in ({"top_k": True}, {"top_k": True, "min_p": True}):
        assert reads(**filters) == len(COUNT_DIGITS) + 1 / plan.splits <= 4
    # Min-p alone: its threshold is known after the statistics, so one pass sums what it keeps.
    assert reads(min_p=True) == 2 + 1 / plan.splits
    assert [p.cut for p in launch_plan(64, LLM_VOCAB, min_p=True).passes] == [False, True]
    # Top-p's first digit is summed in the statistics pass.
    assert reads(top_p=True) == len(MASS_DIGITS) + 1 / plan.splits == 3 + 1 / plan.splits
    # A top-k of at most K_MAX known on the host (a Python int): top-p finishes from the gathered top-k set.
    for k in (1, 50, K_MAX):
        for filters in ({"top_k": True, "top_p": True}, {"top_k": True, "top_p": True, "min_p": True}):
            assert reads(top_k_bound=k, **filters) == len(COUNT_DIGITS) + 1 / plan.splits <= 4 + 1 / plan.splits
    # k unknown on the host (a per-row tensor): the mass passes are launched for the rows that need them, and
    # a row reads only in the passes its own parameters need.
    worst = launch_plan(64, LLM_VOCAB, device_sms=H100_SMS, top_k=True, top_p=True, min_p=True)
    assert worst.reads_per_logit == len(COUNT_DIGITS) + len(MASS_DIGITS) - 1 + 1 / plan.splits
    assert worst.row_reads() == 1 + 1 / plan.splits
    assert worst.row_reads(top_k=K_MAX, top_p=True, min_p=True) == len(COUNT_DIGITS) + 1 / plan.splits
    assert worst.row_reads(top_p=True) == len(MASS_DIGITS) + 1 / plan.splits
    assert worst.row_reads(top_k=5, min_p=True) == len(COUNT_DIGITS) + 1 / plan.splits
    # A min-p row without top-k takes min-p's cut in the first count pass and skips the others: 2 reads alone,
    # 4 with top-p, as in a plan without top-k.
    assert [p.cut for p in worst.passes] == [False, True] + [False] * (len(worst.passes) - 2)
    assert worst.row_reads(min_p=True) == 2 + 1 / plan.splits
    assert worst.row_reads(top_p=True, min_p=True) == 4 + 1 / plan.splits
    assert launch_plan(64, LLM_VOCAB, top_k=True, min_p=True).row_reads(min_p=True) == 2 + 1 / plan.splits
    assert not worst.cut and not any(p.cut for p in launch_plan(64, LLM_VOCAB, top_k=True, top_p=True).passes)
    # Still 5 reads: top-p over a top-k above K_MAX (too large to gather: the count search, then the mass
    # digits after the first, since top-p's target is a fraction of the top-k set's mass).
    assert worst.reads_per_logit == 5 + 1 / plan.splits
    assert worst.row_reads(top_k=K_MAX + 1, top_p=True) == worst.reads_per_logit
    # A k the kernels read as off (<= 0 or >= vocab) is off here too: min-p's cut, and top-p's mass passes.
    for off in (0, -1, LLM_VOCAB, LLM_VOCAB + 5):
        assert worst.row_reads(top_k=off, min_p=True) == worst.row_reads(min_p=True) == 2 + 1 / plan.splits
        assert worst.row_reads(top_k=off, top_p=True, min_p=True) == 4 + 1 / plan.splits
    assert max(worst.row_reads(top_k=k, top_p=tp, min_p=mp) for k in (None, 5, K_MAX) for tp in (False, True)
               for mp in (False, True)) <= 4 + 1 / plan.splits
    assert reads(top_k=True, top_p=True, top_k_bound=K_MAX + 1) == worst.reads_per_logit
    # Min-p with top-p and no top-k: the cut, then the mass digits after the first (summed in the statistics).
    cut = launch_plan(64, LLM_VOCAB, device_sms=H100_SMS, top_p=True, min_p=True)
    assert cut.reads_per_logit == cut.row_reads(top_p=True, min_p=True) == 1 + len(MASS_DIGITS) + 1 / plan.splits
    assert cut.reads_per_logit <= 4 + 1 / plan.splits
    assert cut.row_reads(min_p=True) == 2 + 1 / plan.splits and cut.row_reads(top_p=True) == worst.row_reads(top_p=True)
    assert sum(COUNT_DIGITS) == sum(MASS_DIGITS) == 32  # the last digit of each search is one key per bucket
    # Each weighted digit's fixed-point row sums fit int64 at the largest vocabulary a plan takes.
    assert MAX_VOCAB << MASS_FIXED_BITS < 1 << 63
    with pytest.raises(ValueError, match="vocab"):
        launch_plan(1, MAX_VOCAB + 1)


def test_mass_tiles_fit_registers_and_the_interpreters_tensor_limit() -> None:
    """A GPU program sums [MASS_TILE, 2^8] one-hots; an interpreted one holds up to 256 rows, so its tile narrows
    to keep [rows, tile, 2^8] within Triton's 2^20 elements (few rows keep the full tile: fewer iterations)."""
    for batch in (1, 8, 64, 256, 20_000):
        gpu = launch_plan(batch, LLM_VOCAB, top_p=True, device_sms=H100_SMS)
        assert gpu.rows_per_program == 1 and gpu.mass_tile == MASS_TILE
        cpu = launch_plan(batch, 300, top_p=True, interpreter=True)
        assert cpu.rows_per_program * cpu.mass_tile << MASS_DIGITS[0] <= 1 << 20
        assert cpu.block % cpu.mass_tile == 0 and cpu.mass_tile & (cpu.mass_tile - 1) == 0
        assert cpu.mass_tile == MASS_TILE or cpu.rows_per_program > 64


def test_plan_rejects_bad_shapes() -> None:
    with pytest.raises(ValueError, match="vocab"):
        launch_plan(1, 0)
    with pytest.raises(ValueError, match="top_k_bound"):
        launch_plan(1, 10, top_k_bound=5)
    with pytest.raises(ValueError, match="mass passes"):
        launch_plan(1, 10, top_k=True, top_p=True, top_k_bound=5).row_reads(top_p=True)
    with pytest.raises(ValueError, match="without a filter"):  # min-p's cut cannot serve a top-k row
        launch_plan(1, 10, min_p=True).row_reads(top_k=3)
    with pytest.raises(ValueError, match="without a filter"):  # its combine would not compute min-p's key
        launch_plan(1, 10, top_k=True).row_reads(top_k=3, min_p=True)


def test_filters_the_launcher_is_told_about() -> None:
    assert S._filters_on(None, None, None, 100) == ""
    assert S._filters_on(0, 1.0, 0.0, 100) == ""  # disabled values
    assert S._filters_on(100, None, None, 100) == ""  # top_k >= V keeps everything
    assert S._filters_on(5, 0.9, 0.1, 100) == "kpmg"  # every row's k is known to be at most K_MAX
    assert S._filters_on(K_MAX + 1, 0.9, None, 10 * K_MAX) == "kp"
    per_row = torch.zeros(3)
    assert S._filters_on(per_row.int(), per_row + 1, per_row, 100) == "kpm"  # a per-row tensor may hold anything


def _rows(kind: str, g: torch.Generator) -> torch.Tensor:
    n, vocab = 6, 300
    if kind == "flat":
        return torch.randn(n, vocab, generator=g) * 1e-3
    if kind == "tied":
        return torch.randint(0, 3, (n, vocab), generator=g).float()
    if kind == "peaked":
        x = torch.randn(n, vocab, generator=g) * 2
        return x.scatter_add(1, torch.randint(0, vocab, (n, 8), generator=g), torch.full((n, 8), 8.0))
    x = torch.randn(n, vocab, generator=g) * torch.logspace(-20, 20, vocab)  # adversarial: huge range, -inf, -0.0
    x[:, ::5] = float("-inf")
    x[:, 1] = -0.0
    return x


def _record(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[int, ...], tuple, dict]]:
    launched: list[tuple[str, tuple[int, ...], tuple, dict]] = []
    real = K._launch

    def record(kernel: Any, grid: tuple[int, ...], *args: object, **meta: object) -> None:
        launched.append((kernel.fn.__name__, grid, args, dict(meta)))
        real(kernel, grid, *args, **meta)

    monkeypatch.setattr(K, "_launch", record)
    return launched


def _plan_of(logits: torch.Tensor, filters: dict) -> Any:
    """The plan the public API makes for these filters (a scalar k of at most K_MAX is a bound on every row)."""
    on = S._filters_on(filters.get("top_k"), filters.get("top_p"), filters.get("min_p"), logits.shape[1])
    return K.plan_for(logits, top_k="k" in on, top_p="p" in on, min_p="m" in on, sample=True,
                      top_k_bound=K_MAX if "g" in on else None)


def _check_passes(launched: list, plan: Any) -> None:
    assert len(launched) == plan.launches
    passes = [(grid, args, meta) for name, grid, args, meta in launched if name == "_pass_kernel"]
    assert len(passes) == len(plan.passes) == round(plan.reads_per_logit)
    for (grid, args, meta), p in zip(passes, plan.passes, strict=True):
        assert grid == plan.grid  # every pass reads every split of every row once
        assert args[4] == plan.slice_len and plan.slice_len % meta["TILE"] == 0
        assert (meta["SHIFT"], meta["WEIGHTED"], meta["MASS_FIRST"], meta["GATHER"], meta["CUT"]) == (
            p.shift, p.weighted, p.mass_first, p.gather, p.cut)
    assert sum(name == "_top_p_gathered_kernel" for name, *_ in launched) == int(plan.gather)
    # The statistics' combine sends min-p rows to the cut when the plan has no top-k; the combine after the
    # pass serving the cut (the first after the statistics) reads its state, and only that one.
    cut_selects = [meta["CUT"] for name, _, _, meta in launched if name == "_select_kernel"]
    assert cut_selects == [(i == 0 and plan.cut) or (i == 1 and plan.passes[1].cut) for i in range(len(cut_selects))]
    # Min-p's bisection (in the statistics' combine, the first) is compiled in only where some row may have
    # min-p, and into no other combine (each value of a constexpr is another compiled kernel).
    min_p = [meta["MIN_P"] for name, _, _, meta in launched if name == "_select_kernel"]
    assert min_p == [plan.min_p and i == 0 for i in range(len(min_p))]
    kept = [meta["CUT1"] for name, _, _, meta in launched if name == "_kept_kernel"]
    assert kept == [plan.cut] * int(plan.draw and plan.filtered)
    # The finish is the last launch, one program per row block; it draws, and without filters it combines the
    # statistics itself (then nothing else runs between the statistics pass and it).
    name, grid, args, meta = launched[-1]
    assert name == "_finish_kernel" and grid == (plan.grid[0],) and args[4] == plan.slice_len
    assert (meta["SAMPLE"], meta["STATS"]) == (plan.draw, not plan.filtered)
    assert sum(n == "_finish_kernel" for n, *_ in launched) == 1
    if not plan.filtered:
        assert [n for n, *_ in launched] == ["_pass_kernel", "_finish_kernel"]


PER_ROW_K = torch.tensor([0, 40, 1, 299, 0, 7], dtype=torch.int32)  # both top-p paths in one call
PER_ROW_P = torch.tensor([0.0, 0.05, 1.0, 0.5, 0.0, 0.2])  # min-p off, on, keeping only the max
# Rows 0 and 4 (no top-k) take min-p's cut beside the count search of the rows with top-k, row 4 keeping the max.
PER_ROW_P_CUT = torch.tensor([0.05, 0.0, 0.02, 0.3, 1.0, 0.0])


@pytest.mark.parametrize("kind", ["flat", "tied", "peaked", "adversarial"])
@pytest.mark.parametrize("filters", [{}, {"top_k": 40}, {"top_p": 0.9}, {"top_k": 250, "top_p": 0.95, "min_p": 0.01},
                                     {"top_k": PER_ROW_K, "top_p": 0.9}, {"min_p": 0.05},
                                     {"min_p": PER_ROW_P, "top_p": 0.8},
                                     {"top_k": PER_ROW_K, "min_p": PER_ROW_P_CUT},
                                     {"top_k": PER_ROW_K, "top_p": 0.7, "min_p": PER_ROW_P_CUT}],
                         ids=lambda f: "+".join(f) or "none")
def test_the_launcher_runs_the_plan(monkeypatch: pytest.MonkeyPatch, kind: str, filters: dict) -> None:
    launched = _record(monkeypatch)
    logits = _rows(kind, torch.Generator().manual_seed(1))
    out = sample(logits, seed=3, return_logprobs=True, backend="triton", **filters)
    plan = _plan_of(logits, filters)
    _check_passes(launched, plan)
    assert plan.filtered == bool(filters) and plan.min_p == ("min_p" in filters)
    ref = S._torch(logits, S._rows(logits, 1.0, filters.get("top_k"), filters.get("top_p"), filters.get("min_p"), 3,
                                   None), sample=True)
    tau, _ = S.kept_threshold(logits, backend="triton", **filters)
    assert torch.equal(logits >= tau[:, None], logits >= ref.tau[:, None])
    assert (logits.gather(1, out.token_ids[:, None])[:, 0] >= tau).all()


@pytest.mark.parametrize("top_k", [1, 40, 299])
def test_top_k_and_top_p_read_each_logit_at_most_four_times(monkeypatch: pytest.MonkeyPatch, top_k: int) -> None:
    """The acceptance criterion: a Python-int top-k of at most K_MAX with top-p (and min-p) launches no mass
    passes, so each logit is read at most 4 times (3 here) plus the draw's one split in ``splits``; the
    thresholds are the reference's."""
    filters = {"top_k": top_k, "top_p": 0.8, "min_p": 0.01}
    logits = _rows("peaked", torch.Generator().manual_seed(2))
    plan = _plan_of(logits, filters)
    assert plan.gather and not any(p.search == 2 for p in plan.passes)
    assert plan.reads_per_logit == plan.row_reads(top_k=top_k, top_p=True, min_p=True) <= 4 + 1 / plan.splits
    launched = _record(monkeypatch)
    out = sample(logits, seed=5, return_logprobs=True, backend="triton", **filters)
    _check_passes(launched, plan)
    ref = S._torch(logits, S._rows(logits, 1.0, top_k, 0.8, 0.01, 5, None), sample=True)
    tau, log_norm = S.kept_threshold(logits, backend="triton", **filters)
    assert torch.equal(tau, ref.tau)
    torch.testing.assert_close(log_norm, ref.log_norm, atol=1e-5, rtol=1e-5)
    assert torch.equal(out.token_ids, ref.token_ids)


class _Fills(torch.utils._python_dispatch.TorchDispatchMode):
    """Counts torch ops that fill memory (on a GPU each is a kernel launch)."""

    def __init__(self) -> None:
        super().__init__()
        self.fills: list[str] = []

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        name = str(func)
        if "fill" in name or "zero" in name:
            self.fills.append(name)
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("draw", [True, False])
def test_without_filters_a_call_is_two_launches_and_no_fills(monkeypatch: pytest.MonkeyPatch, draw: bool) -> None:
    logits = _rows("peaked", torch.Generator().manual_seed(4))
    plan = K.plan_for(logits, top_k=False, top_p=False, min_p=False, sample=draw)
    rows = S._rows(logits, 1.0, None, None, None, 3, None)
    launched = _record(monkeypatch)
    with _Fills() as fills:
        out = K.run(logits, rows.inv_temperature, rows.top_k, rows.top_p, rows.min_p, rows.uniform, plan)
    assert [name for name, *_ in launched] == ["_pass_kernel", "_finish_kernel"]
    assert (launched[-1][3]["SAMPLE"], launched[-1][3]["STATS"]) == (draw, True)
    assert fills.fills == []
    assert torch.isneginf(out.tau).all()
    top = logits.amax(-1)
    torch.testing.assert_close(out.log_mass, (logits - top[:, None]).logsumexp(-1))
    torch.testing.assert_close(out.log_kept, out.log_mass)
    torch.testing.assert_close(out.log_norm, logits.logsumexp(-1))
    if draw:
        torch.testing.assert_close(out.raw_logprobs, logits.log_softmax(-1).gather(1, out.token_ids[:, None])[:, 0])
    # With filters the state read before it is written is zeroed, and only that: the histograms' row totals
    # (atomics), the gathered buffers' counters, and search 2's rows and its (empty) sums above the first bucket.
    plan = K.plan_for(logits, top_k=True, top_p=True, min_p=False, sample=True, top_k_bound=K_MAX)
    with _Fills() as fills:
        K.run(logits, rows.inv_temperature, rows.top_k + 5, rows.top_p - 0.1, rows.min_p, rows.uniform, plan)
    assert len(fills.fills) == len(plan.passes) + 1 + 4, fills.fills
