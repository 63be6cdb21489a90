"""verl-ext's Hydra configs for verl's ``main_ppo``, shipped in the wheel.

verl-ext's Hydra search-path plugin (``hydra_plugins.verl_ext_searchpath``) adds ``pkg://verl_ext.configs``
(and verl's ``pkg://verl.trainer.config``) to every Hydra app, so ``--config-name grpo_math_verl_ext`` and
``defaults: [grpo_math_verl_ext, _self_]`` in a user's own config find them without ``--config-path``.
"""
