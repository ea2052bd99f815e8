"""How a ``--method`` value names a plug-in (by path or by module), and the error for a value that names no
loadable method; shared by the resolver (:mod:`foresci.methods.loading`) and the sandbox host, which
imports nothing from the resolver."""

from __future__ import annotations

from foresci.core.errors import UserError


class MethodLoadError(UserError):
    """A ``--method`` value that names no method, or a plug-in that cannot be loaded."""

    def __init__(self, message: str) -> None:
        super().__init__(message, field="--method")


def is_path_reference(value: str) -> bool:
    """Whether ``value`` names a plug-in by path: ``FILE.py:object`` or ``FOLDER/...:object``."""
    where, colon, attribute = value.rpartition(":")
    return bool(colon and where and attribute) and (where.endswith(".py") or "/" in where)
