# Hand-kept stubs of the compiled module verl_ext._core (checked by mypy.stubtest in ci/test).
from collections.abc import Iterable
from os import PathLike
from typing import Any, final

__all__ = [
    "FormatSpec",
    "__version__",
    "_zygote_serve",
    "default_num_threads",
    "default_sandbox_threads",
    "math_equal_batch",
    "math_verify_batch",
    "native_scorer",
    "sandbox_cancel_running",
    "sandbox_epoch",
    "sandbox_live_zygotes",
    "sandbox_probe",
    "sandbox_run_many",
    "sandbox_shutdown",
    "score_batch",
]

__version__: str

@final
class FormatSpec:
    def __new__(cls, tags: list[str]) -> FormatSpec: ...
    @property
    def tags(self) -> list[str]: ...
    def score(self, response: object) -> float: ...

def score_batch(
    data_sources: Iterable[object],
    solution_strs: Iterable[object],
    ground_truths: Iterable[object],
    format_spec: FormatSpec | None = None,
    num_threads: int = 0,
) -> tuple[list[Any], list[float] | None]: ...
def native_scorer(data_source: str) -> str | None: ...
def default_num_threads() -> int: ...
def math_equal_batch(
    predictions: list[str],
    references: list[str],
    num_threads: int = 0,
    float_rounding: int | None = None,
    strict: bool = True,
    allow_set_relation_comp: bool = False,
) -> list[tuple[bool, str]]: ...
def math_verify_batch(
    solutions: list[str],
    ground_truths: list[str],
    num_threads: int = 0,
    float_rounding: int | None = None,
    strict: bool = True,
    allow_set_relation_comp: bool = False,
    extraction: list[str] = ...,
    choices: str = ...,
) -> list[tuple[float, str | None, str]]: ...
def sandbox_run_many(
    requests: list[tuple[list[str], list[tuple[str, str]], bytes, bytes]],
    *,
    timeout_s: float,
    memory_mb: int,
    output_limit: int,
    channel_limit: int,
    scratch_mb: int,
    max_processes: int,
    max_open_files: int,
    max_file_mb: int,
    read_only_paths: list[str] | list[PathLike[str]],
    num_threads: int = 0,
    start: str = "cold",
    mapped_paths: list[tuple[str, str]] = ...,
    channel_limits: list[int] | None = None,
    epoch: int | None = None,
) -> list[dict[str, Any] | BaseException]: ...
def sandbox_probe(argv: list[str], read_only_paths: list[str] | list[PathLike[str]]) -> dict[str, Any]: ...
def sandbox_cancel_running(closing: bool = False) -> None: ...
def sandbox_epoch() -> int: ...
def sandbox_shutdown() -> None: ...
def default_sandbox_threads() -> int: ...
def sandbox_live_zygotes() -> int: ...
def _zygote_serve(control: int) -> None: ...
