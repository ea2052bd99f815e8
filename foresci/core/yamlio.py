"""Reading the declarative YAML files: one loader, errors that name the file and the field."""

from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from foresci.core.errors import UserError

ModelT = TypeVar("ModelT", bound=BaseModel)


def format_validation_error(error: ValidationError) -> str:
    """Render a pydantic error as ``field 'a.b': message; ...`` (one entry per problem)."""
    return "; ".join(
        f"field '{'.'.join(str(part) for part in item['loc'])}': {item['msg']}" for item in error.errors()
    )


def _located(error: type[Exception], message: str, path: Path, line: int | None = None) -> Exception:
    """``error`` for ``message`` at ``path:line`` (a UserError carries them as fields)."""
    if issubclass(error, UserError):
        return error(message, path=path, line=line)
    return error(f"{path}{f':{line}' if line is not None else ''}: {message}")


@lru_cache(maxsize=64)
def _parsed(text: str) -> Any:
    """YAML text parsed once per process (rules files are read per node; callers get a deep copy)."""
    return yaml.safe_load(text)


def read_yaml_mapping(path: Path | str, error: type[Exception] = UserError) -> dict[str, Any]:
    """Read a YAML file whose top level is a mapping (an empty file is ``{}``).

    A missing file raises FileNotFoundError; invalid YAML (or bytes that are not UTF-8) or another
    top-level type raises ``error`` naming the file and, when YAML knows it,
    the line.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: file not found")
    try:
        data = copy.deepcopy(_parsed(path.read_text(encoding="utf-8")))
    except UnicodeDecodeError as problem:
        raise _located(error, f"not UTF-8: byte at offset {problem.start}", path) from problem
    except yaml.YAMLError as problem:
        mark = getattr(problem, "problem_mark", None)
        reason = getattr(problem, "problem", None) or str(problem)
        line = mark.line + 1 if mark is not None else None
        raise _located(error, f"invalid YAML: {reason}", path, line) from problem
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _located(error, f"expected a mapping at the top level, found {type(data).__name__}", path)
    return data


def load_yaml_model(path: Path | str, model: type[ModelT], what: str, section: str | None = None) -> ModelT:
    """Read a YAML mapping (or its ``section`` key when present) into ``model``.

    ``what`` names the file's role in error messages, e.g. ``"slicing policy"``.
    """
    data: Any = read_yaml_mapping(path)
    if section is not None and section in data:
        data = data[section]
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise UserError(f"invalid {what}: {format_validation_error(error)}", path=path) from error
