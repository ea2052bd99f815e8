"""The chance and base-rate forecasters every round gets at open (no KB, no model: the question alone).

- ``always-0.5``: probability 0.5 on binary questions (Brier 0.25 whatever happens: the chance line);
  no numeric forecast (numeric items are imputed with the base rate at scoring).
- ``base-rate``: the question's naive baseline: the pre-cutoff growth base rate or venue share on binary
  questions; on numeric ones the pre-cutoff count as a point forecast (p10 = p50 = p90).
"""

from __future__ import annotations

from collections.abc import Sequence

from foresci.contracts import ForecastAnswer
from foresci.tasks.models import ForecastQuestion

CHANCE = "always-0.5"
BASE_RATE = "base-rate"
QUESTION_ONLY_BASELINES = (CHANCE, BASE_RATE)


def chance_answers(questions: Sequence[ForecastQuestion]) -> list[ForecastAnswer]:
    """0.5 on every binary question."""
    return [
        ForecastAnswer(
            question_id=question.question_id, method=CHANCE, probability=0.5, notes=["chance forecaster"]
        )
        for question in questions
        if question.kind == "binary"
    ]


def base_rate_answers(questions: Sequence[ForecastQuestion]) -> list[ForecastAnswer]:
    """The question's own naive baseline (point forecast for numeric questions)."""
    rows = []
    for question in questions:
        baseline = float(question.baseline or 0.0)
        if question.kind == "binary":
            rows.append(
                ForecastAnswer(
                    question_id=question.question_id,
                    method=BASE_RATE,
                    probability=min(max(baseline, 0.0), 1.0),
                    notes=["base rate"],
                )
            )
        else:
            rows.append(
                ForecastAnswer(
                    question_id=question.question_id,
                    method=BASE_RATE,
                    p10=baseline,
                    p50=baseline,
                    p90=baseline,
                    notes=["pre-cutoff count"],
                )
            )
    return rows
