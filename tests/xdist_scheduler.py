"""ci/test's two-worker scheduling (pytest-xdist's ``--dist loadfile``, with files that must share a worker).

xdist's own ``loadgroup`` cannot be used: with pytest 9 its group marks no longer reach the scheduler, so marked
tests were spread over workers. tests/conftest.py exposes :func:`pytest_xdist_make_scheduler`;
tests/test_xdist_scheduler.py runs it under xdist to show the grouping holds.
"""

from __future__ import annotations

import pytest

#: Files that share one xdist worker: the end-to-end runs (whole main_ppo runs, ~8 GiB each) must not overlap,
#: and the sandbox's threat tests measure host-wide kernel memory while they run, so no main_ppo run beside them.
SHARE_A_WORKER = ("tests/e2e/", "tests/sandbox/test_threats.py")
#: The unit of work of all SHARE_A_WORKER files.
SHARED_SCOPE = "shared"


def split_scope(nodeid: str) -> str:
    """The unit of work a test belongs to: its file, or SHARED_SCOPE for the files of SHARE_A_WORKER."""
    file = nodeid.split("::", 1)[0]
    return SHARED_SCOPE if file.startswith(SHARE_A_WORKER) else file


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``-n N --dist loadfile``: each file runs on one worker, in order, as it does alone, and the files of
    SHARE_A_WORKER on one worker, one after another. Other modes keep xdist's own scheduling."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedFileScheduling(LoadFileScheduling):
        # xdist's LoadScopeScheduling sends work to workers by this (private) method's result.
        def _split_scope(self, nodeid: str) -> str:
            return split_scope(nodeid)

    return SharedFileScheduling(config, log)
