"""Settings of answering methods (the ``agents`` section)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class AgentSettings(BaseModel):
    """Knobs of the LangGraph methods and the run loop."""

    papers_per_query: int = Field(default=8, description="papers retrieved per search call")
    tool_budget: int = Field(default=12, description="maximum tool calls per task")
    iterations: int = Field(default=2, description="refinement rounds (research_agent)")
    reviewers: int = Field(default=2, description="reviewer agents per round (research_agent)")
