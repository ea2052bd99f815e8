"""Settings of task building (the ``tasks`` section)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class TaskSettings(BaseModel):
    """How foresight tasks and releases are built."""

    seed: int = Field(default=7, description="random seed for candidate sampling")
    llm_polish: bool = Field(default=False, description="let the builder LLM polish question wording")
