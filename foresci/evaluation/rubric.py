"""Rubric metrics judged ``n`` times (Trace, Pers): one loop, scores mapped to 0..1, mean and variance,
judge failures recorded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pydantic import BaseModel

from foresci.evaluation.judges import JudgeClient, JudgeError, call_judge, unit_scores
from foresci.evaluation.models import MetricResult

PassScore = Callable[[dict[str, float]], tuple[float, dict[str, float]]]
Details = Callable[[list[dict[str, float]] | None], dict[str, Any]]


def judged_rubric_metric(
    name: str,
    client: JudgeClient,
    prompt: str,
    schema: type[BaseModel],
    runs: int,
    score: PassScore,
    details: Details,
    **variables: Any,
) -> MetricResult:
    """Judge ``prompt`` ``runs`` times; ``score`` turns one judgement's 0..1 dimension scores (see
    :func:`foresci.evaluation.judges.unit_scores`) into (value, dimension scores).

    The value is the mean over runs, with the variance. A judge that fails for good (after its re-ask)
    makes the metric unavailable with the error and its kind recorded — never a zero. ``details``
    receives the per-run dimension scores, or None on failure; scale notes go to ``details["scale_notes"]``.
    """
    values: list[float] = []
    passes: list[dict[str, float]] = []
    notes: list[str] = []
    try:
        for run in range(1, runs + 1):
            judgement = call_judge(client, prompt, schema, run=run, runs=runs, **variables)
            scores, scale_notes = unit_scores(judgement)
            notes += [f"run {run}: {note}" for note in scale_notes]
            value, dimensions = score(scores)
            values.append(value)
            passes.append(dimensions)
    except JudgeError as error:
        return MetricResult(
            name=name,
            value=None,
            available=False,
            error=str(error),
            error_kind=error.kind,
            reason="judge failed",
            runs=values,
            details=details(None),
        )
    extra = {"scale_notes": notes} if notes else {}
    return MetricResult(
        name=name,
        value=float(np.mean(values)),
        runs=values,
        variance=float(np.var(values)),
        details={**details(passes), **extra},
    )
