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
    ["fail","NONCE"]        assert mode: check() raised AssertionError (a failed test, not an error)
    ["done"]                always the last line: the harness finished normally

Accepted sequences, and nothing else::

    prime:  header ( compile_error | out(0) out(1) ... out(k-1) [error(k)] ) done     (k <= number of tests)
    assert: header ( pass(NONCE) | fail(NONCE) ) done

VALUE: ``null``, ``true``, ``false``, integers (at most :data:`MAX_INT_DIGITS` digits), floats
(``repr``; ``NaN``, ``Infinity``, ``-Infinity``), strings, arrays (lists), ``{"t":[...]}`` (a tuple) and
``{"d":[[KEY,VALUE],...]}`` (a dict whose keys are null, booleans, numbers or strings). Strings are
ASCII with ``\\uXXXX`` escapes, and ``\\``, ``"``, ``[``, ``]``, ``{`` and ``}`` inside them appear only
as ``\\uXXXX`` escapes: every backslash starts a ``\\u`` escape and every ``"`` delimits a string, so a
reader finds the structure of a line without parsing its strings. A record nests at most
:data:`MAX_DEPTH` arrays and objects (the record counts).

The trainer side (:func:`decode_prime`, :meth:`PrimeReport.output`, :func:`assert_passed`) treats its
input as hostile. Its cost is bounded by what the honest answer costs, not only by a byte count: valid
records can be costly too (``[[[[]]]],`` parses at ~170 ms and ~40 MB a MiB). :func:`decode_prime` checks
the framing alone (a run's byte budget, :func:`prime_budget`; ASCII; at most ``tests + 2`` lines; header,
records of tests 0, 1, ... in order, done) with a few C-speed passes and no Python object per value. A
value is decoded only when its test's verdict is needed (prime_code stops at the first failing test, so
nothing after it is parsed), and only within that test's own bounds, from its trusted expected output:
at most :data:`STDIN_RECORD_FACTOR` or :data:`CALL_RECORD_FACTOR` times its bytes plus
:data:`RECORD_SLACK`; a stdin program's value must be one string, checked by byte counts before it is
decoded as a string alone (no structure is ever parsed); a call-based value has at most
:data:`NODE_FACTOR` times the expected output's structure nodes plus :data:`NODE_SLACK`, and its nesting
depth is counted on the bytes outside its strings before ``json.loads`` sees it. Integers of at most
:data:`MAX_INT_DIGITS` digits are converted whatever ``sys.set_int_max_str_digits`` says; no dict is
built from untrusted keys (a returned dict stays a list of pairs, :class:`Pairs`); anything else is
``None`` or :class:`Malformed` (a failed run), never another exception.
"""

import json
import re
from json.encoder import encode_basestring_ascii

VERSION = 1
#: Arrays and objects one record may nest (its own array included). A tuple costs 2 levels
#: (``{"t":[`` ``]}``), a dict 3; honest outputs nested deeper are reported as an error of that test.
MAX_DEPTH = 128
#: Byte budget of one ``out`` record's value, from the encoded expected output of its test
#: (``encode_string`` of the expected text: E bytes): FACTOR x E + SLACK. For stdin programs the value is
#: one string, and the factor covers the printed outputs longer than the expected text that prime_code
#: still accepts: floats printed with more digits ("2.000000000000" where "2" is expected: ~3x with its
#: newline), trailing spaces, a few blank lines; SLACK covers short expected outputs whatever the format.
#: For call-based programs the factor also covers strings whose brackets and quotes the protocol escapes
#: (``[`` -> ``\u005b``: up to 6x), floats returned with full ``repr``, tuples and dicts.
STDIN_RECORD_FACTOR = 4
CALL_RECORD_FACTOR = 8
RECORD_SLACK = 1024
#: Structure nodes (``[``, ``{`` and ``,`` outside strings) a call-based ``out`` value may have: FACTOR x
#: the nodes of the expected JSON text (counted on the whole text, strings included: never fewer) +
#: SLACK. Parsing costs ~0.1 us and ~60 bytes a node, numbers and strings far less a byte, so this
#: bounds a hostile value's decoding cost by a small multiple of the honest value's. The factor covers
#: the protocol's tuples (``{"t":[..]}``: one node more) and dicts (``{"d":[[k,v],..]}``: 3 nodes an
#: item where the expected JSON has 1; 4 for a dict of one item).
NODE_FACTOR = 4
NODE_SLACK = 64
#: Bytes of a record line besides its value (``["out",INDEX,`` ... ``]\n``).
RECORD_OVERHEAD = 32
#: At most this many bytes per run (binds only for expected outputs of more than ~1 MiB in all).
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


def record_fail(nonce: str) -> bytes:
    return f'["fail",{encode_string(nonce)}]\n'.encode("ascii")


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
    raised, ``error`` (``"error"`` or ``"timeout"``). Outputs are decoded one at a time, when asked for
    (:meth:`output`): a test's verdict needs its own output only, and prime_code stops at the first failing
    test, so the records after it are never parsed (their framing, checked by :func:`decode_prime`, is)."""

    __slots__ = ("_channel", "_spans", "call_based", "compile_error", "error")

    def __init__(self, compile_error: bool, channel: bytes, spans: list[tuple[int, int]], error: str | None,
                 call_based: bool) -> None:
        self.compile_error = compile_error
        self.error = error
        self.call_based = call_based
        self._channel = channel
        self._spans = spans  # (start, end) of each out record's VALUE in the channel

    def __len__(self) -> int:
        """The number of outputs (tests that returned)."""
        return len(self._spans)

    def output(self, i: int, expected: object = None) -> object:
        """Test i's output. With ``expected`` (the test's expected output, trusted), the value must be
        within that test's bounds (:func:`record_budget`, :func:`node_budget`). Raises :class:`Malformed`
        for a value the harness does not write (a stdin program's output that is not one string, nesting
        beyond :data:`MAX_DEPTH`, bad JSON, unknown tags, integers over :data:`MAX_INT_DIGITS` digits) or
        one over the bounds; no other exception."""
        start, end = self._spans[i]
        if expected is not None and end - start > record_budget(expected, self.call_based):
            raise Malformed("output over its test's byte budget")
        value = self._channel[start:end]
        try:
            if not self.call_based:
                return _string(value)
            if expected is None:
                return _value(value, None)
            return _value(value, node_budget(expected), long_digit_budget(expected))
        except Malformed:
            raise
        except (ValueError, TypeError, RecursionError, MemoryError, OverflowError, UnicodeError) as e:
            raise Malformed(f"{type(e).__name__} decoding an output") from None

    @property
    def outputs(self) -> list[object]:
        """Every output, decoded without per-test bounds (raises :class:`Malformed`)."""
        return [self.output(i) for i in range(len(self))]


_NON_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEPS = bytes.maketrans(b"[]{}", b"\x01\xff\x01\xff")  # +1 / -1 as signed bytes


def _structure(value: bytes, max_strings: int | None = None) -> bytes | None:
    """The bytes of a value outside its strings (None when its strings are malformed, or more than
    ``max_strings``), in time linear in the value: strings are cut out at their quotes (every ``"`` is a
    delimiter once every backslash starts a ``\\u`` escape), one ``bytes`` object a string."""
    if value.count(b"\\") != value.count(b"\\u"):
        return None
    if max_strings is not None and value.count(b'"') > 2 * max_strings:
        return None
    pieces = value.split(b'"')
    if len(pieces) % 2 == 0:
        return None
    return b"".join(pieces[::2])


def _depth_at_most(structure: bytes, limit: int) -> bool:
    """Whether the arrays and objects of a value's structure (:func:`_structure`) nest at most ``limit``
    deep: the running count of open brackets is summed by ``itertools.accumulate`` over signed bytes
    (~15 ns a bracket). Its maximum bounds the depth ``json.loads`` recurses to before it accepts or
    rejects the value."""
    brackets = structure.translate(_STEPS, _NON_BRACKETS)
    if brackets.count(1) <= limit:
        return True
    from array import array
    from itertools import accumulate

    return max(accumulate(array("b", brackets))) <= limit


def _string(value: bytes) -> str:
    """A stdin program's output: exactly one protocol string, checked by byte counts before it is decoded
    (there is no structure to parse: the cost is that of copying the text)."""
    if len(value) < 2 or value[0] != 0x22 or value[-1] != 0x22 or value.count(b'"') != 2:
        raise Malformed("output is not one string")
    if value.count(b"\\") != value.count(b"\\u") or any(c in value for c in b"[]{}"):
        raise Malformed("a string with characters the harness escapes")
    text = json.loads(value.decode("ascii"))  # checks the \u escapes' digits, rejects control characters
    if type(text) is not str:
        raise Malformed("output is not one string")
    return text


def _value(value: bytes, max_nodes: int | None, max_long_digits: int | None = None) -> object:
    """A call-based program's output: its nodes and depth counted on the bytes outside its strings
    before ``json.loads`` sees it. Every string of a value the harness writes follows a ``[``, ``{`` or
    ``,`` (or is the whole value), so it has at most one string more than nodes: checked first, so that
    cutting the strings out costs no more objects than the node budget allows."""
    structure = _structure(value, None if max_nodes is None else max_nodes + 1)
    if structure is None:
        raise Malformed("malformed strings, or more strings than the node budget allows")
    if max_nodes is not None and structure.count(b"[") + structure.count(b"{") + structure.count(b",") > max_nodes:
        raise Malformed("output over its test's node budget")
    if not _depth_at_most(structure, MAX_DEPTH - 1):  # the record's own array is level 1
        raise Malformed("output nested too deeply")
    if max_long_digits is not None and long_digits(structure) > max_long_digits:
        raise Malformed("output over its test's budget of long integers")
    # Integers through _int, so their cost does not depend on sys.set_int_max_str_digits (floats are
    # linear to convert at any length: json's own parse_float stays).
    return json.loads(value.decode("ascii"), object_pairs_hook=_object, parse_constant=_constant, parse_int=_int)


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


def expected_nodes(expected: object) -> int:
    """Structure nodes of an expected output's JSON text: its ``[``, ``{`` and ``,`` (strings included)."""
    if not isinstance(expected, str):
        return 0
    return expected.count("[") + expected.count("{") + expected.count(",")


def record_budget(expected: object, call_based: bool) -> int:
    """Bytes an ``out`` value may have for a test with this expected output (see :data:`RECORD_SLACK`)."""
    size = len(encode_string(expected)) if isinstance(expected, str) else 0
    return (CALL_RECORD_FACTOR if call_based else STDIN_RECORD_FACTOR) * size + RECORD_SLACK


def node_budget(expected: object) -> int:
    """Structure nodes a call-based ``out`` value may have for this expected output (:data:`NODE_FACTOR`)."""
    return NODE_FACTOR * expected_nodes(expected) + NODE_SLACK


#: Digits of long integers (over the ``int()`` conversion's cheap size) a call-based ``out`` value may hold:
#: FACTOR x those of the expected output + SLACK. Converting an integer costs time quadratic in its digits
#: (~0.1 ms at 4300), so a value of thousands of them would cost the trainer far more than the honest one.
LONG_DIGITS_FACTOR = 2
LONG_DIGITS_SLACK = 4 * 4300
_LONG_DIGITS = re.compile(rb"[0-9]{641,}")


def long_digits(text: bytes) -> int:
    """Digits in runs longer than ``int()``'s cheap size (640): the quadratic part of converting a value."""
    return sum(m.end() - m.start() for m in _LONG_DIGITS.finditer(text))


def long_digit_budget(expected: object) -> int:
    """Long-integer digits a call-based ``out`` value may hold for this expected output."""
    own = long_digits(expected.encode("utf-8", "surrogatepass")) if isinstance(expected, str) else 0
    return LONG_DIGITS_FACTOR * own + LONG_DIGITS_SLACK


def prime_budget(expected_outputs: list, call_based: bool) -> int:
    """Bytes a prime-mode run with these expected outputs may write: its records' budgets and framing."""
    total = len(HEADER) + len(DONE) + RECORD_OVERHEAD * (len(expected_outputs) + 1) \
        + sum(record_budget(o, call_based) for o in expected_outputs)
    return min(PRIME_BUDGET_CAP, total)


_OUT = re.compile(rb'\["out",(0|[1-9][0-9]{0,17}),')


def decode_prime(channel: bytes, n_tests: int, budget: int, call_based: bool) -> PrimeReport | None:
    """The report of one prime-mode run, or None when ``channel`` is not framed exactly as the harness
    writes it for ``n_tests`` tests: header, then compile_error or records of tests 0, 1, ... in order,
    then done. Values are decoded later, one at a time (:meth:`PrimeReport.output`). Never raises; costs
    a few passes over the bytes at C speed and a Python object per record (at most ``n_tests + 2``)."""
    try:
        return _decode_prime(channel, n_tests, budget, call_based)
    except (ValueError, TypeError, RecursionError, MemoryError, OverflowError, UnicodeError):
        return None


def _decode_prime(channel: bytes, n_tests: int, budget: int, call_based: bool) -> PrimeReport | None:
    if len(channel) > budget or not channel.isascii() or channel.count(b"\n") > n_tests + 2:
        return None
    if not channel.startswith(HEADER) or not channel.endswith(DONE) or len(channel) < len(HEADER) + len(DONE):
        return None
    end = len(channel) - len(DONE)
    if channel[len(HEADER):end] == COMPILE_ERROR:
        return PrimeReport(True, b"", [], None, call_based)
    spans: list[tuple[int, int]] = []
    error = None
    pos = len(HEADER)
    while pos < end:
        stop = channel.find(b"\n", pos, end)
        if stop < 0 or error is not None or len(spans) >= n_tests:
            return None
        index = len(spans)
        found = _OUT.match(channel, pos, stop)
        if found is not None:
            if int(found.group(1)) != index or channel[stop - 1] != 0x5D or found.end() >= stop - 1:  # "]"
                return None
            spans.append((found.end(), stop - 1))
        elif channel[pos:stop + 1] == record_error(index, False):
            error = "error"
        elif channel[pos:stop + 1] == record_error(index, True):
            error = "timeout"
        else:
            return None
        pos = stop + 1
    return PrimeReport(False, channel, spans, error, call_based)


def assert_request(code: str, test: str, entry_point: str, nonce: str, prompt: str | None = None) -> bytes:
    """The harness request of an assert-mode run (on the execution's fd 4): the mode line, the length of
    the program's part, the program's part (JSON ``{"code"}``), then the checker's part (JSON ``{"nonce",
    "test", "entry_point", "prompt"}``). The harness reads the program's part, forks the program's process,
    which closes fd 4 before any program code runs, and only then reads the checker's part: the test code,
    the prompt and the nonce never enter the program's memory. ``prompt`` (the dataset's, trusted) defines
    the helpers the test may use (HumanEval's ``poly``, ``encode_cyclic``): those names are bound to the
    prompt's definitions, never to the program's."""
    program = json.dumps({"code": code}).encode("utf-8", "surrogatepass")
    checker = json.dumps({"nonce": nonce, "test": test, "entry_point": entry_point, "prompt": prompt})
    return b"assert\n%d\n" % len(program) + program + checker.encode("utf-8", "surrogatepass")


def assert_budget(nonce: str) -> int:
    """Bytes an assert-mode run may write: exactly its longest sequence."""
    return len(HEADER) + max(len(record_pass(nonce)), len(record_fail(nonce))) + len(DONE)


def assert_passed(channel: bytes, nonce: str) -> bool:
    """Whether an assert-mode channel is exactly header, pass(nonce), done."""
    return channel == HEADER + record_pass(nonce) + DONE


def assert_failed(channel: bytes, nonce: str) -> bool:
    """Whether an assert-mode channel is exactly header, fail(nonce), done: the test's assertion failed."""
    return channel == HEADER + record_fail(nonce) + DONE
