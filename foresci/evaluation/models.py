"""Score types: one metric result, one scored answer row."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# the reason of a citation-based metric (Trace, Trace~off) not computed for want of a KB
NO_KB = ("citations not checked: no KB to check them against (the run recorded none, or it cannot be "
         "read; give `foresci eval --kb KB`)")


class MetricResult(BaseModel):
    """The value of one metric on one answer (None = not applicable, shown as '–')."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="metric name, e.g. 'fact', 'fta', 'trace', 'pers', 'fact_offline'")
    value: float | None
    precision: float | None = None
    recall: float | None = None
    runs: list[float] = Field(default_factory=list, description="per-run values of rubric metrics")
    variance: float | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    available: bool = True
    reason: str | None = Field(default=None, description="why unavailable, when it is")
    error: str | None = Field(default=None, description="judge failure after re-asking (not a zero score)")
    error_kind: str | None = Field(
        default=None,
        description="output: the judge's answer stayed unusable (repeats at temperature 0, kept on "
        "re-evaluation unless --retry-errors); transport: the call failed (retried on re-evaluation)",
    )


class Score(BaseModel):
    """All metric results of one answer."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    family: str
    domain: str
    method: str
    model: str | None = None
    mode: str = "full"
    metrics: dict[str, MetricResult] = Field(default_factory=dict)
    contamination_risk: bool = False
    status: str = Field(
        default="ok", description="ok | error (the answer itself failed) | missing (no hidden target or task)"
    )
    error: str | None = Field(default=None, description="why the row has no scores, when it has none")
    key: str | None = Field(default=None, description="row identity: task_id|method|model|mode")
    evaluation: str = Field(default="offline", description="offline | judged: how the metrics were computed")
    contract: str = Field(
        default="ok",
        description="ok | repaired | invalid: how the answer met its task contract (from the run)",
    )
    contract_notes: list[str] = Field(default_factory=list, description="the answer's contract notes")
    fingerprint: str | None = Field(
        default=None,
        description="hash of the answer row, its task's public and hidden rows, the judge/rubric prompts and "
        "the evaluation settings: a stored row is reused only when all of them are unchanged",
    )
    evidence: str | None = Field(
        default=None, description="the answer's evidence mark ('none': read no paper)"
    )
    citations: dict[str, Any] | None = Field(
        default=None,
        description="citation checks of the answer: cited, valid, unknown, after-cutoff, not-retrieved ids",
    )
    transcript: str | None = Field(
        default=None,
        description="id of the judge calls' transcript in the run folder's judge_transcripts.jsonl "
        "(None when no judge was asked)",
    )
