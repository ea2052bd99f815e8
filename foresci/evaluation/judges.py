"""LLM judges of the evaluation: prompts from ``evaluation/judges.yaml``, structured output schemas, calls.

A judge call that still fails after the client's re-asks becomes a :class:`JudgeError` that the caller
records on the metric (``MetricResult.error``, with ``error_kind``); it is never turned into a zero score.

Rubric dimensions are scored as whole numbers from 0 to :data:`SCALE_MAX` (an integer scale small models
keep to, announced to grammar-capable servers as an integer range) and mapped to 0..1 by
:func:`unit_scores`; a value off the scale is clamped with a recorded note, not rejected.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from foresci.core.fencing import fence_values, with_system_clause
from foresci.core.resources import declarative_file
from foresci.core.yamlio import read_yaml_mapping
from foresci.llm import LLMError, LLMOutputError
from foresci.tasks.models import Task

SchemaT = TypeVar("SchemaT", bound=BaseModel)


class JudgeClient(Protocol):
    """What a judge needs from an LLM client (``foresci.llm.LLMClient`` with role 'judge' fits)."""

    def invoke_structured(self, messages: list[dict[str, str]], schema: type[SchemaT]) -> SchemaT:
        """Return the model's answer parsed into ``schema`` (re-asking on malformed output)."""
        ...


ErrorKind = Literal["output", "transport"]


class JudgeError(RuntimeError):
    """A judge call that failed after re-asking; carries the prompt name and the kind of failure.

    ``kind`` 'output': the judge's answer stayed unusable (it repeats at temperature 0, so a re-evaluation
    keeps it unless asked to retry); 'transport': the call itself failed (worth retrying).
    """

    def __init__(self, prompt: str, reason: str, kind: ErrorKind = "output") -> None:
        super().__init__(f"judge '{prompt}' failed: {reason}")
        self.prompt = prompt
        self.reason = reason
        self.kind: ErrorKind = kind


SCALE_MAX = 10
"""Rubric dimensions are judged as whole numbers 0..SCALE_MAX; the metric uses value / SCALE_MAX."""


def scale_field(description: str) -> Any:
    """A rubric-dimension field: announced as an integer 0..SCALE_MAX, parsed as any number."""
    return Field(
        description=f"{description}: a whole number from 0 to {SCALE_MAX}",
        json_schema_extra={"type": "integer", "minimum": 0, "maximum": SCALE_MAX},
    )


def scale_fields(schema: type[BaseModel]) -> list[str]:
    """The rubric-dimension (scale) fields of a judge schema, in schema order."""
    return [name for name, info in schema.model_fields.items() if info.annotation is float]


def unit_scores(judgement: BaseModel) -> tuple[dict[str, float], list[str]]:
    """The judgement's dimension scores mapped to 0..1, with notes on every value that needed care.

    A value on the 0..SCALE_MAX scale maps to value / SCALE_MAX. When every value lies in [0, 1] and one
    is fractional, the judge answered on the unit scale: the values are kept (noted). A value outside the
    scale is clamped to it (noted). A value that is not a finite number raises :class:`JudgeError`.
    """
    names = scale_fields(type(judgement))
    raw = {name: float(getattr(judgement, name)) for name in names}
    bad = [name for name, value in raw.items() if not math.isfinite(value)]
    if bad:
        raise JudgeError(type(judgement).__name__, f"scores {bad} are not finite numbers")
    notes: list[str] = []
    divisor = float(SCALE_MAX)
    if raw and all(0.0 <= value <= 1.0 for value in raw.values()) and any(
        not value.is_integer() for value in raw.values()
    ):
        divisor = 1.0
        notes.append(f"scores read on a 0-1 scale (all within [0, 1], some fractional), not 0-{SCALE_MAX}")
    scores: dict[str, float] = {}
    for name, value in raw.items():
        clamped = min(max(value, 0.0), divisor)
        if clamped != value:
            notes.append(f"{name}={value:g} is off the 0-{divisor:g} scale; clamped to {clamped:g}")
        scores[name] = clamped / divisor
    return scores, notes


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
    """Evidence traceability dimensions (each a whole number 0..SCALE_MAX; see :func:`unit_scores`)."""

    model_config = ConfigDict(extra="forbid")

    evidence_linkage: float = scale_field("main claims visibly tied to evidence items")
    support_specificity: float = scale_field("support concrete enough to audit")
    answer_internal_trace: float = scale_field("a coherent path from evidence to decision")
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
    """A structured-output schema with one scale field (0..SCALE_MAX) per rubric dimension plus 'holistic'."""
    dimensions = {**family_dimensions(family), **rubrics()["generic"]}
    fields: dict[str, Any] = {name: (float, scale_field(text)) for name, text in dimensions.items()}
    fields["holistic"] = (float, scale_field("holistic persuasiveness"))
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


# judge placeholders that carry the candidate answer, the method's support artifact or the public task
# (its candidate names, descriptions and context come from KB text: paper titles): fenced as data
DATA_VALUES = frozenset({"answer", "answer_claims_json", "support_json", "task_json"})


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
    except (LLMOutputError, ValidationError) as error:  # re-asked already: record, never score 0
        raise JudgeError(prompt, f"{type(error).__name__}: {error}", "output") from error
    except LLMError as error:
        raise JudgeError(prompt, f"{type(error).__name__}: {error}", "transport") from error
