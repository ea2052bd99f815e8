"""The one family of errors a person can act on: each prints as one line naming file, line and field.

Raise :class:`UserError` (or a subclass) for anything caused by the user's input — a missing path, a bad
YAML key, a bad release line, a window not yet closed, an unknown domain. The console entry point
(``foresci.cli.main``) prints such errors as one line on stderr and exits non-zero; the traceback is
shown only with ``--debug``. Bugs (every other exception) keep their traceback.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class ForesciError(Exception):
    """Base class of foresci's user-facing errors."""


class UserError(ForesciError):
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


class ConfigError(UserError):
    """A settings problem: an unknown key, a wrong-typed value, unreadable YAML."""


class InputDataError(UserError):
    """A bad input file: unreadable bytes, a bad row, a duplicate id, an empty source."""


def _validation_message(error: object) -> tuple[str, str | None]:
    """(message, field) of the first problem of a pydantic ValidationError."""
    problems = error.errors()  # type: ignore[attr-defined]
    if not problems:
        return str(error).splitlines()[0], None
    first = problems[0]
    field = ".".join(str(part) for part in first.get("loc", ())) or None
    more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
    return f"{first.get('msg', 'invalid value')}{more}", field


_ENVIRONMENT_ERRNOS = frozenset({errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EFBIG, errno.EACCES,
                                  errno.EPERM, errno.EEXIST, errno.ENOTDIR, errno.EISDIR, errno.EIO})


# numpy's message when the disk took only part of an array ("23424 requested and 19424 written"); it
# carries no errno, so nothing else says the disk is full
_SHORT_WRITE = re.compile(r"\d+ requested and \d+ written")


class DatabaseFileError(UserError):
    """A SQLite file foresci reads or writes is corrupt, full or unwritable (names the file)."""


def _sqlite_user_error(error: BaseException) -> UserError | None:
    """A SQLite error on disk state (corrupt file, disk full, read-only) as a user error, else None."""
    import sqlite3

    if not isinstance(error, sqlite3.DatabaseError):
        return None
    text = " ".join(str(error).split())
    if not any(word in text for word in ("malformed", "not a database", "disk is full", "disk I/O",
                                          "readonly", "read-only", "unable to open", "file is encrypted")):
        return None
    return UserError(f"SQLite: {text} (a damaged or unwritable database file; rebuild it or free space)")


def as_user_error(error: BaseException) -> UserError | None:
    """The user-facing form of ``error``, or None when it is a bug (which keeps its traceback).

    The one place that maps exception types raised by libraries and the standard library on bad input
    (a missing file, bad YAML, a pydantic validation error) to :class:`UserError`.
    """
    if isinstance(error, UserError):
        return error
    if isinstance(error, FileExistsError) and error.filename is not None:
        return UserError("exists and is not a folder (a folder was expected here, e.g. for --out)",
                         path=str(error.filename))
    if isinstance(error, FileNotFoundError | IsADirectoryError | NotADirectoryError | PermissionError):
        if error.filename is not None:
            return UserError(error.strerror or type(error).__name__, path=str(error.filename))
        return UserError(str(error) or type(error).__name__)
    if isinstance(error, OSError) and error.errno in _ENVIRONMENT_ERRNOS:
        # disk full, read-only file system, quota: the machine's state, not a bug
        reason = error.strerror or os.strerror(error.errno or 0)
        if error.filename is not None:
            return UserError(reason, path=str(error.filename))
        return UserError(f"{reason} ({type(error).__name__})")
    sqlite_error = _sqlite_user_error(error)
    if sqlite_error is not None:
        return sqlite_error
    try:
        import yaml
    except ImportError:  # pragma: no cover - yaml is a core dependency
        yaml = None  # type: ignore[assignment]
    if yaml is not None and isinstance(error, yaml.YAMLError):
        mark = getattr(error, "problem_mark", None)
        name = getattr(mark, "name", None) if mark is not None else None
        path = name if name and not str(name).startswith("<") else None
        return UserError(
            f"invalid YAML: {getattr(error, 'problem', None) or error}",
            path=path,
            line=mark.line + 1 if mark is not None else None,
        )
    from pydantic import ValidationError

    if isinstance(error, ValidationError):
        message, field = _validation_message(error)
        return UserError(f"invalid {error.title}: {message}", field=field)
    return None


def user_error_from(error: BaseException) -> UserError:
    """A fresh :class:`UserError` for ``error`` (for ``raise ... from error`` in a command's handler).

    A user error keeps its file, line and field; anything else becomes a one-line message.
    """
    mapped = as_user_error(error)
    if mapped is None:
        return UserError(" ".join(str(error).split()) or type(error).__name__)
    return UserError(mapped.message, path=mapped.path, line=mapped.line, field=mapped.field)


@contextmanager
def naming_the_file(path: Path | str) -> Iterator[None]:
    """Re-raise an error of the disk's state met while writing ``path`` so that it names ``path``.

    A write that fails for a full disk, a read-only file system or a quota raises ``OSError`` without a
    file name, SQLite says only "database or disk is full" and numpy "N requested and M written"
    (no errno at all): the message then names nothing, and numpy's does not say the disk is full.
    """
    try:
        yield
    except OSError as error:
        if error.filename is None and error.errno in _ENVIRONMENT_ERRNOS:
            raise OSError(error.errno, error.strerror or os.strerror(error.errno or 0), str(path)) from error
        if error.errno is None and _SHORT_WRITE.fullmatch(str(error)):  # numpy's write cut short
            raise OSError(errno.ENOSPC, f"{os.strerror(errno.ENOSPC)} (a write was cut short: {error})",
                          str(path)) from error
        raise
    except Exception as error:
        mapped = _sqlite_user_error(error)
        if mapped is None:
            raise
        raise DatabaseFileError(mapped.message, path=path) from error
