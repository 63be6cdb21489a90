"""The result channel between the sandbox harness and the trainer: protocol version 1.

The harness (``harness.py``, inside the sandbox) encodes with this module and the trainer decodes with
it, so both sides read one definition. It is standard library only and imports nothing of ``verl_ext``:
the harness loads this file by path inside the sandbox (``python -I -S -B``, no ``site``, no package).

Schema
------
The channel (the program's fd 3) is ASCII text of ``\\n``-terminated lines; every line is one compact
JSON array, a *record*::

    ["verl-ext",1]          header, always the first line (the protocol version)
    ["out",i,VALUE]         prime mode: test i's output (return value, or captured stdout as a string)
    ["error",i,TIMEOUT]     prime mode: test i raised (TIMEOUT: true when its alarm fired); ends the tests
    ["compile_error"]       prime mode: the program did not load
    ["pass","NONCE"]        assert mode: check() returned; NONCE is the parent's per-run secret
    ["done"]                always the last line: the harness finished normally

Accepted sequences, and nothing else::

    prime:  header ( compile_error | out(0) out(1) ... out(k-1) [error(k)] ) done     (k <= number of tests)
    assert: header pass(NONCE) done

VALUE: ``null``, ``true``, ``false``, integers (at most :data:`MAX_INT_DIGITS` digits), floats
(``repr``; ``NaN``, ``Infinity``, ``-Infinity``), strings, arrays (lists), ``{"t":[...]}`` (a tuple) and
``{"d":[[KEY,VALUE],...]}`` (a dict whose keys are null, booleans, numbers or strings). Strings are
ASCII with ``\\uXXXX`` escapes, and ``\\``, ``"``, ``[``, ``]``, ``{`` and ``}`` inside them appear only
as ``\\uXXXX`` escapes: every backslash starts a ``\\u`` escape and every ``"`` delimits a string, so a
reader finds the structure of a line without parsing its strings. A record nests at most
:data:`MAX_DEPTH` arrays and objects (the record counts).

The trainer side (:func:`decode_prime`, :func:`assert_passed`) treats its input as hostile: it accepts
only the sequences above, within a byte budget (:func:`prime_budget`) and at most ``tests + 2`` records,
checks every line's nesting depth with a few ``bytes`` operations before ``json.loads`` sees it, converts
integers of at most :data:`MAX_INT_DIGITS` digits whatever ``sys.set_int_max_str_digits`` says, builds
no dict from untrusted keys (a returned dict stays a list of pairs, :class:`Pairs`), and turns anything
else into ``None`` (a failed run), never an exception.
"""

import json
from json.encoder import encode_basestring_ascii

VERSION = 1
#: Arrays and objects one record may nest (its own array included). A tuple costs 2 levels
#: (``{"t":[`` ``]}``), a dict 3; honest outputs nested deeper are reported as an error of that test.
MAX_DEPTH = 128
#: Byte budget of a prime-mode run: FLOOR + FACTOR x (expected outputs, encoded) + OVERHEAD per test,
#: at most CAP. The factor covers honest outputs longer than the expected text that prime_code still
#: accepts: floats printed with full ``repr`` where 3-6 digits are expected (up to ~6x), trailing spaces,
#: tuples/dicts (``{"t":[..]}``, ``{"d":[..]}``) and ints returned as floats. The floor leaves room for
#: short expected outputs; the cap (half the sandbox's 16 MiB default) binds only for problems whose
#: expected outputs exceed ~1 MiB in all. For the usual problem (10 tests, short outputs) the budget is
#: ~18 KiB: what a hostile run can make the trainer parse.
PRIME_BUDGET_FLOOR = 16 * 1024
PRIME_BUDGET_FACTOR = 8
PRIME_BUDGET_OVERHEAD = 64
PRIME_BUDGET_CAP = 8 * 1024 * 1024

HEADER = b'["verl-ext",1]\n'
DONE = b'["done"]\n'
COMPILE_ERROR = b'["compile_error"]\n'

_STRING_ESCAPES = (("[", "\\u005b"), ("]", "\\u005d"), ("{", "\\u007b"), ("}", "\\u007d"))
_SHORT_ESCAPES = (('\\"', "\\u0022"), ("\\n", "\\u000a"), ("\\r", "\\u000d"), ("\\t", "\\u0009"),
                  ("\\b", "\\u0008"), ("\\f", "\\u000c"))
_FLOAT_NAMES = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


# ---- encoding (the harness, inside the sandbox) ---------------------------------------------------------

def encode_string(s: str) -> str:
    """A JSON string literal of ``s`` (a ``str`` or subclass, encoded by its ``str`` value) in the
    protocol's form: ASCII, with ``\\``, ``"`` and brackets escaped as ``\\uXXXX``."""
    text = encode_basestring_ascii(s)
    if "\\" in text:  # every escape as \uXXXX: \\ first, so that no other replacement sees its second half
        text = text.replace("\\\\", "\\u005c")
        for short, long in _SHORT_ESCAPES:
            if short in text:
                text = text.replace(short, long)
    for char, escape in _STRING_ESCAPES:
        if char in text:
            text = text.replace(char, escape)
    return text


def encode_value(x: object) -> str:
    """``x`` as a protocol VALUE. Subclasses of the plain types are encoded by their base value (an
    object cannot choose its own equality); other types raise ``TypeError``, nesting beyond
    :data:`MAX_DEPTH` raises ``ValueError``."""
    parts: list[str] = []
    _encode(x, 2, parts)  # the record's array is level 1
    return "".join(parts)


def _encode(x: object, depth: int, out: list[str]) -> None:
    if x is None:
        out.append("null")
    elif x is True or x is False:
        out.append("true" if x else "false")
    elif isinstance(x, int):
        out.append(int.__repr__(x))
    elif isinstance(x, float):
        text = float.__repr__(x)
        out.append(_FLOAT_NAMES.get(text, text))
    elif isinstance(x, str):
        out.append(encode_string(x))
    elif isinstance(x, (list, tuple, dict)):
        if depth + (1 if isinstance(x, list) else 2 if isinstance(x, tuple) else 3) > MAX_DEPTH:
            raise ValueError("output nested too deeply")
        if isinstance(x, dict):
            out.append('{"d":[')
            for n, (k, v) in enumerate(dict.items(x)):
                if not (k is None or isinstance(k, (bool, int, float, str))):
                    raise TypeError(f"unsupported dict key type {type(k).__name__}")
                out.append(",[" if n else "[")
                _encode(k, depth + 3, out)
                out.append(",")
                _encode(v, depth + 3, out)
                out.append("]")
            out.append("]}")
            return
        is_list = isinstance(x, list)
        out.append("[" if is_list else '{"t":[')
        for n, v in enumerate(list.__iter__(x) if isinstance(x, list) else tuple.__iter__(x)):
            if n:
                out.append(",")
            _encode(v, depth + (1 if is_list else 2), out)
        out.append("]" if is_list else "]}")
    else:
        raise TypeError(f"unsupported output type {type(x).__name__}")


def record_out(index: int, value_json: str) -> bytes:
    """``["out",index,VALUE]`` for an already encoded VALUE."""
    return f'["out",{int(index)},{value_json}]\n'.encode("ascii")


def record_error(index: int, timeout: bool) -> bytes:
    return f'["error",{int(index)},{"true" if timeout else "false"}]\n'.encode("ascii")


def record_pass(nonce: str) -> bytes:
    return f'["pass",{encode_string(nonce)}]\n'.encode("ascii")


# ---- decoding (the trainer; everything below treats its input as hostile) -------------------------------

class Pairs:
    """A dict the program returned, kept as its ``(key, value)`` pairs: equal to a ``dict`` exactly when
    ``dict(pairs)`` would be, found by looking each key up in that (trusted) dict, so no hash table is
    ever built from the program's keys. Iterates over its keys, as a dict does."""

    __slots__ = ("pairs",)  # unhashable, as a dict: defining __eq__ sets __hash__ to None

    def __init__(self, pairs: list[tuple[object, object]]) -> None:
        self.pairs = pairs

    def __len__(self) -> int:
        return len(self.pairs)

    def __iter__(self):  # an iterator of keys
        return (k for k, _ in self.pairs)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, dict):
            return NotImplemented
        if len(self.pairs) != len(other):
            return False
        canonical = {k: k for k in other}
        found = set()
        for k, v in self.pairs:
            key = canonical.get(k, _MISSING)
            if key is _MISSING or not v == other[key]:
                return False
            found.add(id(key))
        return len(found) == len(other)  # a repeated key leaves one of other's keys unmatched

    def __repr__(self) -> str:
        return f"Pairs({self.pairs!r})"


_MISSING = object()


class Malformed(ValueError):
    """A channel that is not a sequence the harness writes."""


class PrimeReport:
    """A well-formed prime-mode run: ``compile_error``, or the outputs of tests 0..k-1 and, when test k
    raised, ``error`` (``"error"`` or ``"timeout"``)."""

    __slots__ = ("compile_error", "error", "outputs")

    def __init__(self, compile_error: bool, outputs: list[object], error: str | None) -> None:
        self.compile_error = compile_error
        self.outputs = outputs
        self.error = error


_NON_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEPS = bytes.maketrans(b"[]{}", b"\x01\xff\x01\xff")  # +1 / -1 as signed bytes


def _depth_at_most(line: bytes, limit: int) -> bool:
    """Whether the arrays and objects of one record line nest at most ``limit`` deep (False also for a
    line whose strings are malformed), in time linear in the line: strings are cut out at their quotes
    (every ``"`` is a delimiter once every backslash starts a ``\\u`` escape), then the running count of
    open brackets is summed by ``itertools.accumulate`` over signed bytes (~15 ns a bracket). Its
    maximum bounds the depth ``json.loads`` recurses to before it accepts or rejects the line."""
    if line.count(b"\\") != line.count(b"\\u"):
        return False
    pieces = line.split(b'"')
    if len(pieces) % 2 == 0:
        return False
    brackets = b"".join(pieces[::2]).translate(_STEPS, _NON_BRACKETS)
    if brackets.count(1) <= limit:
        return True
    from array import array
    from itertools import accumulate

    return max(accumulate(array("b", brackets))) <= limit


def _object(pairs: list[tuple[str, object]]) -> object:
    """``object_pairs_hook``: ``{"t":[..]}`` -> tuple, ``{"d":[[k,v],..]}`` -> :class:`Pairs`."""
    if len(pairs) != 1:
        raise Malformed("object with other than one key")
    key, value = pairs[0]
    if type(value) is not list:
        raise Malformed("tagged value is not an array")
    if key == "t":
        return tuple(value)
    if key == "d":
        items = []
        for item in value:
            if type(item) is not list or len(item) != 2:
                raise Malformed("dict item is not a pair")
            k = item[0]
            if not (k is None or type(k) in (bool, int, float, str)):
                raise Malformed("dict key is not a scalar")
            items.append((k, item[1]))
        return Pairs(items)
    raise Malformed("unknown tag")


#: Digits an integer may have (Python's default ``int``/``str`` limit); longer ones make the run malformed.
MAX_INT_DIGITS = 4300
#: Digits ``int()`` always converts, whatever ``sys.set_int_max_str_digits`` says (its lowest limit).
_SAFE_DIGITS = 640


def _int(text: str) -> int:
    """``parse_int``: at most :data:`MAX_INT_DIGITS` digits, converted in pieces ``int()`` accepts under any
    interpreter-wide digit limit (0, no limit, included): the cost never depends on that global state."""
    digits = text[1:] if text[0] == "-" else text
    if len(digits) > MAX_INT_DIGITS:
        raise Malformed("integer too long")
    if len(digits) <= _SAFE_DIGITS:
        return int(text)
    value = 0
    for start in range(0, len(digits), _SAFE_DIGITS):
        piece = digits[start:start + _SAFE_DIGITS]
        value = value * 10 ** len(piece) + int(piece)
    return -value if text[0] == "-" else value


def _constant(name: str) -> float:
    return float(name)  # a fresh NaN each time, as a program's own NaN would be


def _record(line: bytes) -> list[object]:
    if not line.startswith(b"[") or not _depth_at_most(line, MAX_DEPTH):
        raise Malformed("not a record line")
    # Integers through _int, so their cost does not depend on sys.set_int_max_str_digits (floats are
    # linear to convert at any length: json's own parse_float stays).
    item = json.loads(line.decode("ascii"), object_pairs_hook=_object, parse_constant=_constant, parse_int=_int)
    if type(item) is not list or not item or type(item[0]) is not str:
        raise Malformed("not a record")
    return item


def prime_budget(expected_outputs: list) -> int:
    """Bytes a prime-mode run with these expected outputs may write (see :data:`PRIME_BUDGET_FACTOR`)."""
    size = sum(len(encode_string(o)) if isinstance(o, str) else 0 for o in expected_outputs)
    total = PRIME_BUDGET_FLOOR + PRIME_BUDGET_OVERHEAD * (len(expected_outputs) + 2) + PRIME_BUDGET_FACTOR * size
    return min(PRIME_BUDGET_CAP, total)


def decode_prime(channel: bytes, n_tests: int, budget: int, call_based: bool) -> PrimeReport | None:
    """The report of one prime-mode run, or None when ``channel`` is not exactly what the harness writes
    for ``n_tests`` tests (outputs of stdin programs must be strings). Never raises."""
    try:
        return _decode_prime(channel, n_tests, budget, call_based)
    except (ValueError, TypeError, RecursionError, MemoryError, OverflowError, UnicodeError):
        return None  # ValueError covers Malformed (integers over MAX_INT_DIGITS included) and JSONDecodeError


def _decode_prime(channel: bytes, n_tests: int, budget: int, call_based: bool) -> PrimeReport | None:
    if len(channel) > budget or not channel.isascii() or channel.count(b"\n") > n_tests + 2:
        return None
    if not channel.startswith(HEADER) or not channel.endswith(DONE) or len(channel) < len(HEADER) + len(DONE):
        return None
    body = channel[len(HEADER):len(channel) - len(DONE)]
    if body == COMPILE_ERROR:
        return PrimeReport(True, [], None)
    if body and not body.endswith(b"\n"):
        return None
    outputs: list[object] = []
    error = None
    for index, line in enumerate(body.split(b"\n")[:-1] if body else []):
        if error is not None or index >= n_tests:
            return None
        item = _record(line)
        if item[0] == "out" and len(item) == 3 and type(item[1]) is int and item[1] == index:
            if not call_based and type(item[2]) is not str:
                return None
            outputs.append(item[2])
        elif item[0] == "error" and len(item) == 3 and type(item[1]) is int and item[1] == index \
                and type(item[2]) is bool:
            error = "timeout" if item[2] else "error"
        else:
            return None
    return PrimeReport(False, outputs, error)


def assert_request(code: str, test: str, entry_point: str, nonce: str) -> bytes:
    """The harness request of an assert-mode run (on the execution's fd 4): the mode line, the length of
    the program's part, the program's part (JSON ``{"code"}``), then the checker's part (JSON ``{"nonce",
    "test", "entry_point"}``). The harness reads the program's part, forks the program's process, which
    closes fd 4 before any program code runs, and only then reads the checker's part: the test code and
    the nonce never enter the program's memory."""
    program = json.dumps({"code": code}).encode("utf-8", "surrogatepass")
    checker = json.dumps({"nonce": nonce, "test": test, "entry_point": entry_point})
    return b"assert\n%d\n" % len(program) + program + checker.encode("utf-8", "surrogatepass")


def assert_budget(nonce: str) -> int:
    """Bytes an assert-mode run may write: exactly its passing sequence."""
    return len(HEADER) + len(record_pass(nonce)) + len(DONE)


def assert_passed(channel: bytes, nonce: str) -> bool:
    """Whether an assert-mode channel is exactly header, pass(nonce), done."""
    return channel == HEADER + record_pass(nonce) + DONE
