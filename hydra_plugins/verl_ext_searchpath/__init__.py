"""verl-ext's Hydra search-path plugin (found by Hydra in the ``hydra_plugins`` namespace package)."""

from hydra_plugins.verl_ext_searchpath.verl_ext_searchpath import VerlExtSearchPathPlugin

__all__ = ["VerlExtSearchPathPlugin"]
