"""The user's Python reward functions: how they are declared, loaded, checked and combined.

A function is declared in ``reward.reward_kwargs.functions`` as ``{path, name, weight, timeout_s, kind,
label, kwargs}``, or is verl's ``custom_reward_function`` (then it is the one function, weight 1). It is
called as verl calls a reward function: keyword arguments ``data_source``, ``solution_str``,
``ground_truth``, ``extra_info`` (plus its ``kwargs``), and returns a number or a dict with ``"score"``.

Where it runs (``kind``): ``process`` (a pool of forkserver processes, for CPU-bound synchronous code),
``thread`` (threads, for synchronous code that releases the GIL or waits on I/O), ``async`` (coroutine
functions, gathered on the event loop), or ``auto`` (``async`` for a coroutine function, else ``process``).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import math
import numbers
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verl_ext.exceptions import ConfigError

__all__ = ["KINDS", "FunctionSpec", "combine", "load_function", "normalized", "resolve_kind", "score_of",
           "specs_from_config"]

KINDS = ("auto", "process", "thread", "async")
#: The arguments verl passes to every reward function.
VERL_ARGUMENTS = ("data_source", "solution_str", "ground_truth", "extra_info")
DEFAULT_TIMEOUT_S = 60.0
_FIELDS = ("path", "name", "weight", "timeout_s", "kind", "label", "kwargs")


@dataclass(frozen=True)
class FunctionSpec:
    """One reward function: where it is, how much it weighs, how long a call may take, where it runs."""

    path: str
    name: str = "compute_score"
    weight: float = 1.0
    timeout_s: float = DEFAULT_TIMEOUT_S
    kind: str = "auto"
    #: Its key in ``reward_extra_info`` (default: ``name``); distinct across the functions of a run.
    label: str = ""
    #: Extra keyword arguments of every call (as ``custom_reward_function.reward_kwargs``).
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.name)

    @classmethod
    def from_mapping(cls, value: Any, where: str) -> FunctionSpec:
        """Validate one entry of ``reward_kwargs.functions`` (``where`` names it in errors)."""
        if not isinstance(value, Mapping):
            raise ConfigError(where, f"expected a mapping with keys {list(_FIELDS)}, got {value!r}")
        unknown = sorted(str(k) for k in value if k not in _FIELDS)
        if unknown:
            raise ConfigError(f"{where}.{unknown[0]}", f"unknown key; allowed keys: {', '.join(_FIELDS)}")
        path = value.get("path")
        if not isinstance(path, str) or not path.strip():
            raise ConfigError(f"{where}.path", f"required: a .py file or a module name, got {path!r}")
        name = value.get("name", "compute_score")
        if not isinstance(name, str) or not name.isidentifier():
            raise ConfigError(f"{where}.name", f"expected a function name, got {name!r}")
        weight = _number(value.get("weight", 1.0), f"{where}.weight")
        timeout = _number(value.get("timeout_s", DEFAULT_TIMEOUT_S), f"{where}.timeout_s")
        if timeout <= 0:
            raise ConfigError(f"{where}.timeout_s", f"expected seconds > 0, got {timeout}")
        kind = value.get("kind", "auto")
        if kind not in KINDS:
            raise ConfigError(f"{where}.kind", f"expected one of {', '.join(KINDS)}, got {kind!r}")
        label = value.get("label") or name
        if not isinstance(label, str):
            raise ConfigError(f"{where}.label", f"expected a string, got {label!r}")
        kwargs = value.get("kwargs") or {}
        if not isinstance(kwargs, Mapping) or not all(isinstance(k, str) for k in kwargs):
            raise ConfigError(f"{where}.kwargs", f"expected a mapping of keyword arguments, got {kwargs!r}")
        return cls(path=path.strip(), name=name, weight=weight, timeout_s=timeout, kind=kind, label=label,
                   kwargs=_plain(kwargs))


def _number(value: Any, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ConfigError(key, f"expected a number, got {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise ConfigError(key, f"expected a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ConfigError(key, f"expected a finite number, got {value!r}")
    return number


def _plain(value: Any) -> Any:
    """OmegaConf containers as plain dicts and lists (they must pickle into worker processes)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):  # lists, tuples, OmegaConf's ListConfig
        return [_plain(v) for v in value]
    return value


def parse_functions(value: Any, key: str = "reward.reward_kwargs.functions") -> tuple[FunctionSpec, ...]:
    """The ``functions`` list: each entry validated, labels distinct."""
    if value is None:
        return ()
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        raise ConfigError(key, f"expected a list of {{path, name, ...}} entries, got {value!r}")
    entries = list(value)
    specs = tuple(FunctionSpec.from_mapping(v, f"{key}[{i}]") for i, v in enumerate(entries))
    _check_labels(specs, key)
    return specs


def _check_labels(specs: Sequence[FunctionSpec], key: str) -> None:
    seen: set[str] = set()
    for i, spec in enumerate(specs):
        if spec.label in seen or spec.label in RESERVED_LABELS:
            raise ConfigError(f"{key}[{i}].label", f"{spec.label!r} is already a reward_extra_info key; give each "
                              "function a distinct label")
        seen.add(spec.label)


#: reward_extra_info keys the manager itself sets (a function's label may not shadow them).
RESERVED_LABELS = frozenset({"score", "acc", "pred", "tests_passed", "tests_failed", "tests_timeout", "tests_error",
                             "format_score", "unscorable"})


def specs_from_config(custom_reward_function: Mapping[str, Any] | None, functions: Sequence[FunctionSpec],
                      ) -> tuple[FunctionSpec, ...]:
    """verl's ``custom_reward_function`` (weight 1, first) followed by ``reward_kwargs.functions``."""
    specs: list[FunctionSpec] = []
    custom = custom_reward_function or {}
    if custom.get("path"):
        name = custom.get("name") or "compute_score"
        entry = {"path": custom["path"], "name": name, "label": custom_label(name),
                 "kwargs": custom.get("reward_kwargs") or {}}
        specs.append(FunctionSpec.from_mapping(entry, "reward.custom_reward_function"))
    specs.extend(functions)
    _check_labels(specs, "reward.reward_kwargs.functions")
    return tuple(specs)


def custom_label(name: str) -> str:
    """The ``reward_extra_info`` key of verl's ``custom_reward_function``: its name, unless the manager uses it."""
    return "custom_reward_function" if name in RESERVED_LABELS else name


def _load_module(path: str) -> Any:
    """verl's module paths (``pkg://a.b`` or ``pkg://a/b``, ``file://x.py``, a file path) or a module name."""
    if path.startswith("pkg://"):
        return importlib.import_module(path[len("pkg://"):].replace("/", "."))
    path = path.removeprefix("file://")
    if path.endswith(".py") or "/" in path:
        file = Path(path).expanduser()
        if not file.is_file():
            raise FileNotFoundError(f"no such file: {file}")
        # One module per file, registered so that its objects pickle by reference in this process.
        module_name = "verl_ext_reward_fn_" + hashlib.sha256(str(file.resolve()).encode()).hexdigest()[:16]
        if module_name in sys.modules:
            return sys.modules[module_name]
        spec = importlib.util.spec_from_file_location(module_name, file)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {file} as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]
            raise
        return module
    return importlib.import_module(path)


def load_function(spec: FunctionSpec, where: str = "reward.reward_kwargs.functions") -> Callable[..., Any]:
    """Import ``spec``'s function (once per process) and check that verl's arguments bind to it.

    Raises :class:`~verl_ext.exceptions.ConfigError` naming ``where`` when the file or module does not
    import, the name is missing or not callable, the signature does not take verl's arguments and the
    configured ``kwargs``, or ``kind`` does not fit (``async`` needs a coroutine function, ``process``
    and ``thread`` a plain one).
    """
    try:
        module = _load_module(spec.path)
    except Exception as e:  # whatever the user's module raises on import is a config error
        raise ConfigError(f"{where}.path", f"cannot import {spec.path!r}: {type(e).__name__}: {e}") from e
    fn = getattr(module, spec.name, None)
    if fn is None or not callable(fn):
        raise ConfigError(f"{where}.name", f"{spec.path!r} has no function {spec.name!r}")
    try:
        inspect.signature(fn).bind(**dict.fromkeys(VERL_ARGUMENTS), **spec.kwargs)
    except TypeError as e:
        raise ConfigError(f"{where}.name", f"{spec.name}{_signature(fn)} cannot be called with verl's arguments "
                          f"({', '.join(VERL_ARGUMENTS)}) and kwargs {sorted(spec.kwargs)}: {e}") from None
    except ValueError:  # no signature (a builtin): trust it
        pass
    resolve_kind(spec, fn, where)
    return fn


def _signature(fn: Callable[..., Any]) -> str:
    try:
        return str(inspect.signature(fn))
    except (TypeError, ValueError):
        return "(...)"


def resolve_kind(spec: FunctionSpec, fn: Callable[..., Any], where: str = "reward.reward_kwargs.functions") -> str:
    """Where ``fn`` runs: ``spec.kind``, with ``auto`` resolved by whether ``fn`` is a coroutine function."""
    is_async = inspect.iscoroutinefunction(fn)
    if spec.kind == "auto":
        return "async" if is_async else "process"
    if (spec.kind == "async") != is_async:
        wanted = "a coroutine function (async def)" if spec.kind == "async" else "a plain (not async) function"
        raise ConfigError(f"{where}.kind", f"kind={spec.kind} needs {wanted}; {spec.name} is "
                          f"{'async' if is_async else 'not async'} (use kind=auto)")
    return spec.kind


def combine(specs: Sequence[FunctionSpec], results: Sequence[Any]) -> Any:
    """One sample's result from its functions' results (a number or a dict with ``score`` each).

    A single function of weight 1 passes its result through unchanged (verl's meaning of a custom
    reward function). Otherwise the result is a dict: ``score`` is the weighted sum, each function's
    score sits under its label, and the other keys of dict results are kept (the first function's win).
    """
    if len(specs) == 1 and specs[0].weight == 1.0:
        return results[0]
    out: dict[str, Any] = {}
    total = 0.0
    for spec, result in zip(specs, results, strict=True):
        score = score_of(result)
        out[spec.label] = score
        total += spec.weight * score
        if isinstance(result, Mapping):
            for k, v in result.items():
                if k != "score" and k not in out:
                    out[k] = v
    out["score"] = total
    return out


def score_of(result: Any) -> float:
    """The finite float a reward function's result stands for (``result["score"]`` of a dict).

    Numbers, bools and numpy scalars count; strings, ``Decimal``, NaN, infinities and anything else raise
    ``TypeError`` or ``ValueError`` (a huge int ``OverflowError``)."""
    value: Any = result.get("score") if isinstance(result, Mapping) else result
    if not (isinstance(value, numbers.Real) or type(value).__module__ == "numpy"):
        raise TypeError(f"a reward function returned {type(result).__name__} {str(result)[:80]!r}; expected a "
                        "number or a dict with a numeric 'score'")
    score = float(value)
    if not math.isfinite(score):
        raise ValueError(f"a reward function returned the score {score}; expected a finite number")
    return score


def normalized(result: Any) -> Any:
    """A reward function's result with its score as a plain float: a float, or a new dict (the function's
    own dict may be reused by its next call)."""
    score = score_of(result)
    if isinstance(result, Mapping):
        return {**result, "score": score}
    return score
