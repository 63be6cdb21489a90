"""A reward function's result on its way back from a worker process: pickled there, rebuilt here within bounds.

Unpickling runs what the message names, and the message is the function's to shape: its own ``__reduce__``,
or bytes it writes to the pipe itself. The trainer rebuilds it in its dispatcher threads with the GIL held, so
every step of the rebuild must cost work in proportion to the message (at most ``MAX_RESULT_BYTES``), and what
it returns must be safe for verl to log, copy and turn into arrays. Hence:

- the only classes named are this module's rebuilders (:data:`REBUILDERS`), each checking its arguments
  (``Fraction("1e20000000")`` or a numpy array of 10**9 empty objects are work or memory the message did not
  pay for); the worker's pickler (:func:`dumps`) writes ``complex``, ``Decimal``, ``Fraction``,
  ``OrderedDict``, ``defaultdict`` and numpy scalars and arrays through them, and everything else that is not
  built from pickle's own opcodes is refused;
- opcodes that set attributes or build instances (``BUILD``, ``NEWOBJ``, ``OBJ``, ``INST``, extensions,
  persistent ids) are refused;
- dict keys and set items are hashed as they are inserted: each must be a number (not a ``Decimal`` or
  ``Fraction``, whose comparisons with other numbers of the same hash cost up to milliseconds), a string or a
  small tuple or frozenset of them, and a message holds at most :data:`MAX_HASHED_ITEMS` (keys whose hashes
  collide cost work quadratic in their count, and tuples sharing parts cost hashing exponential in their depth);
- the rebuilt value holds no cycle, nests at most :data:`MAX_DEPTH` deep, has at most :data:`MAX_NODES` values
  and :data:`MAX_REACHED_BYTES` of text, bytes and arrays, counted as often as they are reached (a list that holds
  the same list twice, 64 times over, is 2**64 values to anything that prints it; a 900 KB string reached
  250,000 times is 236 GB to ``repr``);
- every number converts to a float and prints: integers of at most :data:`MAX_INT_BITS` bits, fractions whose
  terms print and whose value is a finite float, no signalling-NaN ``Decimal`` (verl averages, prints and
  turns into arrays what a result carries).

A message that breaks a rule raises :class:`pickle.UnpicklingError` naming it; the pool fails that call only.
"""

from __future__ import annotations

import collections
import decimal
import fractions
import io
import pickle
import re
from collections.abc import Callable
from typing import Any, ClassVar

__all__ = ["MAX_DEPTH", "MAX_HASHED_ITEMS", "MAX_NODES", "REBUILDERS", "dumps", "loads"]

#: Dict keys and set items a message may hold in all (hashing colliding keys costs their count squared).
MAX_HASHED_ITEMS = 2048
#: Values a dict key or set item may hold, counting a tuple's items as often as they are reached.
MAX_KEY_VALUES = 64
#: Bits of an integer anywhere in a result: it converts to a float (``float(2**1024 - 1)`` overflows).
MAX_INT_BITS = 1023
#: Bits of a fraction's numerator or denominator (about 1,200 digits: well within what Python prints).
MAX_FRACTION_BITS = 4096
#: Characters of a ``Decimal``'s text, and the size of its exponent (what ``f"{d:.2f}"`` writes out).
MAX_DECIMAL_CHARS = 10_000
MAX_DECIMAL_EXPONENT = 4300
#: Nesting of containers in a result.
MAX_DEPTH = 100
#: Values in a result, each counted as often as it is reached.
MAX_NODES = 1 << 20
#: Characters of text, bytes and array bytes in a result, each counted as often as it is reached.
MAX_REACHED_BYTES = 1 << 24
#: Dimensions of a numpy array.
MAX_NDIM = 32

#: numpy dtypes sent as raw bytes (``dtype.str``): booleans, integers, floats, complex numbers, fixed-width
#: text and bytes. Other arrays (objects, records, dates) are sent as their ``tolist()``.
_DTYPE = re.compile(r"[<>|=](b1|[iu][1248]|f(2|4|8|16)|c(8|16|32)|U[1-9][0-9]{0,6}|S[1-9][0-9]{0,6})")
#: ``defaultdict`` factories a result may name (others are sent as a plain dict).
_FACTORIES: dict[str, type] = {t.__name__: t for t in (int, float, complex, str, bytes, bool, list, tuple, dict,
                                                       set, frozenset)}


def _as_is(value: Any) -> Any:
    return value


def _complex(real: Any, imag: Any) -> complex:
    if type(real) is not float or type(imag) is not float:
        raise TypeError("a complex number is two floats")
    return complex(real, imag)


def _decimal(text: Any) -> decimal.Decimal:
    if type(text) is not str or len(text) > MAX_DECIMAL_CHARS:
        raise TypeError(f"a Decimal is its text, at most {MAX_DECIMAL_CHARS} characters")
    value = decimal.Decimal(text)
    if value.is_nan():
        raise TypeError("a NaN Decimal raises wherever it is ordered (a signalling one wherever it is compared)")
    if value.is_finite() and abs(value.adjusted()) > MAX_DECIMAL_EXPONENT:
        raise TypeError(f"a Decimal's exponent is at most {MAX_DECIMAL_EXPONENT} (formatting 1E+999999999 writes "
                        "a gigabyte)")
    return value


def _fraction(numerator: Any, denominator: Any) -> fractions.Fraction:
    if (type(numerator) is not int or type(denominator) is not int or denominator <= 0
            or max(numerator.bit_length(), denominator.bit_length()) > MAX_FRACTION_BITS
            or numerator.bit_length() - denominator.bit_length() >= MAX_INT_BITS):
        raise TypeError(f"a Fraction is two ints of at most {MAX_FRACTION_BITS} bits, the denominator positive, "
                        "and a value a float holds")
    return fractions.Fraction(numerator, denominator)


def _ordered_dict() -> collections.OrderedDict[Any, Any]:
    return collections.OrderedDict()  # its items follow as SETITEMS, hashed under the rules above


def _defaultdict(factory: Any) -> collections.defaultdict[Any, Any]:
    if factory is not None and factory not in _FACTORIES:
        raise TypeError(f"a defaultdict's factory is None or one of {sorted(_FACTORIES)}")
    return collections.defaultdict(None if factory is None else _FACTORIES[factory])


def _dtype(code: Any) -> Any:
    import numpy as np

    if type(code) is not str or not _DTYPE.fullmatch(code):
        raise TypeError(f"not a plain numpy dtype: {str(code)[:40]!r}")
    return np.dtype(code)


def _np_scalar(code: Any, raw: Any) -> Any:
    import numpy as np

    dtype = _dtype(code)
    if type(raw) is not bytes or len(raw) != dtype.itemsize:
        raise TypeError("a numpy scalar is its dtype and exactly its bytes")
    _check_code_points(raw, dtype)
    return np.frombuffer(raw, dtype)[0]


def _np_array(code: Any, shape: Any, raw: Any) -> Any:
    import numpy as np

    dtype = _dtype(code)
    if (type(shape) is not tuple or len(shape) > MAX_NDIM or any(type(n) is not int or n < 0 for n in shape)
            or type(raw) is not bytes):
        raise TypeError("a numpy array is its dtype, its shape (a tuple of ints) and its bytes")
    count = 1
    for n in shape:
        count *= n
    if count * dtype.itemsize != len(raw):
        raise TypeError(f"a numpy array of shape {shape} and dtype {code} is not {len(raw)} bytes")
    _check_code_points(raw, dtype)
    return np.frombuffer(raw, dtype).reshape(shape).copy()


def _check_code_points(raw: bytes, dtype: Any) -> None:
    """Raise unless a text dtype's raw bytes are Unicode scalar values (numpy raises ``SystemError`` reading
    past U+10FFFF, and a surrogate does not encode)."""
    import numpy as np

    if dtype.kind != "U":
        return
    points = np.frombuffer(raw, dtype.byteorder.replace("|", "=") + "u4") if raw else np.zeros(0, "u4")
    if ((points > 0x10FFFF) | ((points >= 0xD800) & (points <= 0xDFFF))).any():
        raise TypeError("a numpy text array holds a value that is no Unicode character")


#: The callables a message may name: this module's rebuilders, by name.
REBUILDERS: dict[str, Callable[..., Any]] = {f.__name__: f for f in (
    _as_is, _complex, _decimal, _fraction, _ordered_dict, _defaultdict, _np_scalar, _np_array)}


class _Pickler(pickle.Pickler):
    """Writes the values pickle has no opcode for through :data:`REBUILDERS` (in the worker, on the call's
    time); anything else keeps its own reduction, which the trainer then refuses by name."""

    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        if kind is complex:
            return _complex, (obj.real, obj.imag)
        if kind is decimal.Decimal:
            return _decimal, (str(obj),)
        if kind is fractions.Fraction:
            return _fraction, (obj.numerator, obj.denominator)
        if kind is collections.OrderedDict:
            return _ordered_dict, (), None, None, iter(obj.items())
        if kind is collections.defaultdict:
            factory = obj.default_factory
            name = None if factory is None else getattr(factory, "__name__", "")
            if name is None or _FACTORIES.get(name) is factory:
                return _defaultdict, (name,), None, None, iter(obj.items())
            return _as_is, (dict(obj),)  # a factory of its own: the trainer gets the items
        if kind.__module__.partition(".")[0] == "numpy":
            return _reduce_numpy(obj)
        return NotImplemented


def _reduce_numpy(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.generic):
        if _DTYPE.fullmatch(obj.dtype.str):
            return _np_scalar, (obj.dtype.str, obj.tobytes())
        return _as_is, (obj.item(),)
    if isinstance(obj, np.ndarray):
        if type(obj) is np.ndarray and _DTYPE.fullmatch(obj.dtype.str) and obj.ndim <= MAX_NDIM:
            return _np_array, (obj.dtype.str, tuple(int(n) for n in obj.shape), obj.tobytes())
        return _as_is, (obj.tolist(),)
    return NotImplemented


def dumps(obj: Any) -> bytes:
    """``obj`` pickled as :func:`loads` rebuilds it (in a worker process). A value the trainer would refuse for
    its shape or its numbers raises ``ValueError`` here, so the call fails as one that raised (as it does when
    the function runs in the trainer's threads)."""
    try:
        _check_shape(obj)
    except pickle.UnpicklingError as e:
        raise ValueError(str(e)) from None
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return buffer.getvalue()


def _key_values(key: Any) -> int:
    """How many values hashing ``key`` reaches (a tuple's items as often as they are reached), or raise
    when ``key`` is not a number, a string, or a small tuple or frozenset of them."""
    count = 0
    todo = [key]
    while todo:
        k = todo.pop()
        count += 1
        if count > MAX_KEY_VALUES:
            raise pickle.UnpicklingError(f"a dict key or set item holds more than {MAX_KEY_VALUES} values")
        kind = type(k)
        if kind is tuple or kind is frozenset:
            todo.extend(k)
        elif kind is int:
            if k.bit_length() > MAX_INT_BITS:
                raise pickle.UnpicklingError(f"an integer dict key or set item of more than {MAX_INT_BITS} bits")
        elif kind not in _ATOMS:
            raise pickle.UnpicklingError(f"a dict key or set item is a {kind.__name__}: keys and set items are "
                                         "ints, floats, complex numbers, strings, bytes, None, or tuples and "
                                         "frozensets of them")
    return count


#: Hashable values whose hash and comparisons cost at most their size (str and bytes hashes are salted per
#: process; a Decimal equal in hash to a Fraction of 4096-bit terms takes ~0.25 ms to compare with it).
_ATOMS = frozenset({str, bytes, bool, float, complex, type(None)})
_REFUSED = (pickle.BUILD, pickle.NEWOBJ, pickle.NEWOBJ_EX, pickle.OBJ, pickle.INST, pickle.PERSID,
            pickle.BINPERSID, pickle.EXT1, pickle.EXT2, pickle.EXT4)


class _Unpickler(pickle._Unpickler):
    """pickle's own Python unpickler, with every hashed insertion checked and counted (its C twin cannot
    be hooked there) and the opcodes above refused."""

    stack: list[Any]  # the values since the last mark, as the base class keeps them
    hashed: int = 0
    dispatch: ClassVar[dict[int, Callable[[Any], None]]] = dict(pickle._Unpickler.dispatch)

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name in REBUILDERS:
            return REBUILDERS[name]
        raise pickle.UnpicklingError(
            f"it holds {module}.{name}, which the trainer does not rebuild: a result is plain data (numbers, "
            "strings, bytes, lists, tuples, dicts, sets, numpy scalars and arrays; convert tensors with "
            ".tolist() or .item())")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("a result names no shared object")

    def charge(self, keys: Any) -> None:
        for key in keys:
            self.hashed += 1
            if self.hashed > MAX_HASHED_ITEMS:
                raise pickle.UnpicklingError(f"a result holds more than {MAX_HASHED_ITEMS} dict keys and set items")
            _key_values(key)


def _checked(opcode: bytes, keys: Callable[[Any], Any]) -> None:
    base = _Unpickler.dispatch[opcode[0]]

    def load(u: Any) -> None:
        u.charge(keys(u))
        base(u)

    _Unpickler.dispatch[opcode[0]] = load


def _refuse(opcode: bytes) -> None:
    def load(u: Any) -> None:
        raise pickle.UnpicklingError(f"a result's pickle uses the opcode {opcode!r}, which builds instances")

    _Unpickler.dispatch[opcode[0]] = load


_checked(pickle.SETITEM, lambda u: u.stack[-2:-1])
_checked(pickle.SETITEMS, lambda u: u.stack[0::2])
_checked(pickle.DICT, lambda u: u.stack[0::2])
_checked(pickle.ADDITEMS, lambda u: u.stack)
_checked(pickle.FROZENSET, lambda u: u.stack)
for _opcode in _REFUSED:
    _refuse(_opcode)


def _leaf(obj: Any) -> tuple[int, int, int]:
    """(values, bytes, depth) a value that holds no other reaches; raise for an integer a float cannot hold."""
    kind = type(obj)
    if kind is int and obj.bit_length() > MAX_INT_BITS:
        raise pickle.UnpicklingError(f"a result holds an integer of more than {MAX_INT_BITS} bits (no float "
                                     "holds it; verl averages and prints what a result carries)")
    if kind is str:
        # A lone surrogate (pickle decodes them) cannot be encoded: printing or writing the result would raise.
        if not obj.isascii():
            try:
                obj.encode()
            except UnicodeEncodeError:
                raise pickle.UnpicklingError("a result holds a lone surrogate (no UTF-8 for it)") from None
        return 1, len(obj), 0
    if kind is bytes or kind is bytearray:
        return 1, len(obj), 0
    return 1, getattr(obj, "nbytes", 0) if kind.__module__ == "numpy" else 0, 0


def _check_shape(root: Any) -> None:
    """Raise unless ``root`` has no cycle, nests at most :data:`MAX_DEPTH` deep, reaches at most
    :data:`MAX_NODES` values and :data:`MAX_REACHED_BYTES` bytes (shared containers counted as often as
    reached, each walked once), and holds only numbers that convert to floats."""
    done: dict[int, tuple[int, int, int]] = {}  # id -> (values, bytes, depth) reached, for containers walked
    open_ids: set[int] = set()
    stack: list[tuple[Any, Any, list[int]]] = []

    def add(into: list[int], got: tuple[int, int, int]) -> None:
        into[0] += got[0]
        into[1] += got[1]
        into[2] = max(into[2], got[2])
        if into[0] > MAX_NODES:
            raise pickle.UnpicklingError(f"a result reaches more than {MAX_NODES} values")
        if into[1] > MAX_REACHED_BYTES:
            raise pickle.UnpicklingError(f"a result reaches more than {MAX_REACHED_BYTES} bytes of text and data")

    def enter(obj: Any, into: list[int]) -> None:
        if not (type(obj) in (list, tuple, set, frozenset) or isinstance(obj, dict)):
            add(into, _leaf(obj))
            return
        walked = done.get(id(obj))
        if walked is not None:
            if len(stack) + walked[2] > MAX_DEPTH:
                raise pickle.UnpicklingError(f"a result nests more than {MAX_DEPTH} containers deep")
            add(into, walked)
            return
        if id(obj) in open_ids:
            raise pickle.UnpicklingError("a result holds itself (a cycle)")
        if len(stack) >= MAX_DEPTH:
            raise pickle.UnpicklingError(f"a result nests more than {MAX_DEPTH} containers deep")
        open_ids.add(id(obj))
        items = (x for kv in obj.items() for x in kv) if isinstance(obj, dict) else iter(obj)
        stack.append((obj, items, [1, 0, 0]))

    total = [0, 0, 0]
    enter(root, total)
    while stack:
        obj, items, acc = stack[-1]
        child = next(items, _END)
        if child is not _END:
            enter(child, acc)
            continue
        stack.pop()
        open_ids.discard(id(obj))
        walked = done[id(obj)] = (acc[0], acc[1], acc[2] + 1)
        add(stack[-1][2] if stack else total, walked)


_END = object()


def loads(data: bytes) -> Any:
    """A message from a worker process, rebuilt under the rules above; :class:`pickle.UnpicklingError` when it
    breaks one (a rebuilder's refusal included)."""
    try:
        value = _Unpickler(io.BytesIO(data)).load()
    except pickle.UnpicklingError:
        raise
    except Exception as e:  # noqa: BLE001 - whatever a malformed message raises as it loads
        raise pickle.UnpicklingError(f"{type(e).__name__}: {e}") from None
    _check_shape(value)
    return value
