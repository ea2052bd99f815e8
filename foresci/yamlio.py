"""Reading the declarative YAML files: one loader, errors that name the file and the field."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

ModelT = TypeVar("ModelT", bound=BaseModel)


def format_validation_error(error: ValidationError) -> str:
    """Render a pydantic error as ``field 'a.b': message; ...`` (one entry per problem)."""
    return "; ".join(
        f"field '{'.'.join(str(part) for part in item['loc'])}': {item['msg']}" for item in error.errors()
    )


def read_yaml_mapping(path: Path | str, error: type[Exception] = ValueError) -> dict[str, Any]:
    """Read a YAML file whose top level is a mapping (an empty file is ``{}``).

    Invalid YAML or another top-level type raises ``error`` naming the file (and the line, when YAML
    knows it).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: file not found")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as problem:
        mark = getattr(problem, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise error(f"{where}: invalid YAML: {problem}") from problem
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise error(f"{path}: expected a mapping at the top level, found {type(data).__name__}")
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
        raise ValueError(f"{path}: invalid {what}: {format_validation_error(error)}") from error
