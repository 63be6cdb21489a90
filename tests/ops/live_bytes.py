"""Bytes of tensor storage alive on CPU, and their peak, while a block of torch code runs.

A ``TorchDispatchMode`` sees every op dispatched in its block, with its outputs: a storage that no input of
the op owns is new (views, in-place and ``out=`` ops reuse their inputs' storage) and counts from then
until it is freed (a finaliser on the storage object, which torch keeps one of per storage). It sees the
ops a function calls directly, not those inside a custom op's implementation (the op is one dispatch),
so tests call implementations directly to see inside them.
"""

from __future__ import annotations

import weakref
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten


class LiveBytes(TorchDispatchMode):
    """``with LiveBytes() as m: ...`` then ``m.peak``: the most bytes allocated at once within the block,
    above what was allocated before it (``m.live``: what is still allocated)."""

    def __init__(self) -> None:
        super().__init__()
        self.live = 0
        self.peak = 0
        self._counted: set[int] = set()

    def _freed(self, key: int, nbytes: int) -> None:
        self._counted.discard(key)
        self.live -= nbytes

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        out = func(*args, **(kwargs or {}))
        owned = {t.untyped_storage().data_ptr() for t in tree_flatten((args, kwargs))[0]
                 if isinstance(t, torch.Tensor)}
        for t in tree_flatten(out)[0]:
            if not isinstance(t, torch.Tensor):
                continue
            storage = t.untyped_storage()
            key, nbytes = storage.data_ptr(), storage.nbytes()
            if nbytes == 0 or key in owned or key in self._counted:
                continue
            self._counted.add(key)
            self.live += nbytes
            self.peak = max(self.peak, self.live)
            weakref.finalize(storage, self._freed, key, nbytes)
        return out
