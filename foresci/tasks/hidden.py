"""Hidden targets G>t(q): derived from literature after the cutoff, visible to evaluation only.

Agents must never import this module (a test enforces it).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from foresci.taxonomy.models import Trajectory


class Claim(BaseModel):
    """An atomic claim of the hidden claim bank (for Fact recall)."""

    model_config = ConfigDict(extra="forbid")

    claim_id: str
    text: str
    variants: list[str] = Field(default_factory=list)


class Slot(BaseModel):
    """An FTA slot g_j with its acceptable variants V_j (reference-guided FTA)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    variants: list[str] = Field(min_length=1)


class HiddenTarget(BaseModel):
    """The hidden target of one task. Fields apply per family; unused ones stay empty."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    family: str
    # direction_forecasting
    primary_direction: str | None = Field(default=None,
                                          description="candidate option_id that gains momentum")
    acceptable_directions: list[str] = Field(default_factory=list,
                                             description="acceptable neighbour option_ids")
    trajectory: Trajectory | None = None
    # bottleneck_opportunity
    bottleneck: list[str] = Field(default_factory=list, description="primary bottleneck then variants")
    opportunity: list[str] = Field(default_factory=list, description="unlocked opportunity then variants")
    mechanism: str | None = None
    # strategic_planning / venue_positioning
    ranking: list[str] = Field(default_factory=list, description="preferred order of option_ids")
    rationale: list[str] = Field(default_factory=list)
    # all families
    slots: list[Slot] = Field(default_factory=list, description="FTA slots with acceptable variants")
    claims: list[Claim] = Field(default_factory=list, description="claim bank for Fact")
    evidence_ids: list[str] = Field(default_factory=list, description="post-cutoff papers behind the target")
    stats: dict[str, Any] = Field(default_factory=dict, description="window counts/shares used")
    unmapped: list[str] = Field(default_factory=list, description="imported fields with no faithful mapping")


class Resolution(BaseModel):
    """The outcome of a forecast question, computed from newer literature."""

    model_config = ConfigDict(extra="forbid")

    question_id: str
    outcome: float = Field(description="numeric value, or 0/1 for binary")
    resolved_with: str = Field(description="KB fingerprint or path used")
    details: dict[str, Any] = Field(default_factory=dict)
