# verl-ext-sandbox-zygote: runs inside the sandbox as `python -I -S -B -c <this file> <_core path> <harness path>`.
# Loads the compiled core and the harness (with `__file__` set, so that it finds protocol.py next to it),
# imports what test programs use, then serves spawn requests on fd 3 (see
# crates/verl_ext_sandbox/src/zygote.rs). `_zygote_serve` returns only in a forked execution, already
# isolated (fresh namespaces, tmpfs, rlimits, no capabilities, Landlock, seccomp), which then runs the
# harness on its request exactly as a cold start would.
import sys


def _start():
    import importlib.util
    import types

    core_path, harness_path = sys.argv[1], sys.argv[2]
    spec = importlib.util.spec_from_file_location("verl_ext._core", core_path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {core_path}")
    core = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(core)
    with open(harness_path, encoding="utf-8") as f:
        source = f.read()
    harness = vars(types.ModuleType("verl_ext_harness"))
    harness.update(__file__=harness_path, __builtins__=__builtins__)
    exec(compile(source, harness_path, "exec"), harness)  # noqa: S102 - our own harness
    harness["warm_up"]()
    # Collections in an execution would otherwise walk (and so copy, page by page) every object the
    # zygote made; frozen, they stay shared.
    import gc

    gc.collect()
    gc.freeze()
    core._zygote_serve(3)
    return harness["run_forked"]


_start()()
