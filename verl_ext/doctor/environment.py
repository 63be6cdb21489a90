"""verl-ext's environment variables, and the container set-up, that would make a run fail or behave
unexpectedly."""

from __future__ import annotations

import os
from typing import Any

from verl_ext import container
from verl_ext.doctor.findings import ERROR, WARNING, Finding
from verl_ext.doctor.host import _mode_fix
from verl_ext.exceptions import InvalidInputError


def _environment(sandbox: Any) -> list[Finding]:
    """verl-ext's environment variables that would make a run fail or behave unexpectedly."""
    found: list[Finding] = []
    try:
        sandbox.mode()
    except InvalidInputError as e:
        found.append(Finding(ERROR, "VERL_EXT_SANDBOX_MODE", f"{e}; {_mode_fix(sandbox)}"))
    try:
        sandbox.package_scope()
    except InvalidInputError as e:
        found.append(Finding(ERROR, "VERL_EXT_SANDBOX_PACKAGES", f"{e} (every code reward raises); set it to one "
                             f"of {', '.join(sandbox.PACKAGE_SCOPES)}, or unset it (site)"))
    backend = os.environ.get("VERL_EXT_SAMPLER_BACKEND")
    if backend is not None:
        from verl_ext.rollout.vllm_sampler import rollout_backend_error

        why = rollout_backend_error(backend)
        if why is not None:
            found.append(Finding(ERROR, "VERL_EXT_SAMPLER_BACKEND", f"{why} (the fused vLLM sampler raises), or "
                                 "unset it (auto)"))
    unsafe = container.host_sysctls_writable()
    if unsafe is not None:
        found.append(Finding(WARNING, "container", unsafe))
    threads = os.environ.get("VERL_EXT_NUM_THREADS")
    if threads is not None and not (threads.strip().isdigit() and int(threads) > 0):
        found.append(Finding(WARNING, "VERL_EXT_NUM_THREADS", f"{threads!r} is not a positive integer: ignored "
                             "(all cores are used)"))
    return found
