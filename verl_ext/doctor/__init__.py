"""``verl-ext doctor``: what this host offers verl-ext, whether the sandbox can run, and whether a config will.

``verl-ext doctor --config NAME [overrides...]`` composes a main_ppo config as ``python -m
verl.trainer.main_ppo --config-name NAME overrides...`` would (the same Hydra overrides), then checks,
before anything starts, what a run would otherwise discover late: what the config needs from the host
(:func:`needs`), and what is wrong with the config itself (:func:`check_config`): the reward manager's
name, the ``verl_ext`` manager's ``reward_kwargs``, the user's reward functions (import, signature, kind)
and the data files (existence, columns, data sources without a scorer, ground truths of a type their
scorer cannot read). Each finding names the config key it comes from. ``--json`` prints one JSON object
instead of the report. The exit status is 1 when something is missing or wrong.

Its parts: :mod:`~verl_ext.doctor.findings` (findings, needs and their levels), :mod:`~verl_ext.doctor.host`
(versions, accelerator, plugin registration, sandbox probes), :mod:`~verl_ext.doctor.config` (finding and
composing a config, what it needs), :mod:`~verl_ext.doctor.checks` (the config checks),
:mod:`~verl_ext.doctor.routing` (which scorer reads each data source), :mod:`~verl_ext.doctor.data` (the data
files), :mod:`~verl_ext.doctor.environment` (environment variables) and :mod:`~verl_ext.doctor.report` (the
report and the command).
"""

from verl_ext.doctor.checks import check_config
from verl_ext.doctor.config import (
    add_config_arguments,
    compose,
    compose_errors,
    config_argument,
    config_file,
    configs_dir,
    needs,
    override_key,
)
from verl_ext.doctor.data import CODE_ROWS, DATA_ROWS, data_files, head_rows
from verl_ext.doctor.findings import ERROR, OK, WARNING, Finding, Need
from verl_ext.doctor.host import DISTS, plugins_disabled
from verl_ext.doctor.report import SCHEMA_VERSION, ConfigReport, Report, add_arguments, collect, main, print_report, run

__all__ = ["CODE_ROWS", "DATA_ROWS", "DISTS", "ERROR", "OK", "SCHEMA_VERSION", "WARNING", "ConfigReport", "Finding",
           "Need", "Report", "add_arguments", "add_config_arguments", "check_config", "collect", "compose",
           "compose_errors", "config_argument", "config_file", "configs_dir", "data_files", "head_rows", "main",
           "needs", "override_key", "plugins_disabled", "print_report", "run"]
