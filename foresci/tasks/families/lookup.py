"""The one ordered list of shipped task families and the registry that holds every family by name.

It knows nothing of :class:`~foresci.tasks.families.TaskFamily` (it is imported by the task and hidden-target
models, which the family class itself reads): :mod:`foresci.tasks.families.base` registers families here
and types what comes back. Shipped families first, in :data:`BUILTIN_FAMILIES` order, then extensions in
registration order.
"""

from __future__ import annotations

from typing import Any

from foresci.core.errors import UserError
from foresci.core.registry import Registry

BUILTIN_FAMILIES = (
    "foresci.tasks.families.direction_forecasting.family",
    "foresci.tasks.families.bottleneck_opportunity.family",
    "foresci.tasks.families.strategic_planning.family",
    "foresci.tasks.families.venue_positioning.family",
    "foresci.tasks.families.concept_emergence.family",
)
"""Modules of the shipped families, imported in this order (the order of ``family_names()``: task order
in a release, the forecast-question cycle)."""


class UnknownFamilyError(UserError):
    """A family name no registered family carries."""


FAMILIES: Registry[Any] = Registry("task family", BUILTIN_FAMILIES, lambda family: type(family).__module__)
"""Every registered family (a :class:`~foresci.tasks.families.TaskFamily`) by name."""


def registered() -> tuple[Any, ...]:
    """Every registered family, shipped ones first (loads the shipped modules and extensions once)."""
    FAMILIES.load()
    return FAMILIES.ordered_now()


def registered_names() -> tuple[str, ...]:
    """The names of every registered family, in registry order."""
    return tuple(family.name for family in registered())


def find_family(name: str) -> Any:
    """The registered family ``name``; an UnknownFamilyError naming the known ones otherwise."""
    FAMILIES.load()
    try:
        return FAMILIES.entries[name]
    except KeyError:
        known = ", ".join(family.name for family in FAMILIES.ordered_now())
        raise UnknownFamilyError(f"unknown task family {name!r}; known families: {known}",
                                 field="family") from None
