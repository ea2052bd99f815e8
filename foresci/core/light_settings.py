"""Settings for a short command without pydantic-settings: the same fields, read from plain variables.

``load_light_settings`` fills :class:`foresci.core.settings_fields.SettingsFields` from ``FORESCI_``
variables when every one of them sets a plain value (a string, number, flag, path or choice: what
pydantic-settings hands to validation unchanged) and no YAML file is named. Anything else (a YAML file, a
list or mapping value that pydantic-settings decodes from JSON, an unknown key, a value that does not
validate) goes to the full :class:`foresci.core.settings.Settings`, which then gives the same settings or
the same error it always gives. ``tests/cli/test_light_settings.py`` compares the two.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, SecretStr, ValidationError
from pydantic.fields import FieldInfo

from foresci.core.env_names import check_env_names
from foresci.core.settings_fields import ENV_DELIMITER, ENV_PREFIX, SettingsFields

PLAIN_TYPES = (str, int, float, bool, Path, SecretStr)


def _plain(annotation: Any) -> bool:
    """Whether pydantic-settings passes an environment value for ``annotation`` to validation as it is."""
    if annotation in PLAIN_TYPES:
        return True
    origin = get_origin(annotation)
    if origin is Literal:
        values = get_args(annotation)
        return all(isinstance(value, str | int) and not isinstance(value, bool) for value in values)
    if origin is Union or type(annotation).__name__ == "UnionType":
        return all(arg is type(None) or _plain(arg) for arg in get_args(annotation))
    return False


def _section(info: FieldInfo) -> type[BaseModel] | None:
    annotation = info.annotation
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def plain_environment() -> dict[str, Any] | None:
    """The ``FORESCI_`` variables as settings data (``{"kb": {"rrf_k": "3"}, "cache_dir": "c"}``), or
    ``None`` when one of them (or a YAML file) needs the full settings loader."""
    if os.environ.get("FORESCI_CONFIG"):
        return None
    fields = SettingsFields.model_fields
    data: dict[str, Any] = {}
    seen: set[str] = set()
    prefix = ENV_PREFIX.lower()
    for name, value in os.environ.items():
        lowered = name.lower()
        if not lowered.startswith(prefix):
            continue
        if lowered in seen:  # two spellings of one variable: pydantic-settings decides which wins
            return None
        seen.add(lowered)
        key = lowered[len(prefix):]
        if ENV_DELIMITER not in key:
            info = fields.get(key)
            if info is None:
                continue  # not a setting (FORESCI_CONFIG, FORESCI_EXTENSIONS, a typo): ignored, as there
            if _section(info) is not None or not _plain(info.annotation):
                return None  # a whole section (or list) as JSON
            data[key] = value
            continue
        section_name, field_name = key.split(ENV_DELIMITER, 1)
        section_info = fields.get(section_name)
        section = _section(section_info) if section_info is not None else None
        if section is None or ENV_DELIMITER in field_name:
            return None
        info = section.model_fields.get(field_name)
        if info is None or not _plain(info.annotation):
            return None
        data.setdefault(section_name, {})[field_name] = value
    return data


def load_light_settings() -> SettingsFields:
    """The settings from defaults and the environment, as :func:`foresci.core.settings.load_settings`
    gives them (the same values, or the same error), without pydantic-settings where it is not needed."""
    data = plain_environment()
    if data is not None:
        check_env_names()
        try:
            return SettingsFields(**data)
        except ValidationError:
            pass  # the full loader names the variable and the field
    from foresci.core.settings import load_settings

    return load_settings()
