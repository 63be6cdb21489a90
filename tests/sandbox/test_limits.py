"""The sandbox API refuses bad limits and inputs with InvalidInputError naming the field (issue #13, item 8),
before anything starts."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verl_ext import sandbox
from verl_ext.exceptions import InvalidInputError

INT_FIELDS = ("memory_mb", "output_limit", "channel_limit", "scratch_mb", "max_processes", "max_open_files",
              "max_file_mb")


@pytest.mark.parametrize("field", INT_FIELDS)
@pytest.mark.parametrize("value", [math.nan, math.inf, 2**64, -1, 0, 2**40, True, "64", None, 1.5])
def test_bad_integer_limits_name_the_field(field: str, value: Any) -> None:
    with pytest.raises(InvalidInputError, match=field):
        sandbox.Limits(**{field: value})


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 0, -1, 3601, 2**64, True, "5", None])
def test_bad_timeouts_name_the_field(value: Any) -> None:
    with pytest.raises(InvalidInputError, match="timeout_s"):
        sandbox.Limits(timeout_s=value)


@given(data=st.data(), field=st.sampled_from(INT_FIELDS))
def test_limits_up_to_their_ceiling_are_accepted(data: st.DataObject, field: str) -> None:
    floor = sandbox.LIMIT_FLOORS.get(field, 1)
    value = data.draw(st.integers(min_value=floor, max_value=sandbox.LIMIT_CEILINGS[field]))
    assert getattr(sandbox.Limits(**{field: value}), field) == value
    with pytest.raises(InvalidInputError, match=field):
        sandbox.Limits(**{field: sandbox.LIMIT_CEILINGS[field] + 1})


@pytest.mark.parametrize("value", [1, 5, 15])
def test_too_few_open_files_to_start_is_refused(value: int) -> None:
    # Below the floor every run failed in set-up with a SandboxError about inherited descriptors.
    with pytest.raises(InvalidInputError, match="max_open_files"):
        sandbox.Limits(max_open_files=value)


def test_scratch_cannot_exceed_its_ceiling() -> None:
    # A tmpfs is host memory outside RLIMIT_AS: 2**40 MiB must not be accepted as "no limit".
    with pytest.raises(InvalidInputError, match="scratch_mb"):
        sandbox.Limits(scratch_mb=2**40)


@pytest.mark.parametrize("codes", ["ab", b"ab", 5, None])
def test_run_many_refuses_a_bare_string_or_non_sequence(codes: Any) -> None:
    with pytest.raises(InvalidInputError, match="codes"):
        sandbox.run_many(codes)


@pytest.mark.parametrize("stdins", ["ab", b"ab"])
def test_run_many_refuses_a_bare_string_of_stdins(stdins: Any) -> None:
    with pytest.raises(InvalidInputError, match="stdins"):
        sandbox.run_many(["pass", "pass"], stdins)


@pytest.mark.parametrize("stdin", [10**9, None, 1.0, ["x"]])
def test_run_many_refuses_stdin_of_other_types(stdin: Any) -> None:
    # bytes(10**9) would allocate a gigabyte of zeros before failing anywhere else.
    with pytest.raises(InvalidInputError, match=r"stdins\[0\]"):
        sandbox.run_many(["pass"], [stdin])


class _Lying(int):
    """An int that says yes to every range check."""

    def __lt__(self, other: object) -> bool:
        return False

    def __gt__(self, other: object) -> bool:
        return False

    def __le__(self, other: object) -> bool:
        return True

    def __ge__(self, other: object) -> bool:
        return True


@pytest.mark.parametrize("field", ["memory_mb", "output_limit", "max_processes", "timeout_s"])
def test_int_subclasses_are_checked_by_their_value(field: str) -> None:
    with pytest.raises(InvalidInputError, match=field):
        sandbox.Limits(**{field: _Lying(10**30)})
    kept = sandbox.Limits(**{field: _Lying(64)})
    assert type(getattr(kept, field)) in (int, float) and getattr(kept, field) == 64


@pytest.mark.parametrize("threads", [10**30, -1, _Lying(10**30), 2.0, True, "2"])
def test_bad_thread_counts_are_invalid_input(threads: Any) -> None:
    with pytest.raises(InvalidInputError, match="num_threads"):
        sandbox.run_many(["print(1)"], num_threads=threads)
