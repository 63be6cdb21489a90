"""The doctor's report: collecting every check (:func:`collect`), printing it or its JSON (:func:`run`),
and ``verl-ext doctor``'s arguments and entry point (:func:`add_arguments`, :func:`main`)."""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from verl_ext import container
from verl_ext.doctor.checks import check_config
from verl_ext.doctor.config import (
    _node_errors,
    add_config_arguments,
    compose,
    compose_errors,
    config_argument,
    needs,
    override_key,
)
from verl_ext.doctor.environment import _environment
from verl_ext.doctor.findings import _LABELS, ERROR, Finding, Need
from verl_ext.doctor.host import DISTS, _accelerator, _mode, _registration, _version, _warm_starts, plugins_disabled

#: Version of the ``--json`` object's layout.
SCHEMA_VERSION = 1


@dataclass
class ConfigReport:
    name: str
    overrides: list[str]
    error: str | None = None
    needs: list[Need] = field(default_factory=list)
    waived: list[bool] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None and all(n.present or w for n, w in zip(self.needs, self.waived, strict=True)) \
            and not any(f.level == ERROR for f in self.findings)


def _report_config(config: str, overrides: Sequence[str], accelerator: str, sandbox_ok: bool,
                   require_sandbox: bool) -> ConfigReport:
    report = ConfigReport(config, list(overrides))
    try:
        cfg = compose(config, overrides)
    except compose_errors() as e:  # a broken config or an override that does not apply: a finding, not a crash
        report.error = str(e)
        report.findings.append(Finding(ERROR, override_key(overrides, str(e)), f"does not compose: {e}"))
        return report
    errors: tuple[type[BaseException], ...] = (*_node_errors(), AttributeError)
    try:
        report.needs = needs(cfg, accelerator, sandbox_ok)
    except errors as e:
        report.findings.append(Finding(ERROR, "config", f"not a main_ppo config: {type(e).__name__}: {e}"))
    report.waived = [not n.present and not require_sandbox and "sandbox" in n.what for n in report.needs]
    report.findings.extend(check_config(cfg))
    return report


@dataclass
class Report:
    versions: dict[str, str]
    system: str
    accelerator: str
    registration: str | None
    kernels: dict[str, bool]
    capabilities: dict[str, Any]
    mode: str
    warm_starts: str | None
    environment: list[Finding]
    config: ConfigReport | None
    problems: list[str]

    def as_json(self) -> dict[str, Any]:
        config = None
        if self.config is not None:
            c = self.config
            config = {"name": c.name, "overrides": c.overrides, "composed": c.error is None, "error": c.error,
                      "ok": c.ok, "needs": [{**asdict(n), "waived": w} for n, w in zip(c.needs, c.waived, strict=True)],
                      "findings": [asdict(f) for f in c.findings]}
        return {
            "schema_version": SCHEMA_VERSION, "ok": not self.problems, "problems": self.problems,
            "versions": self.versions, "system": self.system, "accelerator": self.accelerator,
            "verl_plugin": {"registered": self.registration is None, "error": self.registration},
            "kernels": self.kernels,
            "sandbox": {"full_isolation": bool(self.capabilities.get("full_isolation")),
                        "error": self.capabilities.get("error"), "mode": self.mode, "warm_starts": self.warm_starts,
                        "capabilities": self.capabilities},
            "environment": [asdict(f) for f in self.environment],
            "config": config,
        }


def collect(require_sandbox: bool = True, config: str | None = None, overrides: Sequence[str] = ()) -> Report:
    """Everything the doctor checks; ``problems`` lists why it fails (empty: exit 0)."""
    from verl_ext import __version__, sandbox
    from verl_ext.ops._backend import triton_available
    from verl_ext.ops.sampling import flashinfer_available

    versions = {"verl-ext": __version__, "python": platform.python_version(), **{d: _version(d) for d in DISTS}}
    system = f"{platform.system()} {platform.release()} ({platform.machine()})"
    accelerator = _accelerator()
    broken = _registration()
    caps = dict(sandbox.capabilities())
    sandbox_ok = bool(caps["full_isolation"])
    environment = _environment(sandbox)
    mode_ok = not any(f.key == "VERL_EXT_SANDBOX_MODE" for f in environment)
    # An invalid package scope fails every execution: already reported, the probe would only repeat it.
    packages_ok = not any(f.key == "VERL_EXT_SANDBOX_PACKAGES" for f in environment)
    # Not in the rlimits-only mode: the probe would run its programs without isolation.
    weak = mode_ok and sandbox.mode() == sandbox.WEAK_MODE
    warm = _warm_starts(sandbox) if sandbox_ok and mode_ok and packages_ok and not weak else None
    config_report = _report_config(config, overrides, accelerator, sandbox_ok, require_sandbox) if config else None
    problems = []
    if broken is not None:
        problems.append("verl cannot use verl-ext (the reward manager is not registered)")
    if require_sandbox and not sandbox_ok:
        problems.append("the sandbox is unavailable, so code rewards will refuse to run")
    for f in environment:
        if f.level == ERROR:
            problems.append(f.message)
    if config_report is not None and not config_report.ok:
        errors = sum(f.level == ERROR for f in config_report.findings)
        missing = not all(n.present or w for n, w in zip(config_report.needs, config_report.waived, strict=True))
        what = [*(["cannot run on this host"] if missing else []),
                *([f"has {errors} error{'s' * (errors != 1)}"] if errors else [])]
        problems.append(f"config {config} {' and '.join(what)}")
    return Report(versions, system, accelerator, broken, {"triton": triton_available(), "flashinfer":
                  flashinfer_available()}, caps, _mode(sandbox), warm, environment, config_report, problems)


def _print_findings(findings: Iterable[Finding]) -> None:
    for f in findings:
        message = f.message.strip().replace("\n", "\n" + " " * 10)
        print(f"  {_LABELS[f.level]} {f.key}: {message}")


def print_report(report: Report) -> None:
    from verl_ext import sandbox

    v = report.versions
    print(f"verl-ext {v['verl-ext']} on {report.system}, Python {v['python']}")
    for dist in DISTS:
        print(f"  {dist:<18} {v[dist]}")
    print(f"  accelerator        {report.accelerator}")
    broken, disabled = report.registration, plugins_disabled()
    if broken is not None:
        plugin = f"BROKEN: {broken}"
    elif disabled:
        plugin = (f"not loaded ({disabled}): the managers import by path (reward.reward_manager.source=importlib, "
                  "module.path=pkg://verl_ext.reward.manager, name=VerlExtRewardManager; see the README)")
    else:
        plugin = "reward manager verl_ext registered"
    print(f"  verl plugin        {plugin}")
    print(f"  kernels            triton {'yes' if report.kernels['triton'] else 'no'}, "
          f"flashinfer {'yes' if report.kernels['flashinfer'] else 'no'}")
    caps = report.capabilities
    ok = bool(caps["full_isolation"])
    print("sandbox (code rewards):")
    weak = report.mode.startswith(sandbox.WEAK_MODE)
    if weak:
        print(f"  full isolation     {'available on this host, but' if ok else 'unavailable, and'} NOT used: "
              f"{sandbox.WEAK_MODE} mode (below)")
    else:
        print(f"  full isolation     {'yes' if ok else 'NO: ' + str(caps['error'])}")
    if not ok and container.in_container():
        print(f"  in a container     {container.CONTAINER_HINT}")
    allowed = len(caps.get("allowed_syscalls", []))
    print(f"  seccomp filters    {f'allow-list of {allowed} syscalls, the rest EPERM' if caps['seccomp'] else 'no'}")
    landlock = caps["landlock_abi"]
    scope = "files" + (", TCP" if landlock and landlock >= 4 else "") + (
        ", signals and abstract sockets" if landlock and landlock >= 6 else "")
    print(f"  landlock           {f'ABI {landlock}: {scope}' if landlock else 'unavailable'}")
    print("  limits             rlimits (address space, CPU, file size, open files, processes, core=0, "
          "no real-time or raised priority)")
    print(f"  cgroups            {caps['cgroups']}")
    print(f"  memory accounting  {caps['memory']}")
    cold, warm = caps["cpu_share"], caps["cpu_share_warm"]
    if cold == warm:
        print(f"  cpu share          {cold}")
    else:  # per-execution cgroups are made for cold starts only
        in_use = "warm" if sandbox.warm_starts() else "cold"
        print(f"  cpu share          cold starts: {cold}{' (in use)' if in_use == 'cold' else ''}")
        print(f"                     warm starts: {warm}{' (in use)' if in_use == 'warm' else ''}")
    print(f"  memfd              {caps['memfd']}")
    families = caps["socket_families"]
    print(f"  socket families    {', '.join(families)}{'' if families == ['all'] else ' (others: EAFNOSUPPORT)'}")
    print(f"  mode               {report.mode}")
    if report.warm_starts is not None:
        print(f"  warm starts        {report.warm_starts}")
    if report.environment:
        print("environment:")
        _print_findings(report.environment)
    c = report.config
    if c is not None:
        if c.error is None:
            print(f"config {c.name} needs:")
            for need, waived in zip(c.needs, c.waived, strict=True):
                state = "ok     " if need.present else "waived " if waived else "MISSING"
                print(f"  {state} {need.what}  <- {need.why}{'  (--no-sandbox)' if waived else ''}")
        with_overrides = f" (overrides: {' '.join(c.overrides)})" if c.overrides else ""
        print(f"config {c.name} checks{with_overrides}:")
        _print_findings(c.findings)
    for problem in report.problems:
        print(f"doctor: {problem} (see above)")


def run(require_sandbox: bool = True, config: str | None = None, overrides: Sequence[str] = (),
        as_json: bool = False) -> int:
    """Print the report (or, ``as_json``, one JSON object); non-zero when ``import verl`` does not register
    verl-ext's reward manager, when the sandbox (needed by code rewards) is unavailable, when
    ``VERL_EXT_SANDBOX_MODE`` is not a mode, or when ``config`` needs something this host lacks or has an
    error (each named with the key it comes from)."""
    if as_json:
        with contextlib.redirect_stdout(sys.stderr):  # what user modules print on import stays off the JSON
            report = collect(require_sandbox, config, overrides)
        json.dump(report.as_json(), sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    else:
        report = collect(require_sandbox, config, overrides)
        print_report(report)
    return 1 if report.problems else 0


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``verl-ext doctor``'s arguments."""
    p.add_argument("--no-sandbox", action="store_true", help="do not fail when the sandbox is unavailable")
    add_config_arguments(p, required=False)
    p.add_argument("overrides", nargs="*", metavar="KEY=VALUE",
                   help="Hydra overrides of --config, exactly as on main_ppo's command line "
                        "(e.g. data.train_files=/x.parquet +reward.reward_kwargs.format_weight=0.1)")
    p.add_argument("--json", action="store_true", help="print one JSON object (versions, sandbox, config "
                   "findings, ok) instead of the report")


def main(args: argparse.Namespace) -> int:
    """Run ``verl-ext doctor`` with parsed :func:`add_arguments` arguments."""
    overrides = list(getattr(args, "overrides", None) or [])
    try:
        config = config_argument(args)
    except ValueError as e:
        print(f"verl-ext doctor: {e}", file=sys.stderr)
        return 2
    if overrides and not config:
        print(f"verl-ext doctor: overrides ({' '.join(overrides)}) need --config NAME", file=sys.stderr)
        return 2
    return run(require_sandbox=not args.no_sandbox, config=config, overrides=overrides,
               as_json=bool(getattr(args, "json", False)))
