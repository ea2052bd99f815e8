"""Small, shared file helpers: JSONL reading/writing and atomic writes.

Every module that reads or writes JSONL goes through here (one ``iter_jsonl``, not 33).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import tempfile
import threading
import zlib
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, TypeVar, cast

from pydantic import BaseModel, ValidationError

from foresci.core.errors import InputDataError, naming_the_file
from foresci.core.redact import mask_urls_in

ModelT = TypeVar("ModelT", bound=BaseModel)


class JsonlError(InputDataError):
    """A JSONL line that could not be read; carries the file and 1-based line number."""

    def __init__(self, path: Path, line_number: int, reason: str, field: str | None = None) -> None:
        super().__init__(reason, path=path, line=line_number, field=field)
        self.line_number = line_number
        self.reason = reason


def open_text(path: Path) -> IO[str]:
    """Open a (possibly gzipped) text file for reading as UTF-8."""
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open("r", encoding="utf-8")


def _binary_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, raw bytes) of a (possibly gzipped) file; a broken gzip names its line."""
    line_number = 0
    try:
        with cast(IO[bytes], gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")) as handle:
            for line_number, raw in enumerate(handle, start=1):
                yield line_number, raw
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise JsonlError(
            path, line_number + 1, f"unreadable compressed data after line {line_number}: {error}"
        ) from error


def iter_jsonl_numbered(path: Path | str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (1-based line number, JSON object) for each non-blank line; raise JsonlError naming the line
    (bad JSON, not an object, bytes that are not UTF-8)."""
    path = Path(path)
    for line_number, raw in _binary_lines(path):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise JsonlError(
                path,
                line_number,
                f"not UTF-8: byte 0x{raw[error.start]:02x} at column {error.start + 1}",
            ) from error
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise JsonlError(path, line_number, f"invalid JSON: {error.msg}") from error
        if not isinstance(value, dict):
            raise JsonlError(path, line_number, "expected a JSON object")
        yield line_number, value


def iter_jsonl(path: Path | str) -> Iterator[dict[str, Any]]:
    """Yield each JSON object of a JSONL file (blank lines skipped); raise JsonlError naming the line."""
    for _, value in iter_jsonl_numbered(path):
        yield value


UniqueKey = str | Callable[[Any], Hashable] | None


def _key_function(unique: UniqueKey) -> tuple[Callable[[Any], Hashable], str] | None:
    if unique is None:
        return None
    if isinstance(unique, str):
        name = unique
        return (lambda row: getattr(row, name)), name
    return unique, "key"


def iter_models(
    path: Path | str, model: type[ModelT], unique: UniqueKey = None
) -> Iterator[tuple[int, ModelT]]:
    """Yield (line number, validated ``model``) per row; an invalid row raises JsonlError naming the
    file, the line and the field at fault.

    ``unique``: a field name (or a function of the row) that must not repeat; a repeat raises
    JsonlError naming both lines.
    """
    path = Path(path)
    keyed = _key_function(unique)
    seen: dict[Hashable, int] = {}
    for line_number, value in iter_jsonl_numbered(path):
        try:
            row = model.model_validate(value)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise JsonlError(
                path, line_number, f"invalid {model.__name__}: {first['msg']}", field=where
            ) from error
        if keyed is not None:
            key_of, key_name = keyed
            key = key_of(row)
            if key in seen:
                raise JsonlError(
                    path,
                    line_number,
                    f"duplicate {key_name.replace('_', ' ')} {key!r} (first on line {seen[key]})",
                    field=key_name,
                )
            seen[key] = line_number
        yield line_number, row


def read_models(path: Path | str, model: type[ModelT], unique: UniqueKey = None) -> list[ModelT]:
    """Validate every row of a JSONL file as ``model`` (errors name file, line and field; with
    ``unique``, a repeated key names both lines)."""
    return [row for _, row in iter_models(path, model, unique)]


def _to_jsonable(row: BaseModel | dict[str, Any]) -> dict[str, Any]:
    if isinstance(row, BaseModel):
        return row.model_dump(mode="json")
    return row


def dumps_line(row: BaseModel | dict[str, Any]) -> str:
    """Serialise one row as a compact JSON line (keys sorted for byte-stable output; URL credentials
    masked)."""
    return mask_urls_in(json.dumps(_to_jsonable(row), ensure_ascii=False, sort_keys=True)) + "\n"


@contextmanager
def atomic_path(path: Path | str) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path`` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    temporary_path = Path(temporary)
    try:
        yield temporary_path
        os.replace(temporary_path, path)
    finally:
        if temporary_path.exists():
            temporary_path.unlink()


@contextmanager
def atomic_folder(folder: Path | str) -> Iterator[Path]:
    """Yield a staging folder beside ``folder``; on success it becomes ``folder`` in one rename.

    When another writer created ``folder`` first, its copy is kept and the staging one dropped.
    """
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        yield staging
        try:
            os.replace(staging, folder)
        except OSError:
            if not folder.is_dir():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def write_jsonl(path: Path | str, rows: Iterable[BaseModel | dict[str, Any]]) -> int:
    """Write rows to a JSONL file atomically; return how many were written."""
    count = 0
    with (naming_the_file(path), atomic_path(path) as temporary,
          temporary.open("w", encoding="utf-8") as handle):
        for row in rows:
            handle.write(dumps_line(row))
            count += 1
    return count


def append_jsonl(path: Path | str, row: BaseModel | dict[str, Any]) -> None:
    """Append one row to a JSONL file and flush it to disk (safe against a later kill)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with naming_the_file(path), path.open("a", encoding="utf-8") as handle:
        handle.write(dumps_line(row))
        handle.flush()
        os.fsync(handle.fileno())


def write_json(path: Path | str, value: BaseModel | dict[str, Any] | list[Any]) -> None:
    """Write a JSON document atomically, pretty-printed with sorted keys (URL credentials masked)."""
    payload = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
    text = mask_urls_in(json.dumps(payload, ensure_ascii=False, indent=2, sort_keys=True))
    with naming_the_file(path), atomic_path(path) as temporary:
        temporary.write_text(text + "\n", encoding="utf-8")


def read_json(path: Path | str) -> Any:
    """Read a JSON document; errors name the file (and line)."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise InputDataError(f"invalid JSON: {error.msg}", path=path, line=error.lineno) from error
    except UnicodeDecodeError as error:
        raise InputDataError(f"not UTF-8: byte at offset {error.start}", path=path) from error


def repair_torn_tail(path: Path) -> int:
    """Cut an incomplete last line (no trailing newline, or not valid JSON) off ``path``; return bytes cut."""
    if not path.is_file():
        return 0
    data = path.read_bytes()
    if not data:
        return 0
    end = len(data)
    if not data.endswith(b"\n"):
        end = data.rfind(b"\n") + 1
    else:
        last_start = data.rfind(b"\n", 0, len(data) - 1) + 1
        try:
            json.loads(data[last_start:].decode("utf-8", "replace"))  # bad bytes: the reader names them
        except json.JSONDecodeError:
            end = last_start
    if end == len(data):
        return 0
    with path.open("r+b") as handle:
        handle.truncate(end)
    return len(data) - end


class AppendLog:
    """Thread-safe appender: one complete JSON line per row, flushed and fsynced."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        repair_torn_tail(path)
        self.path = path
        self._lock = threading.Lock()

    def append(self, row: BaseModel | dict[str, Any]) -> None:
        """Append ``row`` durably."""
        self.append_line(dumps_line(row))

    def append_line(self, line: str) -> None:
        """Append one already serialised JSON line (ending in a newline) durably."""
        with self._lock, naming_the_file(self.path), self.path.open("ab") as handle:
            handle.write(line.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
