"""Settings of taxonomy induction (the ``taxonomy`` section)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class TaxonomySettings(BaseModel):
    """How temporal taxonomies are induced."""

    seed: int = Field(default=13, description="random seed for clustering")
    use_llm: bool = Field(default=False, description="let the builder LLM route papers and write labels")
