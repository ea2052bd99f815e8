"""Task families as objects: the :class:`TaskFamily` registry and the five shipped families, one
sub-package each (``family.py`` public side, ``target.py`` hidden target, ``builder.py`` task builder).

A new family is one folder (or module) that subclasses :class:`TaskFamily` and calls
:func:`register_family`; outside foresci it is named in ``FORESCI_EXTENSIONS`` or the entry-point group
``foresci.extensions``.
"""

from foresci.tasks.families.base import (
    AnswerLike,
    ContractCheck,
    FamilyDefinitionError,
    TaskFamily,
    TopChoice,
    UnknownFamilyError,
    all_families,
    family_names,
    family_schema,
    get_family,
    register_family,
)

__all__ = ["AnswerLike", "ContractCheck", "FamilyDefinitionError", "TaskFamily", "TopChoice",
           "UnknownFamilyError", "all_families", "family_names", "family_schema", "get_family",
           "register_family"]
