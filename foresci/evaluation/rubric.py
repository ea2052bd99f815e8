"""Rubric metrics judged ``n`` times (Trace, Pers): one loop, mean and variance, judge failures recorded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pydantic import BaseModel

from foresci.evaluation.judges import JudgeClient, JudgeError, call_judge
from foresci.evaluation.models import MetricResult

PassScore = Callable[[Any], tuple[float, dict[str, float]]]
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
    """Judge ``prompt`` ``runs`` times; ``score`` turns one judgement into (value, dimension scores).

    The value is the mean over runs, with the variance. A judge that fails for good (after its re-ask)
    makes the metric unavailable with the error recorded — never a zero. ``details`` receives the
    per-run dimension scores, or None on failure.
    """
    values: list[float] = []
    passes: list[dict[str, float]] = []
    try:
        for run in range(1, runs + 1):
            judgement = call_judge(client, prompt, schema, run=run, runs=runs, **variables)
            value, dimensions = score(judgement)
            values.append(value)
            passes.append(dimensions)
    except JudgeError as error:
        return MetricResult(
            name=name,
            value=None,
            available=False,
            error=str(error),
            reason="judge failed",
            runs=values,
            details=details(None),
        )
    return MetricResult(
        name=name,
        value=float(np.mean(values)),
        runs=values,
        variance=float(np.var(values)),
        details=details(passes),
    )
