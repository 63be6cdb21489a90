"""verl reward managers named ``verl_ext``: the reward-loop one ``main_ppo`` uses, and a legacy batch one.

Both decode responses in batches and score native data sources in Rust threads with the GIL released.
The user's Python reward functions (``custom_reward_function`` and ``reward_kwargs.functions``) run in
parallel in a :class:`~verl_ext.reward.runner.FunctionRunner` (processes, threads or the event loop);
without any, other data sources go to verl's ``default_compute_score`` as in verl's naive manager.

Options are ``reward.reward_kwargs``, a typed config (:class:`~verl_ext.reward.options.RewardKwargs`;
reference in docs/configuration.md): an unknown key or a bad value fails when the manager is built.
Every sample reports the same ``reward_extra_info`` keys (:attr:`ManagerOptions.extra_keys`).
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import torch
from verl import DataProto
from verl.experimental.reward_loop.reward_manager import register as register_loop
from verl.experimental.reward_loop.reward_manager.base import RewardManagerBase
from verl.utils.reward_score import default_compute_score
from verl.workers.reward_manager import register as register_legacy
from verl.workers.reward_manager.abstract import AbstractRewardManager

from verl_ext import _core, sandbox
from verl_ext.exceptions import RewardFunctionError, SandboxUnavailableError, VerlExtError
from verl_ext.reward.batcher import MicroBatcher
from verl_ext.reward.code import CODE_SOURCES, CodeScore, score_code
from verl_ext.reward.options import BASE_EXTRA_KEYS, CODE_KEYS, ManagerOptions
from verl_ext.reward.runner import FunctionRunner, RateLimits, Scored, bind

__all__ = ["BASE_EXTRA_KEYS", "CODE_KEYS", "ManagerOptions", "VerlExtBatchRewardManager", "VerlExtRewardManager"]

logger = logging.getLogger(__name__)

NAME = "verl_ext"
#: Warnings logged per manager for samples that could not be scored (then they are only counted).
MAX_ERROR_WARNINGS = 10


def _is_default(compute_score: Any) -> bool:
    """verl's own scorer (what it passes when no custom_reward_function is configured)?"""
    fn = compute_score.func if isinstance(compute_score, functools.partial) else compute_score
    return compute_score is None or fn is default_compute_score


def _custom_configured(config: Any, compute_score: Any) -> bool:
    reward = config.get("reward", None) if hasattr(config, "get") else None
    custom = reward.get("custom_reward_function", None) if reward is not None else None
    return bool(custom and custom.get("path")) or not _is_default(compute_score)


def _log_routing(options: ManagerOptions, runner: FunctionRunner | None = None, verl_custom: bool = False) -> None:
    """Say once which data sources verl-ext scores natively and which go to Python, and where each function
    runs."""
    if runner is not None:
        for f in runner.functions:
            where = {"process": "a process pool", "thread": "threads", "async": "the event loop"}[f.kind]
            print(f"[verl_ext] reward function {f.spec.label!r} ({f.spec.path or '<in-process>'}:{f.spec.name}, "
                  f"weight {f.spec.weight:g}, timeout {f.spec.timeout_s:g} s) runs in {where}", flush=True)
    if options.native_sources == "all":
        where = "every data source verl-ext can score natively; the rest go to the Python function"
    elif isinstance(options.native_sources, frozenset):
        where = (f"natively: {sorted(options.native_sources)} (where verl-ext can); every other source goes to "
                 "the Python function")
    elif options.custom_function:
        # Say which was configured: verl's custom_reward_function, or only reward_kwargs.functions.
        what = ("reward_kwargs.functions are configured and score" if options.functions and not verl_custom
                else "custom_reward_function is configured and scores")
        where = (f"nothing natively: {what} every sample "
                 "(set reward_kwargs.native_sources to score some sources in Rust)")
    else:
        where = "every data source verl-ext can score natively; the rest go to verl's default_compute_score"
    # print, not logger.info: Ray's reward workers leave the root logger at WARNING, and this must be seen once.
    print(f"[verl_ext] reward manager scores {where}", flush=True)


def _runner(compute_score: Any, options: ManagerOptions, custom: bool, *, reward_workers: int = 1,
            custom_config: Any = None, reward_config: Any = None) -> FunctionRunner | None:
    """The runner of the user's Python reward functions, or None when none is configured (then
    non-native samples go to verl's ``default_compute_score`` as in verl's naive manager)."""
    custom_spec = None
    if custom_config and custom_config.get("path"):
        from verl_ext.reward.functions import specs_from_config

        custom_spec = specs_from_config(custom_config, ())[0]
    bound = bind(compute_score, options.functions, custom=custom and not _is_default(compute_score),
                 custom_spec=custom_spec)
    if not bound:
        return None
    # verl's rate_limited manager's keys keep their meaning for async judges: reward.max_concurrent (when set,
    # instead of function_concurrency), reward.max_rpm, reward.max_tpm, reward.estimated_tokens_per_request.
    reward = reward_config if reward_config is not None else {}
    concurrency = int(reward.get("max_concurrent", None) or options.function_concurrency)
    return FunctionRunner(bound, processes=options.process_count(reward_workers), threads=options.thread_count(),
                          concurrency=concurrency, dedup=options.dedup,
                          rate_limits=RateLimits.from_reward_config(reward))


def _labels(runner: FunctionRunner) -> tuple[str, ...]:
    """Per-function keys in reward_extra_info: only when the result is combined from several (or weighted)."""
    specs = runner.specs
    return () if len(specs) == 1 and specs[0].weight == 1.0 else tuple(s.label for s in specs)


def _settle(scored: Scored, options: ManagerOptions) -> tuple[Any, bool]:
    """(result, failed) of a sample scored by the functions; with ``on_error=raise`` a function that raised
    stops training with its error, as in verl's naive manager (timeouts and crashes always score 0.0)."""
    raised = [f for f in scored.failures if f.raised]
    if raised and options.on_error == "raise":
        raise RewardFunctionError(f"reward function {raised[0].label!r} raised: {raised[0].message}")
    return scored.result, bool(scored.failures)


def _reward_kwargs(config: Any) -> Mapping[str, Any]:
    reward = config.get("reward", None) if hasattr(config, "get") else None
    kwargs = reward.get("reward_kwargs", None) if reward is not None else None
    return kwargs or {}


@dataclass
class _Sample:
    response_ids: list[int]
    data_source: Any
    ground_truth: Any


@dataclass
class _Native:
    """A decoded response and its native result: a verl result, None (not native) or an exception."""

    text: str
    result: Any
    format_score: float | None
    code: CodeScore | None = None


class _Scorer:
    """What both managers share: batch decode + native scoring, and assembling a sample's outcome."""

    def __init__(self, tokenizer: Any, options: ManagerOptions, sandboxed_code: bool = True) -> None:
        self.tokenizer = tokenizer
        self.options = options
        self.sandboxed_code = sandboxed_code
        self._spec = options.format.spec if options.format.enabled else None
        self._errors = 0

    def score_native(self, samples: Sequence[_Sample]) -> list[_Native]:
        texts = self.tokenizer.batch_decode([s.response_ids for s in samples], skip_special_tokens=True)
        sources = [self.options.native_source(s.data_source) for s in samples]
        results, fmts = _core.score_batch(sources, texts, [s.ground_truth for s in samples], self._spec,
                                          self.options.num_threads)
        natives = [_Native(t, r, fmts[i] if fmts is not None else None)
                   for i, (t, r) in enumerate(zip(texts, results, strict=True))]
        code = [i for i, (src, r) in enumerate(zip(sources, results, strict=True))
                if r is None and self.sandboxed_code and src in CODE_SOURCES]
        if code:
            # A host without isolation raises (code rewards fail closed); every other failure is one
            # sample's (score_code scores it 0), or, should the batch itself fail, an error result for
            # each code sample, which `outcome` turns into 0.0 or raises as `on_error` says.
            try:
                scored: list[Any] = score_code([sources[i] for i in code], [texts[i] for i in code],
                                               [samples[i].ground_truth for i in code],
                                               limits=self.options.code_limits, num_threads=self.options.num_threads,
                                               timeouts=self.options.code_timeouts)
            except SandboxUnavailableError:
                raise
            except Exception as e:  # noqa: BLE001 - reported per sample by `outcome`
                error = e if isinstance(e, VerlExtError) else VerlExtError(f"code scoring failed: {e!r}")
                scored = [error] * len(code)
            for i, cs in zip(code, scored, strict=True):
                if isinstance(cs, CodeScore):
                    natives[i].result, natives[i].code = cs.score, cs
                else:
                    natives[i].result = cs
        return natives

    def outcome(self, result: Any, fmt: float | None, data_source: Any, code: CodeScore | None = None,
                failed: bool = False) -> tuple[float, dict[str, Any]]:
        """(reward, reward_extra_info) of one sample from its verl result, with fixed extra keys; ``failed``:
        a reward function of the sample failed (its score counted 0.0)."""
        # A code row without tests to run is unscorable too (its samples got the defined 0.0).
        unscorable = int(failed or (code is not None and code.unscorable))
        if isinstance(result, VerlExtError):
            if self.options.on_error == "raise":
                raise result
            self._errors += 1
            if self._errors <= MAX_ERROR_WARNINGS:
                logger.warning("verl_ext: sample of data source %r scored 0.0: %s", data_source, result)
            result, unscorable = 0.0, 1
        # verl's naive manager reports a scalar result as `acc` too; the format bonus is not accuracy.
        acc = result.get("acc", result.get("score")) if isinstance(result, dict) else float(result)
        if fmt is not None:
            result = self.options.format.combine(result, fmt)
        fields = result if isinstance(result, dict) else {"format_score": fmt}
        score = float(result["score"]) if isinstance(result, dict) else float(result)
        info = {"score": score, "acc": acc, "pred": fields.get("pred", ""),
                "tests_passed": code.passed if code else 0, "tests_failed": code.failed if code else 0,
                "tests_timeout": code.timeout if code else 0, "tests_error": code.error if code else 0,
                "unscorable": unscorable}
        info.update({k: fields.get(k) for k in self.options.extra_keys[len(BASE_EXTRA_KEYS):]})
        return score, info


@register_loop(NAME)
class VerlExtRewardManager(RewardManagerBase):
    """Reward-loop manager (``reward.reward_manager.name=verl_ext``), the one ``main_ppo`` uses.

    Concurrent ``run_single`` calls of a worker are coalesced into one batch that is decoded and scored
    off the event loop.
    """

    def __init__(
        self,
        config: Any,
        tokenizer: Any,
        compute_score: Any,
        reward_router_address: str | None = None,
        reward_model_tokenizer: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(config, tokenizer, compute_score)
        self.compute_score: Any = compute_score or default_compute_score
        self.is_async_reward_score = inspect.iscoroutinefunction(self.compute_score)
        self.reward_router_address = reward_router_address
        self.reward_model_tokenizer = reward_model_tokenizer
        custom = _custom_configured(config, compute_score)
        self.options = ManagerOptions.from_reward_kwargs(_reward_kwargs(config)).with_custom_function(custom)
        reward = config.get("reward", {}) if hasattr(config, "get") else {}
        self._runner = _runner(compute_score, self.options, custom,
                               reward_workers=int(reward.get("num_workers", 1) or 1),
                               custom_config=reward.get("custom_reward_function", None), reward_config=reward)
        if self._runner is not None:
            self.options = replace(self.options, function_labels=_labels(self._runner))
        _log_routing(self.options, self._runner, custom)
        sandbox_fusion = config.get("reward", {}).get("sandbox_fusion", None) if hasattr(config, "get") else None
        # With a SandboxFusion URL configured, code sources keep verl's SandboxFusion path.
        self._scorer = _Scorer(tokenizer, self.options, sandboxed_code=not (sandbox_fusion or {}).get("url"))
        # Ctrl-C cancels every run_single task: the executions of the batch they waited for stop too (asyncio.run
        # then waits for the batch's thread, which the sandbox's cancel ends at once).
        self._batcher: MicroBatcher[_Sample, _Native] = MicroBatcher(
            lambda samples: self._scorer.score_native(samples), on_abandoned=sandbox.cancel_running)

    async def run_single(self, data: DataProto) -> dict[str, Any]:
        item = data[len(data) - 1]  # multi-sequence outputs: verl scores the last sequence (one index, no slice)
        response_ids = item.batch["responses"]
        valid_length = int(item.batch["attention_mask"][-response_ids.shape[-1]:].sum())
        data_source = item.non_tensor_batch["data_source"]
        ground_truth = item.non_tensor_batch["reward_model"]["ground_truth"]

        native = await self._batcher.submit(_Sample(response_ids[:valid_length].tolist(), data_source, ground_truth))
        result, failed = native.result, False
        if result is None:
            result, failed = await self._fallback(item, native.text, data_source, ground_truth)
        score, info = self._scorer.outcome(result, native.format_score, data_source, native.code, failed)
        return {"reward_score": score, "reward_extra_info": info}

    async def _fallback(self, item: Any, text: str, data_source: Any, ground_truth: Any) -> tuple[Any, bool]:
        """Score a non-native sample with the arguments verl's naive manager gives its reward function:
        (result, whether a reward function failed)."""
        extra_info = dict(item.non_tensor_batch.get("extra_info", None) or {})
        tool_extra_fields = item.non_tensor_batch.get("tool_extra_fields", None)
        if tool_extra_fields is not None:
            extra_info.update(tool_extra_fields.items())
        extra_info["num_turns"] = item.non_tensor_batch.get("__num_turns__", None)
        extra_info["rollout_reward_scores"] = item.non_tensor_batch.get("reward_scores", {})
        kwargs: dict[str, Any] = {"data_source": data_source, "solution_str": text, "ground_truth": ground_truth,
                                  "extra_info": extra_info}
        if self.reward_router_address is not None:
            kwargs.update(reward_router_address=self.reward_router_address,
                          reward_model_tokenizer=self.reward_model_tokenizer)
        if self._runner is not None:
            return _settle(await self._runner.score(**kwargs), self.options)
        if self.is_async_reward_score:
            return await self.compute_score(**kwargs), False
        return await self.loop.run_in_executor(None, lambda: self.compute_score(**kwargs)), False


@register_legacy(NAME)
class VerlExtBatchRewardManager(AbstractRewardManager):
    """Legacy batch manager (``verl.workers.reward_manager``): same ``[B, R]`` tensor as verl's naive one."""

    def __init__(
        self,
        tokenizer: Any,
        num_examine: int,
        compute_score: Any = None,
        reward_fn_key: str = "data_source",
        **reward_kwargs: Any,
    ) -> None:
        self.tokenizer = tokenizer
        self.num_examine = num_examine
        self.compute_score = compute_score or default_compute_score
        self.reward_fn_key = reward_fn_key
        custom = not _is_default(compute_score)
        self.options = ManagerOptions.from_reward_kwargs(reward_kwargs).with_custom_function(custom)
        self._runner = _runner(compute_score, self.options, custom)
        if self._runner is not None:
            self.options = replace(self.options, function_labels=_labels(self._runner))
        _log_routing(self.options, self._runner, custom)
        self._scorer = _Scorer(tokenizer, self.options)

    def __call__(self, data: DataProto, return_dict: bool = False) -> torch.Tensor | dict[str, Any]:
        from_rm = self._extract_reward_from_rm_scores(data, return_dict)
        if from_rm is not None:
            return from_rm

        responses = data.batch["responses"]
        prompt_length = data.batch["prompts"].shape[-1]
        valid_lengths = data.batch["attention_mask"][:, prompt_length:].sum(dim=-1).tolist()
        data_sources = data.non_tensor_batch[self.reward_fn_key]
        ground_truths = [rm["ground_truth"] for rm in data.non_tensor_batch["reward_model"]]
        samples = [_Sample(responses[i, :n].tolist(), data_sources[i], ground_truths[i])
                   for i, n in enumerate(valid_lengths)]
        natives = self._scorer.score_native(samples)

        reward_tensor = torch.zeros_like(responses, dtype=torch.float32)
        reward_extra_info: dict[str, list[Any]] = defaultdict(list)
        examined: dict[Any, int] = defaultdict(int)
        extra_infos = data.non_tensor_batch.get("extra_info", None)
        python = [i for i, native in enumerate(natives) if native.result is None]
        calls = [{"data_source": samples[i].data_source, "solution_str": natives[i].text,
                  "ground_truth": samples[i].ground_truth, "extra_info": self._extra_info(data, extra_infos, i)}
                 for i in python]
        if self._runner is not None:
            settled = [_settle(s, self.options) for s in self._runner.score_batch(calls)]
        else:
            settled = [(self.compute_score(**call), False) for call in calls]
        from_python = dict(zip(python, settled, strict=True))
        for i, (sample, native) in enumerate(zip(samples, natives, strict=True)):
            result, failed = from_python.get(i, (native.result, False))
            score, info = self._scorer.outcome(result, native.format_score, sample.data_source, native.code, failed)
            reward_tensor[i, valid_lengths[i] - 1] = score
            for key, value in info.items():
                reward_extra_info[key].append(value)
            if examined[sample.data_source] < self.num_examine:
                examined[sample.data_source] += 1
                print("[response]", native.text)
                print("[ground_truth]", sample.ground_truth)
                print("[score]", score)

        if return_dict:
            return {"reward_tensor": reward_tensor, "reward_extra_info": reward_extra_info}
        return reward_tensor

    @staticmethod
    def _extra_info(data: DataProto, extra_infos: Any, i: int) -> dict[str, Any]:
        """Sample ``i``'s ``extra_info`` as verl's naive manager builds it."""
        extra_info = dict(extra_infos[i] or {}) if extra_infos is not None else {}
        extra_info["num_turns"] = data.non_tensor_batch["__num_turns__"][i] \
            if "__num_turns__" in data.non_tensor_batch else None
        extra_info["rollout_reward_scores"] = data.non_tensor_batch["reward_scores"][i] \
            if "reward_scores" in data.non_tensor_batch else {}
        return extra_info
