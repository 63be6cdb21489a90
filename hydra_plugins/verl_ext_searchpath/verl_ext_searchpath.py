"""Puts verl-ext's configs (and verl's, which they extend) on every Hydra app's search path.

Hydra reads ``hydra.searchpath`` only from the primary config, so a user's config with
``defaults: [grpo_math_verl_ext, _self_]`` could not find verl-ext's configs, nor the ``ppo_trainer`` they
build on. This plugin appends both packages' configs to the search path of every Hydra app in a Python
where verl-ext is installed (verl's ``main_ppo`` included): after the app's own entries, so a config of
the user's or of verl with the same name wins.
"""

from __future__ import annotations

from hydra.core.config_search_path import ConfigSearchPath
from hydra.plugins.search_path_plugin import SearchPathPlugin

#: (provider, path) appended in this order.
SEARCH_PATH = (
    ("verl-ext", "pkg://verl_ext.configs"),
    ("verl", "pkg://verl.trainer.config"),
)


class VerlExtSearchPathPlugin(SearchPathPlugin):
    """Appends ``pkg://verl_ext.configs`` and ``pkg://verl.trainer.config`` unless already present."""

    def manipulate_search_path(self, search_path: ConfigSearchPath) -> None:
        present = {element.path for element in search_path.get_path()}
        for provider, path in SEARCH_PATH:
            if path not in present:
                search_path.append(provider=provider, path=path)
