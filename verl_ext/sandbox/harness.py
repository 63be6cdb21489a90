# verl-ext-sandbox-harness: runs inside the sandbox as `python -I -S -B -c <this file> <protocol.py path>`
# (cold start), or in an execution forked by the zygote (zygote.py), which loaded it beforehand (with
# `__file__` set) and calls `_main()`. Reads a request from fd 4: a mode line (`script`, `prime` or
# `assert`), then the body (JSON; for `assert`, two parts: see protocol.assert_request). Exit codes: the
# program's own; 1 for an uncaught exception; 102 for MemoryError. Results go on fd 3 in the protocol of
# `protocol.py` (loaded by path: no package here).
# Modes:
#   script: run the program as __main__ with the sandbox's stdin/stdout/stderr.
#   prime:  run verl prime_code's test procedure (same code wrapping, imports, guards, per-test alarms)
#           and report each test's *output*. Expected outputs never enter the sandbox: the parent compares.
#   assert: HumanEval-style assert tests; the parent's nonce is reported after check() returns (or
#           raises AssertionError: a failed test, reported as such, not read from stderr). A failed
#           `assert` of the test is recorded and check() goes on, so the program gets the same calls
#           whatever its answers were judged (it never learns a verdict from calls that stop). The
#           program runs in a child process, forked before the test code and the nonce are read (so
#           they never enter its memory); check() runs in this one, which never runs the program's
#           code, and calls the program's functions through a pipe with plain data both ways.
import os
import sys
from io import StringIO

MEMORY_EXIT_CODE = 102
_siblings: dict = {}


def _sibling(name: str):
    """A module of this directory (``protocol``, ``assert_rewrite``), loaded by path once (a zygote loads them
    before forking): no package here."""
    module = _siblings.get(name)
    if module is None:
        import importlib.util

        here = globals().get("__file__")
        path = os.path.join(os.path.dirname(here or sys.argv[1]), f"{name}.py")
        spec = importlib.util.spec_from_file_location(f"verl_ext_sandbox_{name}", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {name} from {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _siblings[name] = module
    return module


def _protocol():
    """The shared protocol module."""
    return _sibling("protocol")


def _writer(fd: int = 3):
    """A function writing whole records on ``fd``, bound to the real ``os.write`` now."""
    write = os.write

    def emit(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[write(fd, view):]

    return emit


def _read_line(fd: int = 4, limit: int = 32) -> bytes:
    """One short line of the request, read byte by byte: nothing after it leaves the pipe."""
    line = b""
    while not line.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte or len(line) >= limit:
            raise ValueError("malformed request")
        line += byte
    return line[:-1]


def _read_exact(fd: int, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 16))
        if not chunk:
            raise ValueError("truncated request")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _read_request(fd: int = 4) -> bytes:
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def _run_script(source: str) -> None:
    sys.argv = ["solution.py"]
    scope = {"__name__": "__main__", "__builtins__": __builtins__}
    exec(compile(source, "solution.py", "exec"), scope)  # noqa: S102 - this is the sandbox


# ---- prime mode -------------------------------------------------------------------------------

PRIME_HEADER = (
    "from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\n"
    "from heapq import *\nfrom bisect import *\nfrom copy import *\nfrom math import *\nfrom random import *\n"
    "from statistics import *\nfrom itertools import *\nfrom functools import *\nfrom operator import *\n"
    "from io import *\nfrom sys import *\nfrom json import *\nfrom builtins import *\nfrom typing import *\n"
    "import string\nimport re\nimport datetime\nimport collections\nimport heapq\nimport bisect\nimport copy\n"
    "import math\nimport random\nimport statistics\nimport itertools\nimport functools\nimport operator\n"
    "import io\nimport sys\nimport json\nsys.setrecursionlimit(6*10**5)\n"
)


# A zygote runs the header's first star imports once (warm_up), into the module a forked execution
# then uses; the execution runs the rest from `from sys import *` on, after _guard() and the stdout
# redirect, so every name ends up bound exactly as running the whole header there would bind it (the
# earlier modules' exports do not depend on that state). Saves ~1 ms of copy-on-write per execution.
_HEADER_SPLIT = PRIME_HEADER.index("from sys import *\n")
PRIME_HEADER_HEAD, PRIME_HEADER_TAIL = PRIME_HEADER[:_HEADER_SPLIT], PRIME_HEADER[_HEADER_SPLIT:]
_prebuilt_module = None


def _solution_module():
    """A fresh ``tmp_sol`` module and the part of the header still to run in it."""
    import types

    global _prebuilt_module
    module, _prebuilt_module = _prebuilt_module, None
    if module is not None:
        return module, PRIME_HEADER_TAIL
    return types.ModuleType("tmp_sol"), PRIME_HEADER


def _unparse(statements):
    """`ast.unparse` of a list of statements, as prime_code calls it."""
    import ast

    return ast.unparse(statements)


def _wrap_stdin_program(code: str) -> str:
    """prime_code's rewrite of a stdin program into `def code():` (top-level imports stay outside)."""
    import ast

    try:
        tree = ast.parse(code)
        last = tree.body[-1]
        if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
            code = _unparse(tree.body[:-1]) + "\n" + _unparse(last.body)
    except Exception:  # noqa: BLE001 - unparsable code is wrapped as it is
        pass
    lines = [x + "\n" if x.startswith(("from ", "import ")) else "\t" + x + "\n" for x in code.split("\n")]
    out, started = "", False
    for line in lines:
        if line.startswith("\t") and not started:
            out += "stdin = sys.stdin\nstdout = sys.stdout\ndef code():\n" + line
            started = True
        elif started and line.startswith(("from ", "import ")):
            out += "\t" + line
        else:
            out += line
    return out


def _guard() -> None:
    """The same functions verl's prime_code disables (so programs relying on them fail alike)."""
    import builtins
    import shutil
    import subprocess

    os.environ["OMP_NUM_THREADS"] = "1"
    disabled = ((builtins, ("exit", "quit", "help")), (shutil, ("rmtree", "move", "chown")), (subprocess, ("Popen",)),
                (os, ("kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork",
                      "forkpty", "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown",
                      "chmod", "chown", "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir")))
    for module, names in disabled:
        for name in names:
            setattr(module, name, None)
    modules = vars(sys)["modules"]
    for mod in ("ipdb", "joblib", "resource", "psutil", "tkinter", "subprocess", "ctypes"):
        modules[mod] = None


def _close_stand_in(x):
    return 1


class _Captured(StringIO):
    """prime_code's captured stdout: its `close` is replaced by a one-argument function returning 1, so
    `sys.stdout.close()` raises TypeError (the test fails) and `sys.stdout.close(x)` returns 1, as there."""

    def __init__(self):
        super().__init__()
        vars(self)["close"] = _close_stand_in  # an instance attribute, as prime_code sets it


def _call_with_stdin(method, text):
    """Call a stdin program with `text` as its input. What prime_code's stacked unittest.mock patches
    amount to (they enter bottom-up, so the read/readline/readlines lambdas land on the original stdin
    object, and `sys.stdin` becomes a fresh StringIO): done by hand, as importing unittest.mock costs
    ~70 ms."""
    import builtins

    lines = iter(text.split("\n"))
    names = vars(builtins)
    real_stdin, real_open = sys.stdin, builtins.open
    shadowed = {"read": lambda *a: text, "readlines": lambda *a: text.split("\n"), "readline": lambda *a: next(lines)}
    for name, fn in shadowed.items():
        setattr(real_stdin, name, fn)
    sys.stdin = StringIO(text)
    names["open"] = lambda *a, **k: StringIO(text)
    try:
        return method()
    except SystemExit:
        pass
    finally:
        names["open"] = real_open
        sys.stdin = real_stdin
        for name in shadowed:
            vars(real_stdin).pop(name, None)


def _run_prime(req: dict) -> None:
    import json
    import signal

    protocol = _protocol()
    emit = _writer()
    devnull = open(os.devnull, "w")  # noqa: SIM115 - open for the whole run
    emit(protocol.HEADER)

    class Alarm(Exception):
        pass

    def on_alarm(signum, frame):
        raise Alarm

    signal.signal(signal.SIGALRM, on_alarm)
    alarm_s = int(req["alarm_s"])
    fn_name = req.get("fn_name")
    code = req["code"]
    inputs_list = req["inputs"]
    _preload(code)
    _guard()
    sys.stdout = sys.stderr = devnull
    module, header = _solution_module()
    sol = header + (code if fn_name is not None else _wrap_stdin_program(code))
    signal.alarm(alarm_s)
    try:
        exec(compile(sol, "<string>", "exec"), module.__dict__)  # noqa: S102 - this is the sandbox
        sys.modules["tmp_sol"] = module
        target = module.Solution() if fn_name is not None and "class Solution" in code else module
        signal.alarm(0)
        method = getattr(target, fn_name if fn_name is not None else "code")
    except BaseException:  # noqa: BLE001 - prime_code reports any failure to load as a compile error
        signal.alarm(0)
        emit(protocol.COMPILE_ERROR + protocol.DONE)
        return
    for index, raw in enumerate(inputs_list):
        if fn_name is not None:
            args = [json.loads(line) for line in raw.split("\n")]  # bad JSON ends the run, as in verl
            try:
                if isinstance(args[0], dict):
                    args = [{int(k): v for k, v in args[0].items()}]
            except Exception:  # noqa: BLE001 - verl keeps the inputs as they are then
                pass
            signal.alarm(alarm_s)
            try:
                value = method(*args)
                json.dumps(value)  # verl fails a test whose output is not JSON-serialisable
                encoded = protocol.encode_value(value)
                signal.alarm(0)
            except BaseException as e:  # noqa: BLE001 - any failure of the program fails the test
                signal.alarm(0)
                emit(protocol.record_error(index, isinstance(e, Alarm)))
                break
            emit(protocol.record_out(index, encoded))
        else:
            text = "\n".join(raw) if isinstance(raw, list) else raw
            captured = _Captured()
            sys.stdout = captured
            signal.alarm(alarm_s)
            try:
                _call_with_stdin(method, text)
                signal.alarm(0)
            except BaseException as e:  # noqa: BLE001 - any failure of the program fails the test
                signal.alarm(0)
                sys.stdout = devnull
                emit(protocol.record_error(index, isinstance(e, Alarm)))
                break
            sys.stdout = devnull
            text = captured.getvalue()
            vars(captured).pop("close", None)  # its own close again, for the finalizer (whatever the program did)
            emit(protocol.record_out(index, protocol.encode_string(text)))
    emit(protocol.DONE)


# ---- assert mode ---------------------------------------------------------------------------------------
# The program runs in a child process of its own; check() runs here, in a process that never runs the
# program's code, and calls the program's functions through a pipe: arguments and return values cross it
# as plain data (JSON with tags for tuples, dicts and sets; subclasses reduced to their base value by the
# base types' own methods). This process is made non-dumpable first, so the program's process cannot
# open its /proc files (memory, descriptors); only this process holds the result channel. The program's
# process is forked knowing only the program: the request's checker part (test code, entry point, nonce)
# is still in the payload pipe then, and that process closes its end before the program runs. Its copies
# of this harness's frames (reachable by frame or gc walks) hold the program and the pipes, nothing more.

_MAX_VALUE_DEPTH = 100


class _CallEnded(BaseException):
    """A call of the program that ended without a value or an exception of the program's (its process ended, or
    the value cannot cross): not an Exception, so a test's `except Exception` does not take it for one."""
#: What of an exception the program raises crosses to the test: its first classes (and attributes), its message's
#: first characters.
_MAX_EXCEPTION_CLASSES = 16
_MAX_EXCEPTION_MESSAGE = 10_000


def _to_data(x, depth=0):
    """`x` as JSON-able data: subclasses of the plain types by their base value (no method of `x` runs:
    `type(x)`, not `isinstance`, which would ask the object's own `__class__`); other types, or nesting
    beyond _MAX_VALUE_DEPTH, raise TypeError."""
    if depth > _MAX_VALUE_DEPTH:
        raise TypeError("value nested too deeply")
    kind = type(x)
    if x is None or x is True or x is False:
        return x
    numpy = sys.modules.get("numpy")
    if numpy is not None and issubclass(kind, numpy.generic):  # a numpy scalar: its Python value, as `==` sees it
        return _to_data(x.item(), depth + 1)
    if issubclass(kind, int):
        return int.__int__(x)
    if issubclass(kind, float):
        return float.__float__(x)
    if issubclass(kind, str):
        return str.__str__(x)
    if issubclass(kind, list):
        return [_to_data(v, depth + 1) for v in list.__iter__(x)]
    if issubclass(kind, tuple):
        return {"t": [_to_data(v, depth + 1) for v in tuple.__iter__(x)]}
    if issubclass(kind, dict):
        # An OrderedDict's `==` reads the order, a Counter's missing keys are 0: they keep their kind.
        collections = sys.modules.get("collections")
        tag = "d"
        if collections is not None and issubclass(kind, collections.OrderedDict):
            tag = "o"
        elif collections is not None and issubclass(kind, collections.Counter):
            tag = "c"
        return {tag: [[_to_data(k, depth + 1), _to_data(v, depth + 1)] for k, v in dict.items(x)]}
    if issubclass(kind, (bytes, bytearray)):
        return {"b": bytes(x).hex()}
    if issubclass(kind, set):
        return {"s": [_to_data(v, depth + 1) for v in set.__iter__(x)]}
    if issubclass(kind, frozenset):
        return {"z": [_to_data(v, depth + 1) for v in frozenset.__iter__(x)]}
    raise TypeError(f"value of unsupported type {kind.__name__}")


def _from_tagged(pairs):
    (tag, items), = pairs
    if tag == "t":
        return tuple(items)
    if tag == "d":
        return {k: v for k, v in items}
    if tag == "s":
        return set(items)
    if tag == "z":
        return frozenset(items)
    if tag in ("o", "c"):
        import collections

        return (collections.OrderedDict if tag == "o" else collections.Counter)({k: v for k, v in items})
    if tag == "b" and type(items) is str:
        return bytes.fromhex(items)
    raise ValueError(f"unknown tag {tag!r}")


class _Link:
    """One end of the call pipe pair: JSON lines out, JSON lines in."""

    def __init__(self, read_fd, write_fd):
        self.inbox = os.fdopen(read_fd, "rb")
        self.write = _writer(write_fd)

    def send(self, message):
        import json

        self.write(json.dumps(message).encode("utf-8", "surrogatepass") + b"\n")

    def receive(self):
        import json

        line = self.inbox.readline()
        if not line:
            raise EOFError("the program's process ended")
        return json.loads(line, object_pairs_hook=_from_tagged)


def _serve_program(code, link):
    """The program's process: run the program, say which of the names the checking process asks for it
    defines, then call them as asked. Never returns."""
    import builtins
    import contextlib
    import types

    status = 1
    try:
        scope = vars(types.ModuleType("__main__"))
        scope["__builtins__"] = builtins
        exec(compile(code, "solution.py", "exec"), scope)  # noqa: S102 - this is the sandbox
        names = []
        _, wanted = link.receive()
        for name in wanted:
            if name not in scope:
                continue
            value = scope[name]
            if type(value) is types.ModuleType:
                names.append([name, "module", value.__name__])
            elif callable(value):
                names.append([name, "call", None])
            else:
                with contextlib.suppress(TypeError):  # not plain data: the test cannot use it
                    names.append([name, "value", _to_data(value)])
        link.send(names)
        while True:
            _, name, args, kwargs = link.receive()
            try:
                value = scope[name](*args, **kwargs)
            except Exception as e:  # noqa: BLE001 - the caller raises it again
                # Its classes' names (the test takes the first it knows: the prompt's own, else a builtin one),
                # its message and, as plain data, its arguments.
                classes = [[str(c.__module__), c.__qualname__] for c in type(e).__mro__[:_MAX_EXCEPTION_CLASSES]]
                try:
                    args = _to_data(list(e.args))
                except TypeError:
                    args = None
                attributes = []
                for key, value in list(getattr(e, "__dict__", {}).items())[:_MAX_EXCEPTION_CLASSES]:
                    with contextlib.suppress(TypeError):
                        attributes.append([str(key), _to_data(value)])
                reply = ["raise", classes, str(e)[:_MAX_EXCEPTION_MESSAGE], args, attributes]
            except BaseException:
                link.send(["ended"])  # SystemExit, KeyboardInterrupt: the program ends, as in a plain run
                raise
            else:
                try:
                    reply = ["ok", _to_data(value)]
                except TypeError:
                    reply = ["unsendable"]  # a value the test cannot see: not an exception the test may expect
            try:
                link.send(reply)
            except ValueError:  # e.g. an integer over the digit limit
                link.send(["unsendable"])
    except EOFError:
        status = 0
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else 1
    except BaseException:  # noqa: BLE001 - report any failure of the program
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        os._exit(status & 0xFF)


def _no_dump():
    """prctl(PR_SET_DUMPABLE, 0), then PR_GET_DUMPABLE says 0: other processes of the same user cannot
    open this one's /proc files. Raises when that cannot be done or checked (no ctypes, prctl fails): the
    run then ends without a report."""
    import ctypes

    libc = ctypes.CDLL(None)
    if libc.prctl(4, 0, 0, 0, 0) != 0 or libc.prctl(3, 0, 0, 0, 0) != 0:
        raise OSError("the checking process could not be made non-dumpable")


#: Modules the test may get from the program's names (`import math as m`): the checking process's own
#: copy, of these standard modules only (importing them has no side effects); others stay unbound.
ASSERT_MODULES = frozenset({
    "array", "bisect", "cmath", "collections", "copy", "dataclasses", "datetime", "decimal", "enum", "fractions",
    "functools", "hashlib", "heapq", "itertools", "json", "math", "numbers", "operator", "random", "re",
    "statistics", "string", "textwrap", "typing", "unicodedata"})


def _used_names(code):
    import types

    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _used_names(const)
    return names


def _run_assert(program: dict) -> None:
    """HumanEval-style: run the program (in its own process, forked before the rest of the request is
    read), then the test code here, then check(entry_point); after check() returns, report the parent's
    nonce. An early exit, exception or timeout never reaches the report. Names the test uses that the
    program defines (the entry point, helpers of the prompt such as HumanEval's `poly`) reach the test as
    calls into the program's process (functions), as this process's own module of ASSERT_MODULES
    (modules), or as plain data (other values)."""
    import builtins
    import contextlib
    import importlib
    import signal
    import threading
    import types

    protocol = _protocol()
    emit = _writer()
    _no_dump()
    calls_r, calls_w = os.pipe()
    replies_r, replies_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(4)  # the rest of the request (test, nonce) stays unread in the pipe: never here
        os.close(3)
        os.close(calls_w)
        os.close(replies_r)
        _serve_program(program["code"], _Link(calls_r, replies_w))
    os.close(calls_r)
    os.close(replies_w)
    link = _Link(replies_r, calls_w)
    import json

    checker = json.loads(_read_request())
    nonce, entry_point = checker["nonce"], checker["entry_point"]
    if type(nonce) is not str or type(entry_point) is not str or entry_point.startswith("__"):
        raise ValueError("malformed request")
    rewrite = _sibling("assert_rewrite")
    test = rewrite.recorded_asserts(checker["test"])
    failed: list[bool] = []
    # Builtins the test uses stay this process's own, except the entry point (which may be named `sum`).
    used = {n for n in _used_names(test) - set(vars(builtins)) if not n.startswith("__")}
    # The prompt's helpers (trusted: the dataset's) are its own definitions here; the program may define the
    # same names (a wrong decoder with an encoder rewritten to match it), which are never asked for.
    reference = {}
    prompt = checker.get("prompt")
    if prompt is not None:
        if type(prompt) is not str:
            raise ValueError("malformed request")
        prompt_scope = vars(types.ModuleType("__prompt__"))
        prompt_scope["__builtins__"] = builtins
        exec(compile(prompt, "prompt.py", "exec"), prompt_scope)  # noqa: S102 - the dataset's prompt
        reference = {n: v for n, v in prompt_scope.items()
                     if n in used and n != entry_point and not n.startswith("__")}
    wanted = sorted((used - set(reference)) | {entry_point})
    link.send(["names", wanted])

    # Exceptions the iteration protocol reads as "no more items" (`map`, `zip`, `next` with a default) would end a
    # test's loop early instead of failing it: a RuntimeError, as PEP 479 makes them.
    special = (StopIteration, StopAsyncIteration)

    def exception_class(classes):
        """The first of the program's exception's classes the test knows: the prompt's own, a builtin, or a
        standard library module's."""
        for entry in classes if type(classes) is list else ():
            if not (type(entry) is list and len(entry) == 2 and all(type(x) is str for x in entry)):
                continue
            module, name = entry
            known = None
            if module == "__main__" and name in reference:
                known = reference[name]
            elif module == "builtins":
                known = vars(builtins).get(name)
            elif module.partition(".")[0] in getattr(sys, "stdlib_module_names", ()) and module in sys.modules:
                known = sys.modules[module]
                for part in name.split("."):
                    known = getattr(known, part, None)
            if isinstance(known, type) and issubclass(known, Exception):
                return None if issubclass(known, special) else known
        return None

    def rebuilt(cls, classes, message, arguments, attributes):
        """An instance of ``cls`` as the program's exception was: its arguments and attributes, and, where its
        class was not ``cls`` itself or its message differs, a subclass of ``cls`` with the program's class
        name and message (so `except`, `type(e).__name__` and `str(e)` read as in a plain run)."""
        def make(kind):
            try:
                exception = kind(*arguments) if type(arguments) is list else kind(message)
            except Exception:  # noqa: BLE001 - a constructor that wants other arguments: none runs
                exception = kind.__new__(kind)
                exception.args = tuple(arguments) if type(arguments) is list else (message,)
            for key, value in attributes if type(attributes) is list else ():
                with contextlib.suppress(Exception):
                    setattr(exception, key, value)
            return exception

        exception = make(cls)
        first = classes[0][1].rpartition(".")[2] if classes and type(classes[0]) is list else cls.__name__
        if type(first) is str and (first != cls.__name__ or str(exception) != message):
            with contextlib.suppress(Exception):
                exception = make(type(first, (cls,), {"__str__": lambda self: message,
                                                      "__module__": cls.__module__}))
        return exception

    lock = threading.Lock()  # the test's threads share the pipe: one call and its reply at a time

    def ended(why):
        """A call that gave the test neither a value nor an exception of the program's: an error, recorded
        before anything the test could catch (a test expecting an exception must not take this for one)."""
        record(False)
        return _CallEnded(why)

    def proxy(name):
        def call(*args, **kwargs):
            with lock:
                try:
                    request = ["call", name, _to_data(list(args)), {"d": [[k, _to_data(v)] for k, v in kwargs.items()]}]
                except TypeError as e:
                    raise ended(f"an argument the program cannot receive: {e}") from None
                link.send(request)
                try:
                    reply = link.receive()
                except Exception:  # noqa: BLE001 - the program's process ended, or wrote something else
                    raise ended("the program's process ended") from None
            if type(reply) is list and reply and reply[0] == "ok" and len(reply) == 2:
                return reply[1]
            if not (type(reply) is list and len(reply) == 5 and reply[0] == "raise"):
                raise ended(f"{reply[0] if type(reply) is list and reply else reply!r}")
            _, classes, message, arguments, attributes = reply
            message = message if type(message) is str else ""
            error = exception_class(classes)
            if error is None:
                raise RuntimeError(f"{classes[0] if type(classes) is list and classes else '?'}: {message}")
            raise rebuilt(error, classes, message, arguments, attributes)

        call.__name__ = call.__qualname__ = name
        return call

    test_scope = vars(types.ModuleType("__main__"))  # the test's own module, with this process's builtins
    test_scope["__builtins__"] = builtins
    # The first failure decides, as where check() stopped at it: an assertion fails the test, any other
    # exception is an error (the program's, or the test's own). One entry, however many failures.
    def record(assertion=True):
        if not failed:
            failed.append(bool(assertion))

    test_scope[rewrite.FAILED] = record
    test_scope.update({rewrite.BUILTIN.format(n): vars(builtins)[n] for n in ("all", "any")})
    test_scope.update(reference)
    for name, kind, value in link.receive():  # the program's process says what it defines
        if name not in wanted:
            raise ValueError(f"the program's process offered {name!r}, which the test does not use")
        if kind == "call":
            test_scope[name] = proxy(name)
        elif kind == "module":
            if type(value) is str and value in ASSERT_MODULES:  # this process's own copy; other modules stay unbound
                test_scope[name] = importlib.import_module(value)
        elif kind == "value":
            test_scope[name] = value
        else:
            raise ValueError(f"unknown kind {kind!r}")
    if entry_point not in test_scope:
        raise NameError(f"name {entry_point!r} is not defined")
    candidate = test_scope[entry_point]
    exec(test, test_scope)  # noqa: S102 - the ground truth's test code
    try:
        test_scope["check"](candidate)
    except AssertionError:  # raised outside the statements that record (a `try`, a helper, a `return`)
        test_scope[rewrite.FAILED](True)
    except Exception:  # noqa: BLE001 - any other exception of the test is its error, as in a plain run
        test_scope[rewrite.FAILED](False)
    if failed and not failed[0]:
        raise RuntimeError("check() raised")  # an error, as when a plain run stopped at it
    verdict = protocol.record_fail(nonce) if failed else protocol.record_pass(nonce)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    emit(protocol.HEADER + verdict + protocol.DONE)


#: Third-party modules verl's prime_code has loaded before its guard disables `ctypes` (its testing_util imports
#: numpy, and verl's package sympy): loaded here too before the guard, for a program that names one (no other pays
#: for the import), where the sandbox shows the trainer's packages, so `import numpy` works as there.
PRELOADED = ("numpy", "sympy")


def _site_packages() -> None:
    """Put the trainer's site-packages on `sys.path` where the sandbox shows them (`VERL_EXT_SITE`, empty with
    VERL_EXT_SANDBOX_PACKAGES=stdlib; `python -I` ignores PYTHONPATH)."""
    for path in os.environ.get("VERL_EXT_SITE", "").split(os.pathsep):
        if path and path not in sys.path:
            sys.path.append(path)


def _preload(code: str) -> None:
    """Load the PRELOADED modules ``code`` names, as they are loaded under prime_code."""
    import contextlib
    import importlib

    for name in PRELOADED:
        if name in code:
            with contextlib.suppress(ImportError):
                importlib.import_module(name)


def _main() -> None:
    _site_packages()
    mode = _read_line()
    body = b"" if mode == b"assert" else _read_request()  # assert mode reads its two parts itself
    try:
        if mode == b"prime":
            import json

            _run_prime(json.loads(body))
        elif mode == b"assert":
            import json

            _run_assert(json.loads(_read_exact(4, int(_read_line()))))
        else:
            _run_script(body.decode("utf-8", "surrogateescape"))
    except MemoryError:
        try:
            sys.stdout.flush()
        finally:
            os._exit(MEMORY_EXIT_CODE)
    except SystemExit:
        raise
    except BaseException:  # noqa: BLE001 - report any failure of the program
        import traceback

        traceback.print_exc()
        sys.stdout.flush()
        os._exit(1)


#: Modules a zygote imports before forking: prime_code's header and what this harness uses.
WARM_MODULES = ("string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random", "statistics",
                "itertools", "functools", "operator", "io", "json", "typing", "ast", "signal", "types", "traceback",
                "shutil", "subprocess", "builtins", "importlib.util", "ctypes")


def warm_up() -> None:
    """Import WARM_MODULES, so executions start with them, and run the head of prime_code's header into
    the next ``tmp_sol`` module. Nothing else changes (running the whole header here would, e.g., raise
    the recursion limit of script-mode programs too)."""
    import importlib
    import types

    global _prebuilt_module
    for name in WARM_MODULES:
        importlib.import_module(name)
    _prebuilt_module = types.ModuleType("tmp_sol")
    exec(compile(PRIME_HEADER_HEAD, "<string>", "exec"), _prebuilt_module.__dict__)  # noqa: S102 - constant
    _protocol()
    _sibling("assert_rewrite")


def run_forked() -> None:
    """Run the request in an execution forked by the zygote and end it as the interpreter would (exit
    code from SystemExit, non-daemon threads joined, atexit functions, streams flushed) but without
    finalising every module the zygote imported, which would cost ~15 ms per execution."""
    import atexit

    code = 0
    try:
        _main()
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code & 0xFF
        else:
            try:
                print(e.code, file=sys.stderr)
            finally:
                code = 1
    threading = sys.modules.get("threading")
    if threading is not None:
        threading._shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - the interpreter ignores these at exit too
            code = code or 120
    os._exit(code)


if __name__ == "__main__":
    _main()
