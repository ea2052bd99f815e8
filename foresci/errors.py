"""The one family of errors a person can act on: each prints as one line naming file, line and field.

Raise :class:`UserError` (or a subclass) for anything caused by the user's input — a missing path, a bad
YAML key, a bad release line, a window not yet closed, an unknown domain. The console entry point
(``foresci.cli.main``) prints such errors as one line on stderr and exits non-zero; the traceback is
shown only with ``--debug``. Bugs (every other exception) keep their traceback.
"""

from __future__ import annotations

from pathlib import Path


class ForesciError(Exception):
    """Base class of foresci's user-facing errors."""


class UserError(ForesciError, ValueError):
    """A user error located at ``path:line`` and ``field`` where those are known.

    ``str(error)`` is one line: ``path:line: field: message`` with the parts that are known.
    """

    def __init__(
        self,
        message: str,
        *,
        path: Path | str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.path = Path(path) if path is not None else None
        self.line = line
        self.field = field
        super().__init__(self._format())

    def _format(self) -> str:
        where = ""
        if self.path is not None:
            where = str(self.path) + (f":{self.line}" if self.line is not None else "") + ": "
        field = f"{self.field}: " if self.field else ""
        return " ".join(f"{where}{field}{self.message}".split())
