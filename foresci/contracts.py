"""The neutral contracts between answering methods and evaluation: what a method returns.

``Answer`` (one row of ``answers.jsonl``), its ``SupportArtifact`` (queries, retrieved items, ``Evidence``
per claim, tool calls) and ``ForecastAnswer``. Each family's answer schema is the family's
(:mod:`foresci.tasks.families`, ``family_schema(name)``); ``AgentReply`` (:func:`agent_reply_model`) is
built from the family registry, extensions' families included, so this module names no family. Both
``foresci.agents`` and ``foresci.evaluation`` import these; neither imports the other.
``foresci schema export DIR`` writes them as JSON Schemas for agents written in other languages
(:mod:`foresci.app.schemas`).
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from foresci.tasks.families.base import all_families, family_schema
from foresci.tasks.families.parts import RankedOption

__all__ = ["Answer", "ContractStatus", "Evidence", "ForecastAnswer", "RankedOption",
           "RetrievedItem", "SupportArtifact", "ToolCall", "agent_reply_model", "family_schema"]


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
    version: str | None = Field(default=None, description="the method's version (as on answer rows)")
    label: str | None = Field(default=None, description="the run's label (foresci run --label)")


class ForecastReply(BaseModel):
    """What a method or agent replies to a forecast question (``forecast_reply.schema.json``): for a
    question of ``kind`` numeric (a count of papers) the 10th, 50th and 90th percentiles of the outcome,
    for a ``binary`` one the probability that it resolves true. An HTTP agent may send it bare or as
    ``{"answer": {...}}``. foresci stores it as a :class:`ForecastAnswer` row (``forecasts.jsonl``)."""

    model_config = ConfigDict(extra="forbid")

    question_id: str | None = Field(default=None, description="optional; when given, the question asked")
    p10: float | None = Field(default=None, description="numeric questions: 10th percentile")
    p50: float | None = Field(default=None, description="numeric questions: median")
    p90: float | None = Field(default=None, description="numeric questions: 90th percentile")
    probability: float | None = Field(default=None, ge=0.0, le=1.0,
                                      description="binary questions: probability of resolving true")
    notes: list[str] = Field(default_factory=list, description="how the forecast was made")
    evidence_ids: list[str] = Field(default_factory=list, description="papers (<= cutoff) the method read")


ContractStatus = Literal["ok", "repaired", "invalid"]


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
    version: str | None = Field(
        default=None,
        description="the method's version: a plug-in's declared version or source hash, an HTTP agent's "
        "/info version or URL, a shipped method's foresci version and prompt hash",
    )
    label: str | None = Field(default=None, description="the run's label (foresci run --label)")


_REPLY_DOC = """What an agent outside Python (``--method http://...``) returns for one task: its answer in the
    task family's schema, and optionally what the answer rests on. A bare family answer is accepted too."""


def agent_reply_model() -> type[BaseModel]:
    """``AgentReply``: what an agent outside Python returns for one task, its ``answer`` one of the
    answer schemas of every registered family (in registry order: the shipped ones, then extensions')."""
    return _agent_reply(tuple(family.answer_schema for family in all_families()))


@lru_cache(maxsize=4)
def _agent_reply(schemas: tuple[type[BaseModel], ...]) -> type[BaseModel]:
    answer_type: Any = schemas[0] if len(schemas) == 1 else Union[schemas]  # noqa: UP007 - a runtime tuple
    return create_model(
        "AgentReply",
        __config__=ConfigDict(extra="forbid"),
        __doc__=_REPLY_DOC,
        __module__=__name__,
        answer=(answer_type, Field(
            description="the answer in the schema of the task's family (answer/<family>.schema.json)")),
        support=(SupportArtifact | None, Field(
            default=None,
            description="queries, retrieved papers with dates, evidence per claim; None: no KB read")),
    )


def __getattr__(name: str) -> Any:
    """``AgentReply`` (built from the registry on first use), and, for code written before the family
    answer schemas moved to their families, a family answer schema by its class name."""
    if name == "AgentReply":
        return agent_reply_model()
    for family in all_families():
        if family.answer_schema.__name__ == name:
            return family.answer_schema
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
