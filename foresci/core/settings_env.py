"""The foresci ``Settings``: the fields of :mod:`foresci.core.settings_fields` read from the environment (env
prefix ``FORESCI_``, nested sections) and an optional YAML file, with pydantic-settings.

Precedence (highest first): explicit arguments, environment (``FORESCI_LLM__BASE_URL=...``), the
YAML file named by ``FORESCI_CONFIG`` or ``--config``, the defaults. Import it through
:mod:`foresci.core.settings`, which loads this module (and pydantic-settings) only when ``Settings`` is used.

Unknown keys are refused at every level, in YAML and in the environment: a typo such as
``llm.base_ur1`` or ``FORESCI_KB__RRF_KK`` raises :class:`foresci.core.errors.ConfigError` naming the key
and the file or variable it came from; so does a value of the wrong type.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, SettingsError

from foresci.core.env_names import check_env_names
from foresci.core.errors import ConfigError
from foresci.core.settings_fields import ENV_DELIMITER, ENV_PREFIX, SettingsFields
from foresci.core.yamlio import read_yaml_mapping


class Settings(BaseSettings, SettingsFields):
    """All foresci settings."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_nested_delimiter=ENV_DELIMITER, extra="forbid"
    )

    def __init__(self, **values: Any) -> None:
        check_env_names()
        try:
            super().__init__(**values)
        except ValidationError as error:
            raise _config_error(error, values) from error
        except SettingsError as error:
            raise _env_parse_error(error) from error

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, env_settings, _YamlSource(settings_cls)


class _YamlSource(PydanticBaseSettingsSource):
    """Reads the YAML file named by FORESCI_CONFIG (if any)."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        path = os.environ.get("FORESCI_CONFIG")
        if not path:
            return {}
        return load_yaml_config(Path(path))


def load_yaml_config(path: Path) -> dict[str, Any]:
    """Load a YAML settings file; errors name the file."""
    return read_yaml_mapping(path, error=ConfigError)


def _env_parse_error(error: SettingsError) -> ConfigError:
    """Name the environment variable whose value could not be parsed (e.g. ``FORESCI_KB__DOMAINS='[x'``)."""
    import json

    text = " ".join(str(error).split())
    match = re.search(r'field "([^"]+)"', text)
    field = match.group(1).lower() if match else ""
    prefix = (ENV_PREFIX + field).upper()
    candidates = sorted(name for name in os.environ
                        if name.upper() == prefix or name.upper().startswith(prefix + ENV_DELIMITER))
    for name in candidates:
        value = os.environ[name].strip()
        if value[:1] in "[{":
            try:
                json.loads(value)
            except json.JSONDecodeError as problem:
                return ConfigError(f"not valid JSON ({problem.msg} at character {problem.pos}); a list or "
                                   f"mapping setting takes JSON, e.g. '[\"a\", \"b\"]' (got {value[:60]!r})",
                                   path=f"environment variable {name}")
    if candidates:
        return ConfigError(f"{text} (set by {', '.join(candidates)})",
                           path=f"environment variable {candidates[0]}")
    return ConfigError(text)


def _env_name(location: tuple[Any, ...]) -> str | None:
    """The environment variable that set the key at ``location`` (case-insensitive), if one did."""
    wanted = (ENV_PREFIX + ENV_DELIMITER.join(str(part) for part in location)).upper()
    return next((name for name in os.environ if name.upper() == wanted), None)


def _yaml_has(location: tuple[Any, ...]) -> Path | None:
    """The YAML settings file, when it sets the key at ``location``."""
    config = os.environ.get("FORESCI_CONFIG")
    if not config:
        return None
    data: Any = read_yaml_mapping(config, error=ConfigError)
    for part in location:
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return Path(config)


def _yaml_line(path: Path, location: tuple[Any, ...]) -> int | None:
    """The 1-based line of the key at ``location`` in the YAML file (None when it cannot be found)."""
    import yaml

    try:
        node: Any = yaml.compose(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None
    line = None
    for part in location:
        if not isinstance(node, yaml.MappingNode):
            return line
        match = next(((key, value) for key, value in node.value if key.value == str(part)), None)
        if match is None:
            return line
        line, node = match[0].start_mark.line + 1, match[1]
    return line


def _suggestion(location: tuple[Any, ...], variable: str | None) -> str:
    """ "; did you mean llm.base_url?" (or the environment variable's spelling) for an unknown key that is
    close to a known one of its section; "" when none is."""
    import difflib

    from pydantic import BaseModel

    model: type[BaseModel] = Settings
    for part in location[:-1]:
        field = model.model_fields.get(str(part))
        annotation = field.annotation if field is not None else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return ""
        model = annotation
    names = list(model.model_fields)
    wanted = str(location[-1]).lower()
    close = difflib.get_close_matches(wanted, names, n=1, cutoff=0.6) or [
        name for name in names if name.replace("_", "") == wanted.replace("_", "")]
    if not close:
        return ""
    known = (*location[:-1], close[0])
    if variable is not None:
        return f"; did you mean {(ENV_PREFIX + ENV_DELIMITER.join(map(str, known))).upper()}?"
    return f"; did you mean {'.'.join(map(str, known))}?"


def _config_error(error: ValidationError, values: dict[str, Any]) -> ConfigError:
    """Name the key and where it came from (environment variable, YAML file and line, or argument), and
    the known key an unknown one is close to."""
    first = error.errors()[0]
    location = tuple(first.get("loc", ()))
    key = ".".join(str(part) for part in location)
    unknown = first.get("type") == "extra_forbidden"
    message = "unknown setting" if unknown else f"{first.get('msg', 'invalid value')}"
    if unknown and location:
        message += _suggestion(location, _env_name(location))
    if not unknown and "input" in first:
        message += f" (got {str(first['input'])[:60]!r})"
    more = len(error.errors()) - 1
    if more:
        message += f" (and {more} more problem(s))"
    variable = _env_name(location)
    if variable is not None:
        return ConfigError(message, path=f"environment variable {variable}", field=key)
    source = _yaml_has(location)
    if source is not None:
        return ConfigError(message, path=source, line=_yaml_line(source, location), field=key)
    where = "argument" if location and location[0] in values else "settings"
    return ConfigError(f"{message} (from {where})", field=key)


def load_settings(config: Path | None = None, **overrides: Any) -> Settings:
    """Build Settings from defaults, an optional YAML file, the environment and overrides."""
    if config is None:
        return Settings(**overrides)
    previous = os.environ.get("FORESCI_CONFIG")
    os.environ["FORESCI_CONFIG"] = str(config)
    try:
        return Settings(**overrides)
    finally:
        if previous is None:
            del os.environ["FORESCI_CONFIG"]
        else:
            os.environ["FORESCI_CONFIG"] = previous
