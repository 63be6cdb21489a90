"""A worker's result as the trainer rebuilds it: plain data comes back as it was, and no message, whatever its
bytes, costs the trainer more than work in proportion to its size (reward-path red team 4)."""

from __future__ import annotations

import collections
import contextlib
import decimal
import fractions
import io
import pickle
import time
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from verl_ext.reward import plain_data
from verl_ext.reward.plain_data import MAX_DEPTH, MAX_HASHED_ITEMS, MAX_NODES, dumps, loads

#: Integers that all hash to 0 (Python hashes ints modulo the Mersenne prime 2**61 - 1).
COLLIDING = [k * ((1 << 61) - 1) for k in range(1, MAX_HASHED_ITEMS + 2)]


class _Reduce:
    """Pickles as ``call(*args)``: what a function's own ``__reduce__`` makes the trainer run."""

    def __init__(self, call: Any, *args: Any) -> None:
        self.call, self.args = call, args

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return self.call, self.args


def _body(obj: Any) -> bytes:
    """``obj``'s pickle opcodes, without the protocol header and the final STOP (protocol 2: no frames)."""
    return pickle.dumps(obj, 2)[2:-1]


def _set_of(*items: Any) -> bytes:
    """A pickle that inserts ``items`` into a set one by one (EMPTY_SET, MARK, items, ADDITEMS): no pickler
    would write it for items that cannot be hashed cheaply, but a worker can send any bytes."""
    return b"\x80\x04\x8f(" + b"".join(_body(i) for i in items) + b"\x90."


def _sent(obj: Any) -> bytes:
    """``obj`` as a worker's pickler writes it, without the worker's own check of its shape (a hostile worker
    can send any bytes): what the trainer must refuse by itself."""
    buffer = io.BytesIO()
    plain_data._Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buffer.getvalue()


def _same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


keys = st.one_of(st.text(max_size=8), st.integers(-(1 << 70), 1 << 70), st.booleans(), st.none(),
                 st.floats(allow_nan=False), st.tuples(st.integers(), st.text(max_size=4)))
atoms = st.one_of(
    st.none(), st.booleans(), st.integers(-(1 << 1023) + 1, (1 << 1023) - 1), st.floats(allow_nan=False),
    st.text(max_size=20), st.binary(max_size=20), st.complex_numbers(allow_nan=False),
    st.decimals(-(10**30), 10**30, places=10), st.fractions(-(10**30), 10**30, max_denominator=10**30),
    st.builds(bytearray, st.binary(max_size=8)),
    st.sampled_from([np.float64(0.25), np.float32(-1.5), np.int64(3), np.uint8(7), np.bool_(True)]),
    st.builds(lambda n, t: np.arange(n, dtype=t), st.integers(0, 20), st.sampled_from(["f8", "i4", "c16", "u1"])))
values = st.recursive(atoms, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.tuples(inner, inner), st.dictionaries(keys, inner, max_size=5),
    st.frozensets(keys, max_size=5), st.sets(keys, max_size=5),
    st.builds(collections.OrderedDict, st.dictionaries(st.text(max_size=4), inner, max_size=3)),
    st.builds(lambda d: collections.defaultdict(list, d), st.dictionaries(st.text(max_size=4), inner, max_size=3))),
    max_leaves=30)


@given(values)
def test_plain_data_comes_back_as_it_was(value: Any) -> None:
    assert _same(loads(dumps(value)), value)


def test_other_arrays_come_back_as_their_lists_and_foreign_factories_as_dicts() -> None:
    assert loads(dumps(np.array(["a", 1], dtype=object))) == ["a", 1]
    assert loads(dumps(np.zeros(2, dtype=[("x", "i4")]))) == [(0,), (0,)]
    got = loads(dumps(collections.defaultdict(lambda: 0, {"a": 1})))
    assert type(got) is dict and got == {"a": 1}
    strided = np.arange(6.0).reshape(2, 3)[:, ::2]
    assert _same(loads(dumps(strided)), np.ascontiguousarray(strided))


@pytest.mark.parametrize("hostile", [
    _Reduce(fractions.Fraction, "1e20000000"),  # 40 bytes; a 66-million-bit integer to build
    _Reduce(set, COLLIDING),  # a hash table of keys sharing one hash, built by set()
    _Reduce(np._core.multiarray._reconstruct, np.ndarray, (10**9,), np.dtype("O")),  # 8 GB of empty slots
    _Reduce(time.sleep, 5), _Reduce(int, "9" * 4000), _Reduce(getattr, np.ndarray, "__new__"),
    _Reduce(plain_data._fraction, 1 << 20_000, 3), _Reduce(plain_data._fraction, "1e20000000", 1),
    _Reduce(plain_data._decimal, "1" * 20_000), _Reduce(plain_data._complex, "1e99999", 0.0),
    _Reduce(plain_data._defaultdict, "os.system"), _Reduce(plain_data._ordered_dict, [(1, 2)]),
    _Reduce(plain_data._np_array, "|O8", (10**9,), b""), _Reduce(plain_data._np_array, "<f8", (10**9,), b"\0" * 8),
    _Reduce(plain_data._np_array, "<f8", (-1, -8), b"\0" * 64), _Reduce(plain_data._np_scalar, "<f8", b"\0"),
    _Reduce(plain_data._np_array, "<f8", tuple([1] * 40), b"\0" * 8),
])
def test_rebuilds_the_message_did_not_pay_for_are_refused(hostile: Any) -> None:
    started = time.monotonic()
    with pytest.raises(pickle.UnpicklingError):
        loads(pickle.dumps({"score": 1.0, "pred": hostile}))
    assert time.monotonic() - started < 5  # each was seconds, hours or gigabytes before (10x margin)


def test_keys_sharing_one_hash_are_counted() -> None:
    """Inserting n keys of one hash costs n**2 / 2 probes: a message holds at most MAX_HASHED_ITEMS."""
    started = time.monotonic()
    assert len(loads(_set_of(*COLLIDING[:MAX_HASHED_ITEMS]))) == MAX_HASHED_ITEMS
    assert time.monotonic() - started < 10  # ~20 ms alone (the 40,000 of red team 4 took 10 s)
    with pytest.raises(pickle.UnpicklingError, match="dict keys and set items"):
        loads(_set_of(*COLLIDING))
    pairs = b"".join(_body(k) + b"N" for k in COLLIDING)
    for opcode in (b"}(" + pairs + b"u.", b"(" + pairs + b"d."):  # SETITEMS, DICT
        with pytest.raises(pickle.UnpicklingError, match="dict keys and set items"):
            loads(b"\x80\x04" + opcode)


def test_keys_are_small_values() -> None:
    """Hashing a tuple walks all it reaches: 64 tuples each holding the one below twice are 2**64 values."""
    deep: Any = (1,)
    for _ in range(64):
        deep = (deep, deep)
    for key in (deep, 1 << 5000, [1], {"a": 1}, (1, [2])):
        started = time.monotonic()
        with pytest.raises(pickle.UnpicklingError, match="dict key or set item"):
            loads(_set_of(key))
        assert time.monotonic() - started < 5
    assert loads(_set_of((1, 2, ("a", None)), 1 << 1000, 2.5, "x" * 10_000)) == {
        (1, 2, ("a", None)), 1 << 1000, 2.5, "x" * 10_000}


def test_shapes_that_blow_up_in_whatever_reads_them_are_refused() -> None:
    shared: Any = [1]
    for _ in range(64):
        shared = [shared, shared]  # 2**64 values to repr, json.dumps or np.array
    looped: list[Any] = []
    looped.append(looped)
    deep: Any = 0
    for _ in range(MAX_DEPTH + 1):
        deep = [deep]
    for value, why in ((shared, "values"), (looped, "cycle"), (deep, "deep"), ({"a": deep}, "deep")):
        with pytest.raises(pickle.UnpicklingError, match=why):
            loads(pickle.dumps(value))
    # A shared part reached below another one, deep only in sum.
    half: Any = 0
    for _ in range(MAX_DEPTH // 2 + 1):
        half = [half]
    with pytest.raises(pickle.UnpicklingError, match="deep"):
        loads(pickle.dumps([half, [[half]] * 2, _nest(half, MAX_DEPTH // 2)]))
    part = [1, [2, 3]]
    assert loads(pickle.dumps([part] * 8)) == [[1, [2, 3]]] * 8  # shared parts within bounds are fine
    assert len(loads(pickle.dumps(list(range(MAX_NODES - 1))))) == MAX_NODES - 1


def _nest(value: Any, times: int) -> Any:
    for _ in range(times):
        value = [value]
    return value


@pytest.mark.parametrize("opcode", [b"b", b"\x81", b"\x92", b"o", b"i", b"P", b"Q", b"\x82", b"\x83", b"\x84"])
def test_opcodes_that_build_instances_are_refused(opcode: bytes) -> None:
    """BUILD would set the attributes of what is below it (an OrderedDict the rules allow, here), NEWOBJ/OBJ/INST
    call a class, extensions and persistent ids name objects outside the message."""
    ordered = dumps(collections.OrderedDict())[:-1]  # without its STOP
    with pytest.raises(pickle.UnpicklingError, match="opcode"):
        loads(ordered + b"}" + opcode + b"\x00\x00\x00\x00.")


@given(st.binary(max_size=200))
def test_any_bytes_load_or_raise_unpickling_error(data: bytes) -> None:
    with contextlib.suppress(pickle.UnpicklingError):
        loads(data)


@given(values, st.integers(0, 300), st.binary(min_size=1, max_size=4))
def test_damaged_messages_load_or_raise_unpickling_error(value: Any, at: int, junk: bytes) -> None:
    data = dumps(value)
    at %= len(data)
    for damaged in (data[:at], data[:at] + junk + data[at:], data[:at] + junk + data[at + len(junk):]):
        with contextlib.suppress(pickle.UnpicklingError):
            loads(damaged)


def test_a_message_of_the_largest_size_loads_in_proportion() -> None:
    message = dumps({"score": 1.0, "trace": list(range(200_000))})  # ~0.9 MB
    started = time.monotonic()
    assert len(loads(message)["trace"]) == 200_000
    assert time.monotonic() - started < 10  # ~0.15 s alone


def test_refusals_name_what_a_result_may_hold() -> None:
    with pytest.raises(pickle.UnpicklingError, match=r"it holds decimal\.Context.*plain data"):
        loads(pickle.dumps(decimal.Context()))


@pytest.mark.parametrize("value", [
    {decimal.Decimal("1"): 1}, {fractions.Fraction(1, 3)}, frozenset({decimal.Decimal("2.5")}),
    {(1, fractions.Fraction(1, 2)): 0},
])
def test_decimals_and_fractions_are_no_keys(value: Any) -> None:
    """Reward-path red team 5: 2048 Decimal and Fraction keys of one hash, each comparison of a Decimal with a
    Fraction of 14,300-bit terms ~0.25 ms, took 251 s to rebuild from 50 KB."""
    with pytest.raises(pickle.UnpicklingError, match="dict key or set item"):
        loads(dumps(value))


@pytest.mark.parametrize("value", [
    1 << 1023, -(1 << 14300), [1, {"acc": 1 << 5000}], fractions.Fraction((1 << 4000) + 1, 3),
    fractions.Fraction(1, 1 << 5000), decimal.Decimal("sNaN"), decimal.Decimal("-sNaN1"), decimal.Decimal("NaN"),
    decimal.Decimal("1e999999999"), decimal.Decimal("-1e-5000"), "\ud800", {"\udfff": 1},
], ids=["int-1024-bits", "int-14300-bits", "nested-int", "fraction-too-large", "fraction-terms", "snan", "snan1",
        "nan", "exponent", "negative-exponent", "surrogate", "surrogate-key"])
def test_numbers_that_do_not_print_or_convert_are_refused(value: Any) -> None:
    """Red team 5: ``{"acc": 1 << 14300}`` (1.8 KB) made verl's repr, json.dumps and np.mean raise; so did a Fraction
    just under the old 14,300-bit bound and a signalling NaN. Red team 23: a NaN Decimal raises when ordered,
    ``Decimal("1e999999999")`` formats as a gigabyte, a lone surrogate does not encode."""
    with pytest.raises(pickle.UnpicklingError):
        loads(_sent(value))


def test_the_worker_refuses_what_the_trainer_would_so_the_call_fails_as_raised() -> None:
    for value in (1 << 1023, [[np.zeros(1000)] * 100] * 30):
        with pytest.raises(ValueError, match=r"integer|bytes"):
            dumps({"score": 1.0, "v": value})


def test_numbers_at_the_bounds_print_and_convert() -> None:
    for value in ((1 << 1023) - 1, -(1 << 1023) + 1, fractions.Fraction((1 << 1020) + 1, 3),
                  fractions.Fraction(1, (1 << 4095) + 1), decimal.Decimal("1e4300"), decimal.Decimal("-1e-4300")):
        got = loads(dumps({"v": value}))["v"]
        assert repr(got) and float(got) == float(value)


def test_text_reached_many_times_is_counted_by_its_bytes() -> None:
    """Red team 5: a 900 KB string in a list reached 262,144 times was 0.9 MB to send and 236 GB to repr."""
    shared = [["x" * 100_000] * 256] * 64
    message = pickle.dumps({"score": 1.0, "pred": shared})
    assert len(message) < 120_000
    started = time.monotonic()
    with pytest.raises(pickle.UnpicklingError, match="bytes of text"):
        loads(message)
    assert time.monotonic() - started < 5
    array = np.zeros(1000)
    with pytest.raises(pickle.UnpicklingError, match="bytes of text"):
        loads(_sent([[array] * 100] * 30))  # 800 KB reached 3,000 times
    assert len(loads(dumps({"pred": "x" * 900_000}))["pred"]) == 900_000


def test_text_arrays_hold_unicode_characters_only() -> None:
    """Red team 23: a ``<U1`` array holding U+110000 loaded, then its repr raised SystemError."""
    message = dumps(np.array(["a"]))
    for point in (0x110000, 0xD800):
        with pytest.raises(pickle.UnpicklingError, match="no Unicode character"):
            loads(message.replace(b"a\0\0\0", point.to_bytes(4, "little")))
    assert loads(dumps(np.array(["h\u00e9llo", "\U0001f600"]))).tolist() == ["h\u00e9llo", "\U0001f600"]
