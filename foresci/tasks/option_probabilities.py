"""The optional probability per option a family answer may state (``probabilities``), for every answer
schema of the shipped families: a plug-in, an HTTP agent or a shipped method can give it, not only an
answer file (``rounds submit --task-answers``). A round scores it with the multi-class Brier score
(:mod:`foresci.rounds.option_scores`); without it the answer's ranking or choice maps to a stated
distribution as before.

Checked twice: the schema wants each value in [0, 1] and the values to sum to 1 (within 1e-6); reading a
method's answer for a task (:func:`foresci.methods.calling.read_answer`) wants every key to be one of the
task's option ids (:func:`unknown_options`). An answer that leaves it out serialises exactly as before
(the key is dropped when None), so stored answers and their hashes do not change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, field_validator, model_serializer

from foresci.llm.bounds import UNASKED

SUM_TOLERANCE = 1e-6


class OptionProbabilities(BaseModel):
    """Base of a family answer schema: the optional ``probabilities`` field and its checks."""

    probabilities: dict[str, float] | None = Field(
        default=None,
        description="optional: option_id -> probability that this option is the outcome (each in [0, 1], "
        "summing to 1; options left out read 0); scored by the multi-class Brier score in rounds",
        # foresci's own LLM calls leave it out of the schema they send (foresci.llm.bounds.without_unasked):
        # the shipped LLM methods are not asked for probabilities (a small model fills the map with invented
        # keys or sums that are not 1, and the failed check lost the whole answer); plug-ins and HTTP agents
        # see the field in the exported schemas
        json_schema_extra={UNASKED: True},
    )

    @field_validator("probabilities")
    @classmethod
    def _a_distribution(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value is None:
            return None
        outside = {option: share for option, share in value.items() if not 0.0 <= share <= 1.0}
        if outside:
            raise ValueError(f"each probability must be in [0, 1]; got {outside}")
        total = sum(value.values())
        if abs(total - 1.0) > SUM_TOLERANCE:
            raise ValueError(f"probabilities must sum to 1 (within {SUM_TOLERANCE:g}); "
                             f"they sum to {total:.6g}")
        return value

    @model_serializer(mode="wrap")
    def _without_empty_probabilities(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("probabilities") is None:
            data.pop("probabilities", None)
        return data


def unknown_options(answer: BaseModel, options: Sequence[str]) -> list[str]:
    """Keys of ``answer.probabilities`` that are not among the task's ``options`` (ids)."""
    stated = getattr(answer, "probabilities", None) or {}
    return [key for key in stated if key not in options]
