"""Entry point of group ``verl.plugins``: ``import verl`` imports this module, which registers the
``verl_ext`` reward managers in verl's reward-loop and legacy registries, and, with ``VERL_PLATFORM=cpu``,
verl's CPU platform (:mod:`verl_ext.cpu`).

verl logs a failing plugin only at DEBUG level, so ``verl-ext doctor`` and the test suite check that
the registration really happened.
"""

import importlib

# Importing the manager module registers it (its @register decorators run).
importlib.import_module("verl_ext.reward.manager")

cpu = importlib.import_module("verl_ext.cpu")
if cpu.requested():
    cpu.activate()
