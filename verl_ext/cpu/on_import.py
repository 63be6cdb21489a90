"""Run a function on a module once it is imported (at once if it already is), without importing it early:
the CPU patches touch verl's FSDP engine and vLLM, which most processes of a run never import."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

_PENDING: dict[str, list[Callable[[ModuleType], None]]] = {}


class _Loader(importlib.abc.Loader):
    """The module's own loader, then the pending work; the module keeps its own loader afterwards."""

    def __init__(self, inner: importlib.abc.Loader) -> None:
        self._inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        if module.__spec__ is not None:
            module.__spec__.loader = self._inner
        module.__loader__ = self._inner
        self._inner.exec_module(module)
        for fn in _PENDING.pop(module.__name__, []):
            fn(module)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: asks the finders after it, and wraps the loader of a module with pending work."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _PENDING:
            return None
        for finder in sys.meta_path:
            if finder is self:
                continue
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None and spec.loader is not None:
                spec.loader = _Loader(spec.loader)
                return spec
        return None


def when_imported(name: str, fn: Callable[[ModuleType], None]) -> None:
    """Call ``fn(module)`` when module ``name`` has been imported (now, if it has)."""
    if name in sys.modules:
        fn(sys.modules[name])
        return
    _PENDING.setdefault(name, []).append(fn)
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
