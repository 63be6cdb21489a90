"""What sandboxed code may import (``VERL_EXT_SANDBOX_PACKAGES``): the trainer's site-packages, read-only, under
a neutral name, by default; the standard library only on request."""

from __future__ import annotations

import json

import pytest

from verl_ext import sandbox
from verl_ext.exceptions import InvalidInputError
from verl_ext.reward.code import score_assert_tests, score_prime_code

if not sandbox.capabilities()["full_isolation"]:
    pytest.skip(f"this host cannot sandbox: {sandbox.capabilities()['error']}", allow_module_level=True)

pytest.importorskip("numpy", reason="the trainer's environment has no numpy to show")

PROBE = """
import json, os, sys
out = {}
try:
    import numpy as np
    out['sum'] = int(np.arange(5).sum())
    out['file'] = np.__file__
    try:
        open(os.path.join(os.path.dirname(np.__file__), 'planted.py'), 'w')
        out['write'] = 'WROTE'
    except OSError as e:
        out['write'] = type(e).__name__
except ImportError as e:
    out['import'] = type(e).__name__
print(json.dumps(out))
"""


@pytest.mark.parametrize("warm", ["1", "0"], ids=["warm", "cold"])
def test_programs_import_the_trainers_packages_read_only(monkeypatch: pytest.MonkeyPatch, warm: str) -> None:
    """verl's prime_code runs programs in the trainer's environment, so a numpy solution passes there; it does
    here too. The directory is read-only, and its host path is not shown (a neutral name, as for our package)."""
    monkeypatch.setenv("VERL_EXT_SANDBOX_WARM", warm)
    monkeypatch.delenv("VERL_EXT_SANDBOX_PACKAGES", raising=False)
    r = sandbox.run(PROBE, timeout_s=20)
    assert r.status == "ok", r
    out = json.loads(r.stdout)
    assert out["sum"] == 10 and out["write"] == "OSError", out
    assert out["file"].startswith(sandbox.SITE_INSIDE + "/"), out


def test_a_numpy_solution_scores_as_in_verl(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VERL_EXT_SANDBOX_PACKAGES", raising=False)
    tests = {"inputs": ["2 3 4\n", "4 5\n"], "outputs": ["9\n", "9\n"]}
    right = "```python\nimport numpy as np\nprint(int(np.array(input().split(), dtype=np.int64).sum()))\n```"
    wrong = "```python\nimport numpy as np\nprint(int(np.array(input().split(), dtype=np.int64).prod()))\n```"
    assert [s.score for s in score_prime_code([right, wrong], [tests, tests])] == [1.0, 0.0]


def test_stdlib_scope_keeps_third_party_packages_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERL_EXT_SANDBOX_PACKAGES", "stdlib")
    r = sandbox.run(PROBE, timeout_s=20)
    assert r.status == "ok" and json.loads(r.stdout) == {"import": "ModuleNotFoundError"}, r


def test_an_unknown_scope_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERL_EXT_SANDBOX_PACKAGES", "everything")
    with pytest.raises(InvalidInputError, match="VERL_EXT_SANDBOX_PACKAGES"):
        sandbox.run("print(1)")


def test_sympy_imports_under_prime_codes_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team 4: prime_code's guard disables ctypes, which sympy needs at import; under verl the trainer has
    sympy loaded already (verl imports it), so an honest sympy solution passes there. It does here too."""
    pytest.importorskip("sympy", reason="the trainer's environment has no sympy to show")
    monkeypatch.delenv("VERL_EXT_SANDBOX_PACKAGES", raising=False)
    tests = {"inputs": ["7\n", "8\n"], "outputs": ["True\n", "False\n"]}
    right = "```python\nimport sympy\nprint(sympy.isprime(int(input())))\n```"
    wrong = "```python\nimport sympy\nprint(not sympy.isprime(int(input())))\n```"
    assert [s.score for s in score_prime_code([right, wrong], [tests, tests])] == [1.0, 0.0]


def test_numpy_scalars_cross_to_the_test_as_their_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team 4: a numpy scalar returned to a HumanEval-style test was an unsupported type (score 0) where a
    plain run compares it equal to the int; it now crosses as its Python value. Arrays stay unsupported."""
    monkeypatch.delenv("VERL_EXT_SANDBOX_PACKAGES", raising=False)
    gt = {"entry_point": "add", "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n"
                                         "    assert candidate(True, False) is not None\n"}
    programs = ["import numpy as np\ndef add(a, b):\n    return np.int64(a) + np.int64(b)",
                "import numpy as np\ndef add(a, b):\n    return np.bool_(a + b == 3)",
                "import numpy as np\ndef add(a, b):\n    return np.array([a + b])"]
    assert [s.score for s in score_assert_tests(programs, [gt] * 3)] == [1.0, 0.0, 0.0]
