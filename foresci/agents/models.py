"""The intermediate structured outputs of the agent methods (the answer contracts are
:mod:`foresci.contracts`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from foresci.contracts import Evidence

# ---- intermediate structured outputs of the agent methods ---------------------------------------

class QueryPlan(BaseModel):
    """Search queries a method plans before retrieving (ARIS-style planning step)."""

    model_config = ConfigDict(extra="forbid")

    queries: list[str] = Field(description="short keyword queries")


class EvidencePlan(BaseModel):
    """Evidence claims built from retrieved papers, each with the ids that support it."""

    model_config = ConfigDict(extra="forbid")

    claims: list[Evidence] = Field(description="short claims with supporting paper ids")
