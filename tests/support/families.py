"""Register a toy task family for one test and take it out of the registry again afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from foresci.tasks.families import TaskFamily, get_family, register_family
from foresci.tasks.families import base as family_base
from foresci.tasks.families.lookup import FAMILIES


@contextmanager
def registered_family(family: type[TaskFamily]) -> Iterator[TaskFamily]:
    """``family`` registered for the block (yielded as the registry holds it), removed after it."""
    register_family(family)
    try:
        yield get_family(family.name)
    finally:
        FAMILIES.remove(family.name)
        family_base._family_tuple.cache_clear()
