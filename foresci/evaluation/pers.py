"""Reviewer persuasiveness: a family rubric judged n times (mean, variance); unavailable offline."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from foresci.evaluation.judges import (
    JudgeClient,
    family_dimensions,
    pers_schema,
    public_task_json,
    rubrics,
)
from foresci.evaluation.models import MetricResult
from foresci.evaluation.rubric import judged_rubric_metric
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.models import Task


def offline_pers() -> MetricResult:
    """Pers has no offline form: reported as unavailable, never approximated."""
    return MetricResult(
        name="pers",
        value=None,
        available=False,
        reason="needs an LLM judge (run `foresci eval` without --offline)",
    )


def reviewer_brief(task: Task, hidden: HiddenTarget) -> str:
    """The family-conditioned brief from the public task and the hidden decision target (JSON)."""
    names = {candidate.option_id: candidate.name for candidate in task.candidates}
    brief: dict[str, object] = {"family": task.family}
    # each family's target holds some of these fields (foresci.tasks.families); absent ones are empty
    primary = getattr(hidden, "primary_direction", None)
    trajectory = getattr(hidden, "trajectory", None)
    bottleneck: list[str] = getattr(hidden, "bottleneck", [])
    opportunity: list[str] = getattr(hidden, "opportunity", [])
    mechanism = getattr(hidden, "mechanism", None)
    ranking: list[str] = getattr(hidden, "ranking", [])
    rationale: list[str] = getattr(hidden, "rationale", [])
    if primary:
        brief["direction_that_gained_momentum"] = names.get(primary, primary)
        brief["acceptable_neighbours"] = [
            names.get(option, option) for option in getattr(hidden, "acceptable_directions", [])
        ]
    if trajectory:
        brief["trajectory"] = trajectory
    if bottleneck:
        brief["bottleneck"] = bottleneck[0]
    if opportunity:
        brief["opportunity"] = opportunity[0]
    if mechanism:
        brief["mechanism"] = mechanism
    if ranking:
        brief["preferred_order"] = [names.get(option, option) for option in ranking]
    if rationale:
        brief["rationale"] = rationale
    return json.dumps(brief, ensure_ascii=False)


def judged_pers(
    client: JudgeClient, task: Task, hidden: HiddenTarget, answer_text: str, runs: int
) -> MetricResult:
    """Pers = mean holistic score over ``runs`` judge passes; dimension means in details."""
    schema = pers_schema(task.family)
    task_dimensions = family_dimensions(task.family)
    generic = rubrics()["generic"]
    describe = (
        "; ".join(f"{name} ({text})" for name, text in task_dimensions.items()) or "none for this family"
    )

    def score(scores: dict[str, float]) -> tuple[float, dict[str, float]]:
        return scores["holistic"], scores

    def details(passes: list[dict[str, float]] | None) -> dict[str, Any]:
        if passes is None:
            return {}
        means = {name: float(np.mean([scores[name] for scores in passes])) for name in passes[0]}
        return {
            "dimensions": means,
            "task_dimensions": list(task_dimensions),
            "generic_dimensions": list(generic),
        }

    return judged_rubric_metric(
        "pers",
        client,
        "pers",
        schema,
        runs,
        score,
        details,
        task_json=public_task_json(task),
        brief_json=reviewer_brief(task, hidden),
        answer=answer_text,
        task_dimensions=describe,
        generic_dimensions="; ".join(f"{n} ({t})" for n, t in generic.items()),
    )
