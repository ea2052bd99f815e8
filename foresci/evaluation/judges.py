"""LLM judges of the evaluation: prompts from ``evaluation/judges.yaml``, structured output schemas, calls.

A judge call that still fails after the client's re-asks becomes a :class:`JudgeError` that the caller
records on the metric (``MetricResult.error``); it is never turned into a zero score.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from foresci.fencing import fence_values, with_system_clause
from foresci.llm import LLMError
from foresci.resources import declarative_file
from foresci.tasks.models import Task
from foresci.yamlio import read_yaml_mapping

SchemaT = TypeVar("SchemaT", bound=BaseModel)


class JudgeClient(Protocol):
    """What a judge needs from an LLM client (``foresci.llm.LLMClient`` with role 'judge' fits)."""

    def invoke_structured(self, messages: list[dict[str, str]], schema: type[SchemaT]) -> SchemaT:
        """Return the model's answer parsed into ``schema`` (re-asking on malformed output)."""
        ...


class JudgeError(RuntimeError):
    """A judge call that failed after re-asking; carries the prompt name."""

    def __init__(self, prompt: str, reason: str) -> None:
        super().__init__(f"judge '{prompt}' failed: {reason}")
        self.prompt = prompt
        self.reason = reason


# ---- output schemas ---------------------------------------------------------------------------------


class ExtractedClaims(BaseModel):
    """Atomic claims extracted from an answer."""

    model_config = ConfigDict(extra="forbid")

    claims: list[str] = Field(description="atomic claims, most decision-relevant first")


class ClaimVerdict(BaseModel):
    """The verifier's label of one answer claim."""

    model_config = ConfigDict(extra="forbid")

    claim_index: int = Field(description="0-based index of the answer claim")
    label: Literal["supported", "partially_supported", "unsupported", "not_checkable"]
    rationale: str = ""


class GoldCoverage(BaseModel):
    """The coverage label of one hidden claim unit."""

    model_config = ConfigDict(extra="forbid")

    gold_claim_id: str
    label: Literal["covered", "partially_covered", "not_covered"]
    rationale: str = ""


class FactVerdicts(BaseModel):
    """Claim-level verdicts and gold-claim coverage."""

    model_config = ConfigDict(extra="forbid")

    answer_claim_verdicts: list[ClaimVerdict]
    gold_claim_coverage: list[GoldCoverage]


class TraceJudgement(BaseModel):
    """Evidence traceability dimensions (each 0..1)."""

    model_config = ConfigDict(extra="forbid")

    evidence_linkage: float = Field(ge=0.0, le=1.0)
    support_specificity: float = Field(ge=0.0, le=1.0)
    answer_internal_trace: float = Field(ge=0.0, le=1.0)
    strengths: list[str] = Field(default_factory=list)
    weaknesses: list[str] = Field(default_factory=list)
    rationale: str = ""


# ---- prompts and rubrics ----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def judge_prompts() -> dict[str, Any]:
    """The judge prompts of ``evaluation/judges.yaml``."""
    path = declarative_file("evaluation", "judges.yaml")
    data = read_yaml_mapping(path)
    for name in ("claim_extraction", "fact_verdicts", "trace", "pers"):
        if name not in data or not {"system", "user"} <= set(data[name]):
            raise ValueError(f"{path}: prompt '{name}' needs 'system' and 'user' entries")
    return dict(data)


@lru_cache(maxsize=1)
def rubrics() -> dict[str, Any]:
    """The persuasiveness rubric of ``evaluation/rubrics.yaml``: generic and per-family dimensions."""
    path = declarative_file("evaluation", "rubrics.yaml")
    data = read_yaml_mapping(path)
    if not isinstance(data.get("generic"), dict) or not isinstance(data.get("families"), dict):
        raise ValueError(f"{path}: expected mappings 'generic' and 'families'")
    return dict(data)


def family_dimensions(family: str) -> dict[str, str]:
    """The family-specific persuasiveness dimensions (name -> description); empty for unknown families."""
    return dict(rubrics()["families"].get(family) or {})


@lru_cache(maxsize=16)
def pers_schema(family: str) -> type[BaseModel]:
    """A structured-output schema with one 0..1 field per rubric dimension plus 'holistic'."""
    fields: dict[str, Any] = {}
    for name in [*family_dimensions(family), *rubrics()["generic"]]:
        fields[name] = (float, Field(ge=0.0, le=1.0))
    fields["holistic"] = (float, Field(ge=0.0, le=1.0, description="holistic persuasiveness"))
    fields["rationale"] = (str, "")
    model = create_model(f"PersJudgement_{family}", __config__=ConfigDict(extra="forbid"), **fields)
    return model


def public_task_json(task: Task) -> str:
    """The public task as compact JSON for prompts (nothing hidden)."""
    data = task.model_dump(
        mode="json",
        include={
            "task_id",
            "family",
            "domain",
            "cutoff",
            "horizon",
            "title",
            "question",
            "candidates",
            "deliverable",
            "context",
        },
    )
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


# judge placeholders that carry the candidate answer or the method's support artifact: fenced as data
DATA_VALUES = frozenset({"answer", "answer_claims_json", "support_json"})


def render(prompt: str, **values: Any) -> list[dict[str, str]]:
    """The chat messages of one judge prompt with its placeholders filled (answer text fenced as data)."""
    template = judge_prompts()[prompt]
    return [
        {"role": "system", "content": with_system_clause(template["system"].strip())},
        {"role": "user", "content": template["user"].format(**fence_values(values, DATA_VALUES)).strip()},
    ]


def call_judge(client: JudgeClient, prompt: str, schema: type[SchemaT], **values: Any) -> SchemaT:
    """Ask one judge; a failure after the client's re-asks raises :class:`JudgeError`."""
    messages = render(prompt, **values)
    try:
        return client.invoke_structured(messages, schema)
    except (LLMError, ValidationError) as error:  # the client has re-asked already; record, never score 0
        raise JudgeError(prompt, f"{type(error).__name__}: {error}") from error
