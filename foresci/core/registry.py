"""The one registry scheme of foresci's plug-in kinds (task families, metrics, methods): named items
registered by importing the module that defines them, the shipped modules first in the order their kind
states once, then the extensions' (:mod:`foresci.core.extensions`), in registration order.

A kind makes one :class:`Registry` with the tuple of its shipped modules; its decorator
(``@register_family``, ``@register_metric``, ``@method``) checks the item and calls :meth:`Registry.add`;
readers call :meth:`Registry.ordered` or :meth:`Registry.get`, which import the shipped modules (once) and
the extensions (once per process) before answering. A shipped module that registers nothing of its kind
is a :class:`RegistryError` naming it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Generic, TypeVar

from foresci.core.errors import UserError

ItemT = TypeVar("ItemT")


class RegistryError(UserError):
    """A module in a kind's stated tuple of shipped modules that registers nothing of that kind."""


class Registry(Generic[ItemT]):
    """Items of one kind by name: ``shipped`` (module names, in their stated order) first, then others.

    ``entries`` is the name -> item mapping in registration order; ``module_of`` says which module
    defined an item (its rank among ``shipped``).
    """

    def __init__(self, kind: str, shipped: tuple[str, ...], module_of: Callable[[ItemT], str]) -> None:
        self.kind = kind
        self.shipped = shipped
        self.entries: dict[str, ItemT] = {}
        self._module_of = module_of
        self._imported: set[str] = set()
        self._ordered: tuple[ItemT, ...] | None = None

    def add(self, name: str, item: ItemT) -> None:
        """Register ``item`` as ``name`` (the kind's decorator has checked it)."""
        self.entries[name] = item
        self._ordered = None

    def remove(self, name: str) -> None:
        """Forget ``name`` (tests that register toy items restore the registry this way)."""
        self.entries.pop(name, None)
        self._ordered = None

    def forget_order(self) -> None:
        """Drop the cached order (after ``entries`` was edited directly)."""
        self._ordered = None

    def load(self) -> None:
        """Import the shipped modules not imported yet (each must register an item), then any extension
        not imported yet."""
        for module in self.shipped:
            if module not in self._imported:
                imported = importlib.import_module(module)
                if not any(self._module_of(item) == module for item in self.entries.values()):
                    raise RegistryError(f"shipped {self.kind} module {module!r} registers no {self.kind}: "
                                        "register one in it or take it out of the shipped tuple",
                                        path=getattr(imported, "__file__", None))
                self._imported.add(module)
        from foresci.core.extensions import load_extensions

        if load_extensions():
            self._ordered = None

    def ordered(self) -> tuple[ItemT, ...]:
        """Every item: the shipped ones in their modules' stated order, then the others in registration
        order (whatever imported a shipped module first)."""
        self.load()
        return self.ordered_now()

    def ordered_now(self) -> tuple[ItemT, ...]:
        """:meth:`ordered` of what is registered so far (loads nothing)."""
        if self._ordered is None:
            rank = {module: index for index, module in enumerate(self.shipped)}
            self._ordered = tuple(sorted(self.entries.values(),
                                         key=lambda item: rank.get(self._module_of(item), len(rank))))
        return self._ordered

    def get(self, name: str) -> ItemT | None:
        """The item registered as ``name`` (after loading), or None."""
        self.load()
        return self.entries.get(name)
