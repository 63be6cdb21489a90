"""The ``reward.reward_kwargs`` options of the ``verl_ext`` reward managers, as a typed config.

``RewardKwargs`` is an OmegaConf structured config: a user's ``reward_kwargs`` is merged into it, so an
unknown key (``format_wieght``) or a value of the wrong type (``format_weight=abc``) is rejected with a
:class:`~verl_ext.exceptions.ConfigError` naming the key and what it accepts, when the manager is built
and by ``verl-ext doctor --config`` before anything starts. ``ManagerOptions`` is the validated result the
managers use.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from verl_ext.exceptions import ConfigError, InvalidInputError, VerlExtError
from verl_ext.reward.format import DEFAULT_TAGS, FormatReward
from verl_ext.reward.functions import FunctionSpec, parse_functions
from verl_ext.sandbox import MAX_TIMEOUT_S, Limits

__all__ = ["BASE_EXTRA_KEYS", "CODE_KEYS", "CodeTimeouts", "ManagerOptions", "RewardKwargs", "parse_reward_kwargs"]

PREFIX = "reward.reward_kwargs"
ON_ERROR = ("zero", "raise")
#: Per-test counts of code samples (0 for other samples, so every sample has the same keys).
CODE_KEYS = ("tests_passed", "tests_failed", "tests_timeout", "tests_error")
#: ``unscorable`` is 1 for a sample whose scoring failed (it got the defined score 0.0), else 0: its batch
#: mean is the failed fraction, its sum the count.
BASE_EXTRA_KEYS = ("score", "acc", "pred", *CODE_KEYS, "unscorable")


@dataclass
class RewardKwargs:
    """Schema of ``reward.reward_kwargs`` (defaults as documented in the README's options table)."""

    format_weight: float = 0.0
    #: A list of tag names, or a comma-separated string.
    format_tags: Any = field(default_factory=lambda: list(DEFAULT_TAGS))
    num_threads: int = 0
    on_error: str = "zero"
    extra_info_keys: list[str] = field(default_factory=list)
    #: Unset, ``all``, a list of data source names or a comma-separated string.
    native_sources: Any = None
    numina_math_verify: bool = False
    code_memory_mb: int = 1024
    #: prime_code's alarms (all tests in one run, then each failing test alone) and the assert-based
    #: sources' limit, in seconds. Rewards equal verl's only at the defaults.
    code_timeout_s: float = 5.0
    code_test_timeout_s: float = 10.0
    code_assert_timeout_s: float = 5.0
    #: The user's reward functions: a list of ``{path, name, weight, timeout_s, kind, label, kwargs}``.
    functions: Any = None
    #: Processes of the pool running ``process`` functions (0: cores / ``reward.num_workers``).
    function_processes: int = 0
    #: Threads running ``thread`` functions (0: 4 x cores).
    function_threads: int = 0
    #: Calls of ``async`` functions in flight at once, per reward worker (0: no bound, as verl's naive manager,
    #: which awaits every sample of a batch at once; a judge behind a rate limit sets one).
    function_concurrency: int = 0
    #: Score identical (data_source, response, ground truth) in flight once (GRPO groups repeat answers).
    dedup: bool = True


#: prime_code kills the test process `timeout + 1` seconds after start.
PROCESS_SLACK_S = 1


@dataclass(frozen=True)
class CodeTimeouts:
    """Wall-clock limits of sandboxed code rewards, in seconds (prime_code's at the defaults). The prime_code
    alarms may be at most the sandbox's limit less :data:`PROCESS_SLACK_S` (their run is killed that much
    after them), the assert limit the sandbox's own: a value the sandbox would refuse for every run raises
    :class:`~verl_ext.exceptions.InvalidInputError` here, not a 0 for every sample later."""

    first_pass_s: float = 5.0
    per_test_s: float = 10.0
    assert_s: float = 5.0

    def __post_init__(self) -> None:
        for name, most in (("first_pass_s", MAX_TIMEOUT_S - PROCESS_SLACK_S),
                           ("per_test_s", MAX_TIMEOUT_S - PROCESS_SLACK_S), ("assert_s", MAX_TIMEOUT_S)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= most:
                raise InvalidInputError(f"CodeTimeouts.{name} must be seconds in (0, {most}], got {value!r}")


@dataclass(frozen=True)
class ManagerOptions:
    """The validated ``reward.reward_kwargs`` of the verl-ext managers (see :class:`RewardKwargs`)."""

    format: FormatReward = field(default_factory=FormatReward)
    num_threads: int = 0
    on_error: str = "zero"
    extra_info_keys: tuple[str, ...] = ()
    code_limits: Limits = field(default_factory=Limits)
    code_timeouts: CodeTimeouts = field(default_factory=CodeTimeouts)
    numina_math_verify: bool = False
    #: ``None``: unset; ``"all"``; or the data sources scored natively.
    native_sources: frozenset[str] | str | None = None
    #: ``reward_kwargs.functions`` (a ``custom_reward_function`` is added by the manager).
    functions: tuple[FunctionSpec, ...] = ()
    function_processes: int = 0
    function_threads: int = 0
    function_concurrency: int = 0
    dedup: bool = True
    #: Python reward functions are configured (then they score what ``native_sources`` leaves).
    custom_function: bool = False
    #: ``reward_extra_info`` keys of the functions' own scores (set by the manager when there are several).
    function_labels: tuple[str, ...] = ()

    @classmethod
    def from_reward_kwargs(cls, reward_kwargs: Mapping[str, Any] | None) -> ManagerOptions:
        """Validate ``reward.reward_kwargs``; raises :class:`ConfigError` naming the offending key."""
        kw = parse_reward_kwargs(reward_kwargs)
        tags = _tags(kw.format_tags)
        try:
            fmt = FormatReward(weight=kw.format_weight, tags=tags)
        except VerlExtError as e:
            raise ConfigError(f"{PREFIX}.format_tags", str(e)) from None
        functions = parse_functions(kw.functions, f"{PREFIX}.functions")
        return cls(
            format=fmt,
            num_threads=kw.num_threads,
            on_error=kw.on_error,
            extra_info_keys=tuple(kw.extra_info_keys),
            code_limits=Limits(memory_mb=kw.code_memory_mb),
            code_timeouts=CodeTimeouts(kw.code_timeout_s, kw.code_test_timeout_s, kw.code_assert_timeout_s),
            numina_math_verify=kw.numina_math_verify,
            native_sources=_native_sources(kw.native_sources),
            functions=functions,
            function_processes=kw.function_processes,
            function_threads=kw.function_threads,
            function_concurrency=kw.function_concurrency,
            dedup=kw.dedup,
            custom_function=bool(functions),
        )

    def with_custom_function(self, custom: bool) -> ManagerOptions:
        return replace(self, custom_function=custom or bool(self.functions))

    def is_native(self, data_source: str) -> bool:
        """Does verl-ext score this source itself (if it can), rather than the Python functions?"""
        if self.native_sources == "all":
            return True
        if isinstance(self.native_sources, frozenset):
            return data_source in self.native_sources
        return not self.custom_function

    def native_source(self, data_source: Any) -> str:
        """The data source name handed to the Rust core ("" routes a source to the Python functions)."""
        if not isinstance(data_source, str) or not self.is_native(data_source):
            return ""
        if self.numina_math_verify and data_source.startswith("numina_"):
            return "math_verify"
        return data_source

    @property
    def extra_keys(self) -> tuple[str, ...]:
        fmt = ("format_score",) if self.format.enabled else ()
        own = BASE_EXTRA_KEYS + fmt
        return own + tuple(dict.fromkeys(k for k in (*self.function_labels, *self.extra_info_keys) if k not in own))

    def process_count(self, reward_workers: int = 1) -> int:
        """Processes of this worker's function pool: the option, else the cores shared by the reward workers."""
        if self.function_processes:
            return self.function_processes
        return max(1, (os.cpu_count() or 1) // max(1, reward_workers))

    def thread_count(self) -> int:
        """Thread slots for ``thread`` functions: the option, else 4 x cores (they mostly wait on I/O)."""
        return self.function_threads or 4 * (os.cpu_count() or 1)


def parse_reward_kwargs(reward_kwargs: Mapping[str, Any] | None) -> RewardKwargs:
    """``reward_kwargs`` merged into :class:`RewardKwargs`, type-checked and range-checked."""
    from omegaconf import OmegaConf
    from omegaconf.errors import ConfigKeyError, OmegaConfBaseException

    given = dict(reward_kwargs or {})
    names = [f.name for f in fields(RewardKwargs)]
    for key in given:
        if key not in names:
            close = difflib.get_close_matches(str(key), names, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ConfigError(f"{PREFIX}.{key}", f"unknown option; {hint}options: {', '.join(names)}")
    try:
        merged = OmegaConf.merge(OmegaConf.structured(RewardKwargs), OmegaConf.create(given))
        kw = OmegaConf.to_object(merged)
    except ConfigKeyError as e:  # pragma: no cover - unknown keys are caught above
        raise ConfigError(f"{PREFIX}.{e.key}", str(e)) from None
    except OmegaConfBaseException as e:
        key = getattr(e, "full_key", None) or getattr(e, "key", None) or "?"
        field_type = _EXPECTED.get(str({f.name: f.type for f in fields(RewardKwargs)}.get(str(key).split(".")[0])),
                                   "a value of its type")
        value = given.get(str(key).split(".")[0])
        raise ConfigError(f"{PREFIX}.{key}", f"expected {field_type}, got {value!r}") from None
    assert isinstance(kw, RewardKwargs)
    _check(kw)
    return kw


_EXPECTED = {"float": "a number", "int": "an integer", "bool": "true or false", "str": "a string",
             "list[str]": "a list of strings"}


def _check(kw: RewardKwargs) -> None:
    if kw.on_error not in ON_ERROR:
        raise ConfigError(f"{PREFIX}.on_error", f"expected one of {', '.join(ON_ERROR)}, got {kw.on_error!r}")
    for name in ("num_threads", "function_processes", "function_threads"):
        if getattr(kw, name) < 0:
            raise ConfigError(f"{PREFIX}.{name}", f"expected an integer >= 0 (0: automatic), got {getattr(kw, name)}")
    if kw.function_concurrency < 0:
        raise ConfigError(f"{PREFIX}.function_concurrency",
                          f"expected an integer >= 0 (0: no bound), got {kw.function_concurrency}")
    if kw.code_memory_mb < 16:
        raise ConfigError(f"{PREFIX}.code_memory_mb", f"expected at least 16 (MB), got {kw.code_memory_mb}")
    # The prime_code alarms' runs are killed PROCESS_SLACK_S after them, within the sandbox's own limit.
    alarms = MAX_TIMEOUT_S - PROCESS_SLACK_S
    for name, most in (("code_timeout_s", alarms), ("code_test_timeout_s", alarms),
                       ("code_assert_timeout_s", MAX_TIMEOUT_S)):
        value = getattr(kw, name)
        if not 0 < value <= most:
            raise ConfigError(f"{PREFIX}.{name}", f"expected seconds in (0, {most}], got {value}")
    if kw.format_weight != kw.format_weight or abs(kw.format_weight) == float("inf"):
        raise ConfigError(f"{PREFIX}.format_weight", f"expected a finite number, got {kw.format_weight}")


def _tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(t.strip() for t in value.split(",") if t.strip())
    if isinstance(value, Sequence) and all(isinstance(t, str) for t in value):
        return tuple(value)
    raise ConfigError(f"{PREFIX}.format_tags", f"expected a list of tag names or a comma-separated string, "
                      f"got {value!r}")


def _native_sources(value: Any) -> frozenset[str] | str | None:
    if value is None:
        return None
    if isinstance(value, str):
        if value.strip() == "all":
            return "all"
        value = [v for v in (p.strip() for p in value.split(",")) if v]
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        if "all" in value:  # [all] means all; all beside names is a mistake, not a source named "all"
            if len(value) == 1:
                return "all"
            raise ConfigError(f"{PREFIX}.native_sources", f"'all' or a list of data source names, not both: {value!r}")
        return frozenset(value)
    raise ConfigError(f"{PREFIX}.native_sources", f"expected 'all' or a list of data source names, got {value!r}")
