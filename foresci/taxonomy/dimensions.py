"""Offline routing of papers to contribution dimensions by cue words (``taxonomy/dimensions.yaml``)."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from foresci.core.resources import declarative_file
from foresci.core.yamlio import load_yaml_model
from foresci.taxonomy.models import Dimension

DIMENSION_ORDER: tuple[Dimension, ...] = ("tasks", "methods", "datasets", "evaluation_methods",
                                          "application_domains")


class DimensionSpec(BaseModel):
    """One contribution dimension and the cues that route a paper to it."""

    model_config = ConfigDict(extra="forbid")

    description: str = ""
    cues: list[str] = Field(min_length=1)


class DimensionConfig(BaseModel):
    """All dimensions."""

    model_config = ConfigDict(extra="forbid")

    min_hits: int = Field(default=1, ge=1)
    dimensions: dict[Dimension, DimensionSpec]


def load_dimensions(path: Path | None = None) -> DimensionConfig:
    """Read the dimensions YAML (default ``taxonomy/dimensions.yaml``); errors name the file and field."""
    path = path or declarative_file("taxonomy", "dimensions.yaml")
    return load_yaml_model(path, DimensionConfig, "dimensions file")


class DimensionRouter:
    """Counts cue hits per dimension in a text."""

    def __init__(self, config: DimensionConfig) -> None:
        self.config = config
        self.patterns: dict[Dimension, re.Pattern[str]] = {
            dimension: re.compile(r"\b(?:" + "|".join(re.escape(cue.lower()) for cue in spec.cues) + ")")
            for dimension, spec in config.dimensions.items()}

    def hits(self, text: str) -> dict[Dimension, int]:
        """Cue hits per dimension for ``text``."""
        lowered = text.lower()
        return {dimension: len(pattern.findall(lowered)) for dimension, pattern in self.patterns.items()}

    def route(self, text: str) -> list[Dimension]:
        """Dimensions ``text`` is routed to, primary (most hits) first; ``['methods']`` when none hit."""
        counts = self.hits(text)
        routed = [dimension for dimension in DIMENSION_ORDER
                  if counts.get(dimension, 0) >= self.config.min_hits]
        routed.sort(key=lambda dimension: -counts[dimension])
        return routed or ["methods"]
