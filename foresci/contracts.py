"""The neutral contracts between answering methods and evaluation: what a method returns.

``Answer`` (one row of ``answers.jsonl``), its ``SupportArtifact`` (queries, retrieved items, ``Evidence``
per claim, tool calls), the four family answer schemas and ``ForecastAnswer``. Both ``foresci.agents``
and ``foresci.evaluation`` import these; neither imports the other. ``foresci schema export DIR`` writes
them as JSON Schemas for agents written in other languages (:mod:`foresci.app.schemas`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, create_model

from foresci.taxonomy.models import Trajectory


class RetrievedItem(BaseModel):
    """A paper a method retrieved (always dated on or before the task cutoff)."""

    model_config = ConfigDict(extra="forbid")

    paper_id: str
    title: str
    announced: date
    score: float | None = None
    query: str | None = None


class Evidence(BaseModel):
    """The papers used for one claim of the answer."""

    model_config = ConfigDict(extra="forbid")

    claim: str
    paper_ids: list[str] = Field(default_factory=list)


class ToolCall(BaseModel):
    """One logged tool call."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    result_ids: list[str] = Field(default_factory=list)


class SupportArtifact(BaseModel):
    """What an answer rests on: queries, retrieved items with dates, evidence per claim."""

    model_config = ConfigDict(extra="forbid")

    queries: list[str] = Field(default_factory=list)
    retrieved: list[RetrievedItem] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="e.g. how trends were normalised")


# ---- family-specific structured outputs -------------------------------------------------------

class DirectionAnswer(BaseModel):
    """direction_forecasting: the candidate that gains momentum and its trajectory."""

    model_config = ConfigDict(extra="forbid")

    direction: str = Field(description="option_id of the chosen candidate")
    trajectory: Trajectory
    rationale: str
    signals: list[str] = Field(default_factory=list)
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)


class BottleneckAnswer(BaseModel):
    """bottleneck_opportunity: one root bottleneck, the opportunity it unlocks, and the mechanism."""

    model_config = ConfigDict(extra="forbid")

    bottleneck: str
    opportunity: str
    mechanism: str
    evidence_summary: str = ""


class RankedOption(BaseModel):
    """One entry of a ranked plan or venue list."""

    model_config = ConfigDict(extra="forbid")

    option_id: str
    reason: str = ""


class PlanningAnswer(BaseModel):
    """strategic_planning: ranked options with milestones and risks."""

    model_config = ConfigDict(extra="forbid")

    ranking: list[RankedOption]
    milestones: list[str] = Field(default_factory=list)
    risks: list[str] = Field(default_factory=list)
    go_no_go: str = ""


class VenueAnswer(BaseModel):
    """venue_positioning: ranked venue families with framing and reviewer risks."""

    model_config = ConfigDict(extra="forbid")

    ranking: list[RankedOption]
    framing: str = ""
    reviewer_risks: list[str] = Field(default_factory=list)
    evidence_upgrades: list[str] = Field(default_factory=list)


class ForecastAnswer(BaseModel):
    """Answer to a forecast question: quantiles for numeric, a probability for binary."""

    model_config = ConfigDict(extra="forbid")

    question_id: str
    method: str = Field(default="", description="the method that answered")
    model: str | None = Field(default=None, description="backbone name; None for non-LLM methods")
    p10: float | None = None
    p50: float | None = None
    p90: float | None = None
    probability: float | None = Field(default=None, ge=0.0, le=1.0)
    notes: list[str] = Field(default_factory=list, description="how the forecast was made")
    mode: Literal["full", "name_only"] = "full"
    status: Literal["ok", "error"] = "ok"
    error: str | None = Field(default=None, description="what failed, on error rows")
    evidence_ids: list[str] = Field(default_factory=list, description="papers (<= cutoff) the method read")
    contamination_risk: bool = Field(default=False, description="the backbone may know the window")
    llm_calls: int = Field(default=0, description="model calls made for this forecast")
    cache_hits: int = Field(default=0, description="model answers served by the response cache")
    transcript: str | None = Field(
        default=None, description="id of this forecast's transcript in the run folder's transcripts.jsonl"
    )


FAMILY_SCHEMAS: dict[str, type[BaseModel]] = {
    "direction_forecasting": DirectionAnswer,
    "bottleneck_opportunity": BottleneckAnswer,
    "strategic_planning": PlanningAnswer,
    "venue_positioning": VenueAnswer,
}


def family_schema(family: str) -> type[BaseModel]:
    """The structured output schema of a task family."""
    try:
        return FAMILY_SCHEMAS[family]
    except KeyError as error:
        raise ValueError(f"unknown task family {family!r}; expected one of "
                         f"{sorted(FAMILY_SCHEMAS)}") from error


ContractStatus = Literal["ok", "repaired", "invalid"]


def answer_schema_for_options(base: type[BaseModel], options: Sequence[str]) -> type[BaseModel]:
    """``base`` (a family answer) with the task's option ids as an ``enum`` and, for rankings, exactly as
    many entries as options (``minItems``/``maxItems``) in the JSON schema sent to the model.

    A server with a grammar is held to the options; parsing stays lenient (any string, any length), so an
    answer outside the contract is still read, checked and recorded as the model gave it. The class name,
    and so the schema title, stays the family's.
    """
    return _constrained_schema(base, tuple(options))


@lru_cache(maxsize=256)
def _constrained_schema(base: type[BaseModel], options: tuple[str, ...]) -> type[BaseModel]:
    if not options:
        return base
    enum: dict[str, JsonValue] = {"enum": list(options)}
    if issubclass(base, DirectionAnswer):
        direction = Field(description="option_id of the chosen candidate", json_schema_extra=enum)
        return create_model(
            base.__name__, __base__=base, __module__=base.__module__, direction=(str, direction)
        )
    if issubclass(base, PlanningAnswer | VenueAnswer):
        item = create_model(
            RankedOption.__name__, __base__=RankedOption, __module__=__name__,
            option_id=(str, Field(description="option_id of a candidate", json_schema_extra=enum)),
        )
        sizes: dict[str, JsonValue] = {"minItems": len(options), "maxItems": len(options)}
        ranking = Field(description="every option once, best first", json_schema_extra=sizes)
        return create_model(
            base.__name__, __base__=base, __module__=base.__module__, ranking=(list[item], ranking)
        )
    return base


class Answer(BaseModel):
    """One method's answer to one task, as appended to ``answers.jsonl``."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    family: str
    method: str
    model: str | None = Field(default=None, description="backbone name; None for non-LLM methods")
    mode: Literal["full", "name_only"] = "full"
    text: str = Field(default="", description="rendered final answer")
    payload: dict[str, Any] = Field(default_factory=dict, description="the family schema as data")
    support: SupportArtifact | None = Field(default=None, description="None for native / name_only")
    status: Literal["ok", "error"] = "ok"
    error: str | None = None
    contract: ContractStatus = Field(
        default="ok",
        description="ok: the answer met the task contract; repaired: only after a contract-fix re-ask; "
        "invalid: it still breaks the contract (kept and scored as the model said it)",
    )
    contract_notes: list[str] = Field(
        default_factory=list,
        description="how labels were read, the re-ask, and what still breaks the contract",
    )
    evidence: Literal["retrieved", "none"] | None = Field(
        default=None,
        description="'none' when a KB-reading method answered from 0 papers (cutoff before the KB, empty "
        "domain); 'retrieved' when it read at least one; None when it reads no KB (native, name-only)",
    )
    contamination_risk: bool = False
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = Field(default=0, description="model answers served by the response cache (no call)")
    elapsed_s: float = 0.0
    transcript: str | None = Field(
        default=None,
        description="id of this row's transcript in the run folder's transcripts.jsonl (messages, raw "
        "completions, tool calls, tokens, timings, cache hits)",
    )


class AgentReply(BaseModel):
    """What an agent outside Python (``--method http://...``) returns for one task: its answer in the
    task family's schema, and optionally what the answer rests on. A bare family answer is accepted too."""

    model_config = ConfigDict(extra="forbid")

    answer: DirectionAnswer | BottleneckAnswer | PlanningAnswer | VenueAnswer = Field(
        description="the answer in the schema of the task's family (answer/<family>.schema.json)"
    )
    support: SupportArtifact | None = Field(
        default=None, description="queries, retrieved papers with dates, evidence per claim; None: no KB read"
    )
