"""verl-ext: faster, safer building blocks for verl RL post-training.

Importing this package is cheap: it does not import torch, verl or Ray. The reward API lives in
:mod:`verl_ext.reward`; the verl registration happens in :mod:`verl_ext._plugin`, which verl loads
through the ``verl.plugins`` entry point.
"""

from verl_ext._core import __version__

__all__ = ["__version__"]
