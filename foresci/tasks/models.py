"""Public task types: what an answering method may see. Hidden targets live in ``tasks/hidden.py``."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Horizon = Literal["1m", "2m", "3m", "6m", "venue_cycle"]
QuestionKind = Literal["numeric", "binary"]


def _registered_families(schema: dict[str, Any]) -> None:
    """The JSON schema of ``Task.family``: an enum of the families registered when it is generated."""
    from foresci.tasks.families.lookup import registered_names

    schema["enum"] = list(registered_names())


class Candidate(BaseModel):
    """A fixed option the answer must choose among or rank."""

    model_config = ConfigDict(extra="forbid")

    option_id: str = Field(description="short stable id, e.g. 'A'")
    name: str
    description: str = ""
    node_id: str | None = Field(default=None, description="taxonomy node the option was drawn from")


class Task(BaseModel):
    """A public foresight task x = (q, t, K<=t, f). Carries nothing computed after the cutoff."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    family: str = Field(description="a registered task family (foresci.tasks.families)",
                        json_schema_extra=_registered_families)
    domain: str
    cutoff: date
    horizon: Horizon
    window_start: date
    window_end: date
    title: str
    question: str
    candidates: list[Candidate] = Field(default_factory=list)
    context: dict[str, Any] = Field(default_factory=dict,
                                    description="pre-cutoff context: sub-direction, contribution, node ids")
    deliverable: list[str] = Field(default_factory=list, description="requirements on the answer")
    source: str = Field(default="foresci", description="who built it: foresci, researchforesight, sim")
    subtype: str | None = None

    @field_validator("family")
    @classmethod
    def _registered_family(cls, value: str) -> str:
        """An unknown family is this field's error (a ValueError pydantic locates at ``family``); an
        extension that fails to load is not caught here: it is its own error, naming the extension."""
        from foresci.tasks.families.lookup import UnknownFamilyError, find_family

        try:
            find_family(value)
        except UnknownFamilyError as error:
            raise ValueError(error.message) from None
        return value


class ForecastQuestion(BaseModel):
    """A resolvable numeric or binary question about the window after the cutoff."""

    model_config = ConfigDict(extra="forbid")

    question_id: str
    kind: QuestionKind
    domain: str
    cutoff: date
    window_start: date
    window_end: date
    text: str
    resolution_rule: str = Field(description="how the outcome is computed from newer literature")
    node_id: str | None = None
    params: dict[str, Any] = Field(default_factory=dict,
                                   description="machine-readable resolution parameters")
    baseline: float | None = Field(default=None,
                                   description="naive (persistence) forecast: count or probability")


class ReleaseInfo(BaseModel):
    """Summary of a release folder (mirrors its manifest counts)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    cutoffs: list[date]
    counts_by_family: dict[str, int] = Field(default_factory=dict)
    counts_by_domain: dict[str, int] = Field(default_factory=dict)
    counts_by_horizon: dict[str, int] = Field(default_factory=dict)
