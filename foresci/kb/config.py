"""Settings of the knowledge base (the ``kb`` section of :class:`foresci.core.settings.Settings`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from foresci.core.sections import SettingsSection


class KBSettings(SettingsSection):
    """How the knowledge base ingests, screens, indexes and retrieves papers."""

    domains: list[str] = Field(
        default_factory=list,
        description="domain slugs to screen for (files kb/domains/<slug>.yaml); empty = all",
    )
    rrf_k: int = Field(default=60, description="reciprocal rank fusion constant k")
    candidates_per_retriever: int = Field(
        default=100, description="hits taken from BM25 and from dense before fusion"
    )
    screen_threshold: float = Field(
        default=0.40, description="embedding similarity to a domain seed for 'support'"
    )
    core_threshold: float = Field(
        default=0.55, description="embedding similarity to a domain seed that alone makes a paper 'core'"
    )
    keyword_floor: float = Field(
        default=0.25, description="least similarity for a paper with only an abstract keyword to be 'support'"
    )
    llm_screen: bool = Field(default=False, description="ask the builder LLM to screen borderline papers")
    llm_screen_max: int = Field(
        default=300, description="borderline papers per domain sent to the LLM screen"
    )
    max_row_bytes: int = Field(default=200_000, description="a raw row larger than this is quarantined")
    bm25_k1: float = Field(default=1.5, description="Okapi BM25 term-frequency saturation k1")
    bm25_b: float = Field(default=0.75, description="Okapi BM25 length normalisation b")
    embed_field: Literal["text", "title"] = Field(
        default="text",
        description="what is embedded per paper: 'text' (title + abstract, best) or 'title' (about 10x "
        "faster on CPU; BM25 still indexes title + abstract)",
    )
    embed_chunk: int = Field(default=2048, description="papers embedded (and cached) per step during a build")
