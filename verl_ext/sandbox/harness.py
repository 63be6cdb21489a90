# verl-ext-sandbox-harness: runs inside the sandbox as `python -I -S -B -c <this file>` (cold start), or
# in an execution forked by the zygote (zygote.py), which loaded it beforehand and calls `_main()`.
# Reads a request from fd 4: a mode line (`script`, `prime` or `assert`), then the body. Exit codes: the program's own; 1 for an uncaught exception; 102 for
# MemoryError. Modes:
#   script: run the program as __main__ with the sandbox's stdin/stdout/stderr.
#   prime:  run verl prime_code's test procedure (same code wrapping, imports, guards, per-test alarms)
#           and report each test's *output* on fd 3, one JSON line per test. Expected outputs never
#           enter the sandbox: the parent compares.
#   assert: HumanEval-style assert tests; a nonce from the parent is reported after check() returns.
import os
import sys

MEMORY_EXIT_CODE = 102


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


def _wrap_stdin_program(code: str) -> str:
    """prime_code's rewrite of a stdin program into `def code():` (top-level imports stay outside)."""
    import ast

    try:
        tree = ast.parse(code)
        last = tree.body[-1]
        if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
            code = ast.unparse(tree.body[:-1]) + "\n" + ast.unparse(last.body)
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

    builtins.exit = None
    builtins.quit = None
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in ("kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork", "forkpty",
                 "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown", "chmod", "chown",
                 "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir"):
        setattr(os, name, None)
    shutil.rmtree = shutil.move = shutil.chown = None
    subprocess.Popen = None
    builtins.help = None
    for mod in ("ipdb", "joblib", "resource", "psutil", "tkinter", "subprocess", "ctypes"):
        sys.modules[mod] = None


def _encode(x, depth=0):
    """Output value -> JSON keeping the distinctions prime_code's comparison sees (tuple vs list).
    Subclasses are reduced to their base value: an object cannot choose its own equality."""
    if depth > 200:
        raise ValueError("output nested too deeply")
    if x is None or x is True or x is False:
        return x
    if isinstance(x, int):
        return int(x)
    if isinstance(x, float):
        return {"f": float.__repr__(x)}
    if isinstance(x, str):
        return str.__str__(x)
    if isinstance(x, tuple):
        return {"t": [_encode(v, depth + 1) for v in x]}
    if isinstance(x, list):
        return [_encode(v, depth + 1) for v in x]
    if isinstance(x, dict):
        return {"d": [[_encode(k, depth + 1), _encode(v, depth + 1)] for k, v in x.items()]}
    raise TypeError(f"unsupported output type {type(x).__name__}")


def _run_prime(req: dict) -> None:
    import builtins
    import json
    import signal
    from io import StringIO

    out = os.fdopen(3, "w", encoding="utf-8", errors="surrogatepass")
    devnull = open(os.devnull, "w")  # noqa: SIM115

    def report(**item) -> None:
        out.write(json.dumps(item) + "\n")
        out.flush()

    class Alarm(Exception):
        pass

    def on_alarm(signum, frame):
        raise Alarm

    signal.signal(signal.SIGALRM, on_alarm)
    alarm_s = int(req["alarm_s"])
    fn_name = req.get("fn_name")
    code = req["code"]
    inputs_list = req["inputs"]
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
    except BaseException as e:  # noqa: BLE001
        signal.alarm(0)
        report(r="compile_error", error=repr(e)[:300])
        report(r="done")
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
                encoded = _encode(value)
                signal.alarm(0)
            except BaseException as e:  # noqa: BLE001
                signal.alarm(0)
                report(i=index, r="error", error=repr(e)[:300], timeout=isinstance(e, Alarm))
                break
            report(i=index, r="out", v=encoded)
        else:
            text = "\n".join(raw) if isinstance(raw, list) else raw
            lines = iter(text.split("\n"))
            captured = StringIO()
            captured.close = lambda *a: 1

            def call():
                # What prime_code's stacked unittest.mock patches amount to (they enter bottom-up, so the
                # read/readline/readlines lambdas land on the original stdin object, and `sys.stdin`
                # becomes a fresh StringIO): done by hand, as importing unittest.mock costs ~70 ms.
                real_stdin, real_open = sys.stdin, builtins.open
                shadowed = {"read": lambda *a: text, "readlines": lambda *a: text.split("\n"),
                            "readline": lambda *a: next(lines)}
                for name, fn in shadowed.items():
                    setattr(real_stdin, name, fn)
                sys.stdin = StringIO(text)
                builtins.open = lambda *a, **k: StringIO(text)
                try:
                    return method()
                except SystemExit:
                    pass
                finally:
                    builtins.open = real_open
                    sys.stdin = real_stdin
                    for name in shadowed:
                        try:
                            delattr(real_stdin, name)
                        except AttributeError:
                            pass

            sys.stdout = captured
            signal.alarm(alarm_s)
            try:
                call()
                signal.alarm(0)
            except BaseException as e:  # noqa: BLE001
                signal.alarm(0)
                sys.stdout = devnull
                report(i=index, r="error", error=repr(e)[:300], timeout=isinstance(e, Alarm))
                break
            sys.stdout = devnull
            report(i=index, r="out", v=captured.getvalue())
    report(r="done")


def _run_assert(req: dict) -> None:
    """HumanEval-style: define the solution, define the tests, call check(entry_point); then report the
    parent's nonce. An early exit, exception or timeout never reaches the report."""
    import json

    out = os.fdopen(3, "w", encoding="utf-8")
    nonce = req.pop("nonce")
    scope = {"__name__": "__main__", "__builtins__": __builtins__}
    exec(compile(req["code"], "solution.py", "exec"), scope)  # noqa: S102 - this is the sandbox
    exec(compile(req["test"], "test.py", "exec"), scope)  # noqa: S102
    scope["check"](scope[req["entry_point"]])
    out.write(json.dumps({"r": "done", "nonce": nonce}) + "\n")
    out.flush()


def _main() -> None:
    mode, _, body = _read_request().partition(b"\n")
    try:
        if mode in (b"prime", b"assert"):
            import json

            (_run_prime if mode == b"prime" else _run_assert)(json.loads(body))
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
                "shutil", "subprocess", "builtins")


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
