"""One Settings object for foresci: nested sections, env prefix ``FORESCI_``, optional YAML file.

Precedence (highest first): explicit arguments, environment (``FORESCI_LLM__BASE_URL=...``), the
YAML file named by ``FORESCI_CONFIG`` or ``--config``, the defaults. This module imports no
runtime code: the fields are plain pydantic section models (:mod:`foresci.core.settings_fields`), and
``Settings`` itself, which reads them with pydantic-settings (:mod:`foresci.core.settings_env`), loads on
first use, so importing a constant from here costs no pydantic-settings import.

Unknown keys are refused at every level, in YAML and in the environment: a typo such as
``llm.base_ur1`` or ``FORESCI_KB__RRF_KK`` raises :class:`foresci.core.errors.ConfigError` naming the key
and the file or variable it came from; so does a value of the wrong type.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from foresci.core.env_names import NON_SETTING_VARIABLES, unknown_env_names
from foresci.core.settings_fields import (
    DEFAULT_EMBEDDING_MODEL,
    ENV_DELIMITER,
    ENV_PREFIX,
    EmbedSettings,
    SettingsFields,
)

if TYPE_CHECKING:
    from foresci.core.settings_env import Settings, load_yaml_config

__all__ = [
    "DEFAULT_EMBEDDING_MODEL", "ENV_DELIMITER", "ENV_PREFIX", "NON_SETTING_VARIABLES", "EmbedSettings",
    "Settings", "SettingsFields", "load_settings", "load_yaml_config", "unknown_env_names",
]
_LOADED_ON_USE = ("Settings", "load_yaml_config")


def load_settings(config: Path | None = None, **overrides: Any) -> Settings:
    """Build Settings from defaults, an optional YAML file, the environment and overrides."""
    from foresci.core.settings_env import load_settings as load

    return load(config, **overrides)


def __getattr__(name: str) -> Any:
    """``Settings`` and ``load_yaml_config``, imported (with pydantic-settings) on first use."""
    if name in _LOADED_ON_USE:
        from foresci.core import settings_env

        value = getattr(settings_env, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
