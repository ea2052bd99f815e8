"""Answer types of the agents: the neutral contracts (re-exported from :mod:`foresci.contracts`, their
owner) and the intermediate structured outputs of the agent methods."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from foresci.contracts import (
    Answer,
    BottleneckAnswer,
    ContractStatus,
    DirectionAnswer,
    Evidence,
    ForecastAnswer,
    PlanningAnswer,
    RankedOption,
    RetrievedItem,
    SupportArtifact,
    ToolCall,
    VenueAnswer,
    family_schema,
)

__all__ = [
    "Answer",
    "BottleneckAnswer",
    "ContractStatus",
    "DirectionAnswer",
    "Evidence",
    "EvidencePlan",
    "ForecastAnswer",
    "PlanningAnswer",
    "QueryPlan",
    "RankedOption",
    "RetrievedItem",
    "SupportArtifact",
    "ToolCall",
    "VenueAnswer",
    "family_schema",
]


# ---- intermediate structured outputs of the agent methods ---------------------------------------

class QueryPlan(BaseModel):
    """Search queries a method plans before retrieving (ARIS-style planning step)."""

    model_config = ConfigDict(extra="forbid")

    queries: list[str] = Field(description="short keyword queries")


class EvidencePlan(BaseModel):
    """Evidence claims built from retrieved papers, each with the ids that support it."""

    model_config = ConfigDict(extra="forbid")

    claims: list[Evidence] = Field(description="short claims with supporting paper ids")
