"""The process pool of synchronous reward functions: every way a call can fail gives a defined result, and
the pool keeps serving (a broken process is replaced)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from verl_ext.reward.functions import FunctionSpec
from verl_ext.reward.process_pool import CallFailed, FunctionPool

FNS = str(Path(__file__).parent / "fixtures" / "reward_fns.py")
ARGS = {"data_source": "d", "ground_truth": "1", "extra_info": None}


@pytest.fixture(scope="module")
def pool() -> Iterator[FunctionPool]:
    p = FunctionPool([FunctionSpec(FNS, "hostile"), FunctionSpec(FNS, "pid")], processes=1)
    yield p
    p.close()


def call(pool: FunctionPool, text: str, timeout_s: float = 60.0, index: int = 0) -> object:
    return pool.submit(index, {**ARGS, "solution_str": text}, timeout_s).result(timeout=300)


@pytest.mark.parametrize(("text", "message", "replaced"), [
    ("exit", "its process died (exit code 7)", True),
    ("hang", "timed out after 1 s", True),
    ("huge", "answered more than", True),
    ("systemexit", "SystemExit: 3", False),
    ("unpicklable", "TypeError", False),
])
def test_a_failing_call_gets_a_defined_result_and_the_pool_goes_on(pool: FunctionPool, text: str, message: str,
                                                                  replaced: bool) -> None:
    before = pool.replaced
    got = call(pool, text, timeout_s=1.0 if text == "hang" else 60.0)
    assert isinstance(got, CallFailed) and message in got.message and got.label == "hostile"
    assert pool.replaced == before + int(replaced)
    assert call(pool, "fine") == 0.5  # the next call is served (by a new process where needed)


def test_a_bad_return_value_is_passed_back_for_the_runner_to_judge(pool: FunctionPool) -> None:
    assert call(pool, "none") is None


def test_functions_are_imported_once_per_process_and_the_process_is_reused(pool: FunctionPool) -> None:
    first = call(pool, "a", index=1)
    second = call(pool, "b", index=1)
    assert isinstance(first, dict) and isinstance(second, dict)
    assert first["pid"] == second["pid"] and second["calls"] == first["calls"] + 1


def test_arguments_that_do_not_pickle_fail_that_call_only(pool: FunctionPool) -> None:
    import threading

    got = pool.submit(0, {**ARGS, "solution_str": "x", "extra_info": threading.Lock()}, 10).result(timeout=300)
    assert isinstance(got, CallFailed) and "do not pickle" in got.message
    assert call(pool, "fine") == 0.5


def test_a_module_that_does_not_import_fails_each_call_with_the_reason(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('broken module')\n")
    with contextlib.closing(FunctionPool([FunctionSpec(str(bad), "compute_score")], processes=1)) as p:
        got = p.submit(0, {**ARGS, "solution_str": "x"}, 30).result(timeout=300)
        assert isinstance(got, CallFailed) and "broken module" in got.message and got.raised


def test_closed_pool_refuses_calls() -> None:
    p = FunctionPool([FunctionSpec(FNS, "pid")], processes=1)
    p.close()
    with pytest.raises(RuntimeError, match="closed"):
        p.submit(0, {**ARGS, "solution_str": "x"}, 1)


def test_a_forked_child_never_answers_for_the_worker() -> None:
    p = FunctionPool([FunctionSpec(FNS, "forker")], processes=1)
    try:
        got = [p.submit(0, {**ARGS, "solution_str": text}, 30).result(timeout=300)
               for text in ["fork", "ab", "abc", "fork", "abcd"]]
    finally:
        p.close()
    assert got == [4.0, 2.0, 3.0, 4.0, 4.0]


def test_a_timeout_kills_the_functions_children_too(tmp_path: Path) -> None:
    import os
    import time

    pid_file = tmp_path / "child.pid"
    spawner = FunctionSpec(FNS, "spawner", kwargs={"pid_file": str(pid_file)})
    with contextlib.closing(FunctionPool([spawner], processes=1)) as p:
        got = p.submit(0, {**ARGS, "solution_str": "x", "pid_file": str(pid_file)}, 2.0).result(timeout=300)
        assert isinstance(got, CallFailed) and "timed out" in got.message
        child = int(pid_file.read_text())
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            with open(f"/proc/{child}/stat") as stat:  # reaped by init soon; a zombie counts as gone
                if stat.read().split(")")[-1].split()[0] == "Z":
                    break
            time.sleep(0.1)
        else:
            pytest.fail(f"the function's child {child} outlived the timeout")


def test_calls_sent_ahead_of_a_failing_one_run_again_on_the_new_process() -> None:
    """A process gets the next call while it runs one; when the running call kills it or times out, the
    calls sent ahead were never started: each runs on the replacement and gets its own result."""
    with contextlib.closing(FunctionPool([FunctionSpec(FNS, "hostile"), FunctionSpec(FNS, "pid")], processes=1)) as p:
        texts = ["exit", "a", "b", "hang", "c", "exit", "d"]
        futures = [p.submit(0, {**ARGS, "solution_str": t}, 1.0 if t == "hang" else 60.0) for t in texts]
        got = [f.result(timeout=300) for f in futures]
        for text, result in zip(texts, got, strict=True):
            if text == "exit":
                assert isinstance(result, CallFailed) and "its process died" in result.message, result
            elif text == "hang":
                assert isinstance(result, CallFailed) and "timed out after 1 s" in result.message, result
            else:
                assert result == 0.5, (text, result)
        assert p.replaced == 3


@pytest.mark.parametrize("size", [100, 4 << 20])
def test_a_call_behind_a_hanging_one_never_delays_its_timeout(size: int) -> None:
    """Whatever the size of the next call's arguments (a large one is not sent ahead: the pipe would block the
    dispatcher), the hanging call times out on time and the next one then runs."""
    import time

    with contextlib.closing(FunctionPool([FunctionSpec(FNS, "hostile")], processes=1)) as p:
        started = time.monotonic()
        hang = p.submit(0, {**ARGS, "solution_str": "hang"}, 2.0)
        after = p.submit(0, {**ARGS, "solution_str": "x" * size}, 60.0)
        assert "timed out after 2 s" in hang.result(timeout=300).message
        assert time.monotonic() - started < 60  # 2 s, slowed at most 30x by a busy machine, not an hour
        assert after.result(timeout=300) == 0.5


def test_a_message_begun_and_never_finished_times_out() -> None:
    """A child the function forked writes the start of an answer to the pipe and stops: the call times out
    (its timeout plus at most the second given to finish a message); the call sent after it may have
    started (the answer may have been the process's), so it fails rather than run twice; the pool goes on."""
    import time

    with contextlib.closing(FunctionPool([FunctionSpec(FNS, "hostile")], processes=1)) as p:
        started = time.monotonic()
        partial = p.submit(0, {**ARGS, "solution_str": "partial"}, 2.0)
        after = p.submit(0, {**ARGS, "solution_str": "x"}, 60.0)
        assert "timed out after 2 s (its answer began but did not finish)" in partial.result(timeout=300).message
        assert time.monotonic() - started < 60  # 2 + 1 s, slowed by a busy machine; it used to hang for ever
        assert "not run again" in after.result(timeout=300).message
        assert call(p, "x") == 0.5


@pytest.mark.parametrize("late", [True, False])
def test_an_answer_written_as_its_process_is_stopped_counts_and_the_next_call_is_not_run_twice(late: bool) -> None:
    """The deadline passes; the process is stopped. An answer it wrote as its time ran out is taken, but the
    process may then have started the call sent after it, which therefore must not run again (the dispatcher
    fails it instead); without an answer the call timed out and the next one never started."""
    import concurrent.futures
    import multiprocessing
    import pickle
    import time
    import typing
    from types import SimpleNamespace
    from typing import Any

    from verl_ext.reward.process_pool import _Call

    reader, writer = multiprocessing.Pipe(duplex=True)

    class Stopped:
        conn = reader
        process = SimpleNamespace(join=lambda timeout=None: None, exitcode=-9)

        def stop(self) -> None:
            if late:
                writer.send_bytes(pickle.dumps((1, "ok", 0.75)))

    p = FunctionPool([FunctionSpec(FNS, "hostile")], processes=1)
    try:
        call = _Call(0, "hostile", {}, 0.1, concurrent.futures.Future())
        got = p._dispatcher._receive(typing.cast(Any, Stopped()), call, 1, time.monotonic() + 0.1)
        if late:
            assert got == (0.75, True, True)
        else:
            assert isinstance(got[0], CallFailed) and "timed out after 0.1 s" in got[0].message
            assert got[1:] == (True, False)
    finally:
        p.close()
        reader.close()
        writer.close()


def test_a_pool_never_closed_stops_its_processes_and_threads_when_collected() -> None:
    import gc
    import os
    import time

    p = FunctionPool([FunctionSpec(FNS, "pid")], processes=2)
    pid = p.submit(0, {**ARGS, "solution_str": "x"}, 60.0).result(timeout=300)["pid"]
    threads = list(p._threads)  # its own dispatchers (other tests' pools have theirs)
    del p
    gc.collect()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the collected pool's process is still alive")
    while time.monotonic() < deadline and any(t.is_alive() for t in threads):
        time.sleep(0.1)
    assert not any(t.is_alive() for t in threads)


def test_a_result_that_does_not_unpickle_fails_its_call_only() -> None:
    """The answer arrived whole (the process may already run the call sent after it): the process serves on
    and the next call gets its own result, run once."""
    with contextlib.closing(FunctionPool([FunctionSpec(FNS, "hostile")], processes=1)) as p:
        first = p.submit(0, {**ARGS, "solution_str": "unloadable"}, 60.0)
        second = p.submit(0, {**ARGS, "solution_str": "a"}, 60.0)
        got = first.result(timeout=300)
        assert isinstance(got, CallFailed) and "does not unpickle here" in got.message, got
        assert second.result(timeout=300) == 0.5
        assert p.replaced == 0


@pytest.fixture
def leaving_pool() -> Iterator[FunctionPool]:
    with contextlib.closing(FunctionPool([FunctionSpec(FNS, "leaver")], processes=1)) as p:
        yield p


def _leave(pool: FunctionPool, text: str, timeout_s: float = 60.0) -> object:
    return pool.submit(0, {**ARGS, "solution_str": text}, timeout_s).result(timeout=300)


def test_alarms_timers_and_handlers_of_one_call_do_not_reach_the_next(leaving_pool: FunctionPool) -> None:
    """Red team 3: an alarm left armed killed the worker during another sample's correct call (exit -14)."""
    first = _leave(leaving_pool, "alarm")
    after = _leave(leaving_pool, "look")
    assert isinstance(after, dict), after
    assert after["pid"] == first["pid"]  # type: ignore[index]
    assert (after["alarm"], after["timer"]) == (0, 0.0)
    assert "lambda" not in after["handler"]


def test_a_child_in_a_session_of_its_own_dies_with_its_call(leaving_pool: FunctionPool) -> None:
    """After the call, and at a timeout too, the function's descendants are killed: the worker is their subreaper."""
    import time

    got = _leave(leaving_pool, "daemon")
    assert isinstance(got, dict)
    child = got["child"]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.05)
    assert not _alive(child), f"the function's child {child} outlived its call"


def test_a_child_in_a_session_of_its_own_dies_when_its_call_times_out(leaving_pool: FunctionPool,
                                                                     tmp_path: Path) -> None:
    import time

    where = tmp_path / "child"
    got = leaving_pool.submit(0, {**ARGS, "solution_str": "daemon_hang", "ground_truth": str(where)}, 2.0).result(300)
    assert isinstance(got, CallFailed) and "timed out" in got.message
    child = int(where.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.05)
    assert not _alive(child), f"the function's child {child} outlived its timed-out call"


def test_a_thread_left_running_retires_the_process_without_failing_the_next_call(leaving_pool: FunctionPool) -> None:
    first = _leave(leaving_pool, "thread")
    nxt = leaving_pool.submit(0, {**ARGS, "solution_str": "fine"}, 60)
    after = nxt.result(timeout=300)
    assert isinstance(first, dict) and isinstance(after, dict), (first, after)
    assert after["pid"] != first["pid"]  # a fresh process: the thread is gone with the old one


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped by init, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_what_a_module_sets_up_when_it_loads_is_kept_across_calls() -> None:
    """The state put back after each call is the one after the functions were imported, not before."""
    spec = FunctionSpec(str(Path(__file__).parent / "fixtures" / "import_state.py"), "handler_kept")
    with contextlib.closing(FunctionPool([spec], processes=1)) as p:
        for _ in range(3):
            assert p.submit(0, {**ARGS, "solution_str": "x"}, 60).result(timeout=300) == 1.0


@pytest.fixture(scope="module")
def polluted_pool() -> Iterator[FunctionPool]:
    with contextlib.closing(FunctionPool([FunctionSpec(FNS, "polluter")], processes=1)) as p:
        yield p


@pytest.mark.parametrize("change", ["recursion", "rlimits", "hooks", "mask", "mask_pending", "cwd_umask_env",
                                    "hard_limit"])
def test_process_state_one_call_changes_is_put_back_before_the_next(polluted_pool: FunctionPool,
                                                                    change: str) -> None:
    """Red team 4: a recursion limit of 30, a lowered CPU or descriptor limit, a profiler, a blocked signal,
    a working directory, umask or environment left by one call reached the next correct call. A lowered hard
    limit cannot be raised back: that process retires after its answer and the next call runs in a fresh one."""
    before = _leave(polluted_pool, "look")
    changed = _leave(polluted_pool, change)
    after = _leave(polluted_pool, "look")
    assert isinstance(before, dict) and isinstance(changed, dict) and isinstance(after, dict), (changed, after)
    assert changed["pid"] == before["pid"]
    assert (after["pid"] != before["pid"]) == (change == "hard_limit")
    assert {k: v for k, v in after.items() if k != "pid"} == {k: v for k, v in before.items() if k != "pid"}


@pytest.fixture(scope="module")
def results_pool() -> Iterator[FunctionPool]:
    with contextlib.closing(FunctionPool([FunctionSpec(FNS, "result_kinds")], processes=1)) as p:
        yield p


@pytest.mark.parametrize("text", ["np_float", "np_int", "np_bool", "np_array", "ordered", "decimal", "fraction",
                                  "bytearray", "complex", "set", "frozenset", "bytes", "nested", "defaultdict"])
def test_plain_data_results_come_back_as_they_were(results_pool: FunctionPool, text: str) -> None:
    import numpy as np

    got = call(results_pool, text)
    assert not isinstance(got, CallFailed), got
    import importlib.util

    spec = importlib.util.spec_from_file_location("_result_kinds", FNS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    want = module.result_kinds("d", text, "1")
    assert type(got) is type(want)
    if isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want


def test_a_result_whose_rebuild_sleeps_fails_at_once_and_the_process_serves_on(results_pool: FunctionPool) -> None:
    """Red team 4: unpickling a result ran its ``__reduce__`` in the trainer (here a 5 s sleep, stalling the
    batch past the call's 1 s timeout): a class that is not plain data is refused, failing that call only."""
    import time

    started = time.monotonic()
    got = call(results_pool, "sleep_on_load", timeout_s=1.0)
    assert isinstance(got, CallFailed) and "does not unpickle here" in got.message, got
    assert "time.sleep" in got.message and "plain data" in got.message
    assert time.monotonic() - started < 4.5  # refused, not slept: the sleep alone is 5 s
    assert call(results_pool, "np_int") == 3


@pytest.mark.parametrize(("text", "why"), [("fraction_bomb", "fractions.Fraction"),
                                           ("colliding_set", "more than 2048 dict keys and set items"),
                                           ("object_array", "_reconstruct")])
def test_a_result_whose_rebuild_would_cost_the_trainer_fails_at_once(results_pool: FunctionPool, text: str,
                                                                       why: str) -> None:
    """Reward-path red team 4: a 40-byte result rebuilt as ``Fraction("1e20000000")`` held the trainer's GIL
    for 18 s, a set of keys sharing one hash took 10 s to rebuild, a 60-byte one became an array of 10**9
    objects. Each is refused as the trainer reads it (in far less than the seconds each cost before), failing
    that call only."""
    import time

    started = time.monotonic()
    got = call(results_pool, text)
    assert isinstance(got, CallFailed) and "does not unpickle here" in got.message and why in got.message, got
    assert time.monotonic() - started < 30
    assert call(results_pool, "np_int") == 3


def test_a_result_whose_rebuild_calls_exit_cannot_kill_the_trainer(tmp_path: Path) -> None:
    """Red team 4: a result whose ``__reduce__`` is ``os._exit(9)`` killed the trainer as it unpickled it."""
    import subprocess
    import sys

    script = tmp_path / "trainer.py"
    script.write_text(f"""
from verl_ext.reward.functions import FunctionSpec
from verl_ext.reward.process_pool import FunctionPool
p = FunctionPool([FunctionSpec({FNS!r}, "result_kinds")], processes=1)
args = {{"data_source": "d", "ground_truth": "1", "extra_info": None}}
print(repr(p.submit(0, {{**args, "solution_str": "exit_on_load"}}, 60).result(timeout=300)))
print(repr(p.submit(0, {{**args, "solution_str": "np_int"}}, 60).result(timeout=300)))
p.close()
""")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).parents[2])
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    first, second = done.stdout.strip().splitlines()[-2:]
    assert "CallFailed" in first and "posix._exit" in first and second == "np.int64(3)"


@pytest.mark.parametrize(("how", "group"), [("SIGINT", True), ("SIGTERM", False), ("SIGTERM", True)])
def test_every_descendant_dies_when_the_trainer_exits(tmp_path: Path, how: str, group: bool) -> None:
    """Red team 4: after Ctrl-C (KeyboardInterrupt reaching the top: the terminal signals the trainer's whole
    group) or SIGTERM (to the trainer alone, or its group) ended the trainer, a child the function started in
    a new session and a double-forked daemon survived (reparented to init), and the forkserver stayed while
    they lived (the daemon holds its "alive" pipe). The worker, its descendants and the forkserver all go."""
    import os
    import signal
    import subprocess
    import sys
    import time

    pids = tmp_path / "pids"
    script = tmp_path / "trainer.py"
    script.write_text(f"""
import signal
signal.signal(signal.SIGINT, signal.default_int_handler)  # as a terminal's foreground job has it
from verl_ext.reward.functions import FunctionSpec
from verl_ext.reward.process_pool import FunctionPool
p = FunctionPool([FunctionSpec({FNS!r}, "orphan_maker")], processes=1)
args = {{"data_source": "d", "solution_str": "x", "ground_truth": {str(pids)!r}, "extra_info": None}}
p.submit(0, args, 3600).result()
""")
    # A session of its own: Ctrl-C signals the terminal's whole foreground group (the forkserver too).
    trainer = subprocess.Popen([sys.executable, str(script)], cwd=Path(__file__).parents[2], start_new_session=True)
    found: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (pids.exists() and len(pids.read_text().split()) == 4):
            time.sleep(0.05)
        found = [int(p) for p in pids.read_text().split()]
        assert all(_alive(p) for p in found), found
        (os.killpg if group else os.kill)(trainer.pid, getattr(signal, how))
        trainer.wait(timeout=60)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(p) for p in found):
            time.sleep(0.05)
        survivors = {name: p for name, p in zip(["worker", "forkserver", "child", "daemon"], found, strict=True)
                     if _alive(p)}
        assert not survivors, f"outlived the trainer: {survivors}"
    finally:
        trainer.kill()
        trainer.wait()
        for pid in found:  # what this test started, should it have survived
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def test_interpreter_settings_of_one_call_do_not_reach_the_next() -> None:
    """Red team of issue 33: a buggy path a completion reaches left the decimal precision, the integer string
    limit, garbage collection off, a long switch interval, warnings as errors, a socket timeout and no stdout
    to every later call of its process. They are put back; a raised niceness (which cannot be lowered back)
    retires the process instead."""
    with contextlib.closing(FunctionPool([FunctionSpec(FNS, "interpreter_state")], processes=1)) as pool:
        def call(text: str) -> dict:
            return pool.submit(0, {**ARGS, "solution_str": text}, 60.0).result(timeout=300)

        before = call("look")
        changed = call("change")
        after = call("look")
        assert after == before and after["pid"] == changed["pid"], (before, after)
        niced = call("nice")
        after_nice = call("look")
        assert after_nice["nice"] == before["nice"] and after_nice["pid"] != niced["pid"], after_nice


def test_a_fork_hopping_daemon_dies_with_its_call(tmp_path: Path) -> None:
    """Red team of issue 33: a daemon whose every generation forks and exits escaped the one walk of the
    worker's tree after its call (4 of 4 kept running): walks repeat until none finds a descendant."""
    import time

    stamp = tmp_path / "hop"
    with contextlib.closing(FunctionPool([FunctionSpec(FNS, "fork_hopper")], processes=1)) as pool:
        done = pool.submit(0, {**ARGS, "solution_str": "x", "ground_truth": str(stamp)}, 60.0)
        assert done.result(timeout=300) == 1.0
        returned = time.time()
        time.sleep(2.0)
        assert stamp.exists() and float(stamp.read_text() or 0) < returned + 0.5, (stamp.read_text(), returned)
