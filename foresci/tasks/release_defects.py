"""Defects a researcher reads in a release that the gates were blind to (#29), as figures.

Per release: the share of tasks offering near-duplicate options (goal 0), the concept-emergence tasks
offering a pair of two names of one concept (goal 0), the share of bottleneck
targets whose addressing share rises in the window (goal 100 %; from the recorded ``rise_test``, else
read from the mechanism line "a of the w window papers ... against b of p before" and tested the same
way), the primary opportunities' specificity (recorded lift against the domain's other window papers), the
trajectory-label distribution per family and the naive recency rule's rate per family.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from foresci.tasks.audit_rates import recency_wins
from foresci.tasks.families.bottleneck_opportunity.acceptance import MIN_SPECIFICITY_LIFT, rise_test, rises
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.models import Task
from foresci.tasks.option_similarity import names_near_duplicate, near_duplicate_pairs

MECHANISM = re.compile(r"(\d+) of the (\d+) window papers.*?against (\d+) of (\d+) before")


def bottleneck_rise(hidden: HiddenTarget) -> dict[str, float] | None:
    """The target's rise test: recorded, else recomputed from its mechanism line; None when neither."""
    recorded = hidden.stats.get("rise_test")
    if isinstance(recorded, dict):
        return {str(key): float(value) for key, value in recorded.items()}
    found = MECHANISM.search(str(getattr(hidden, "mechanism", "") or ""))
    if found is None:
        return None
    after, window, before, pre = (int(value) for value in found.groups())
    return rise_test(before, pre, after, window)


def names_one_concept_twice(task: Task) -> bool:
    """Whether a concept-emergence option pairs two names of one concept ("synthetic data + synthetic data
    generation"): the pair co-occurs by wording, not by research."""
    if task.family != "concept_emergence":
        return False
    pairs = [candidate.name.split(" + ", 1) for candidate in task.candidates]
    return any(len(pair) == 2 and names_near_duplicate(*pair) for pair in pairs)


def primary_opportunity_lift(hidden: HiddenTarget) -> float | None:
    """The recorded specificity lift of the target's primary opportunity (its first), None when not
    recorded. The lifts are stored by phrase, and a release writes keys sorted, so the first stored
    lift is the alphabetically first opportunity's, not the primary's."""
    lifts = dict(hidden.stats.get("opportunity_lift") or {})
    opportunities = list(getattr(hidden, "opportunity", []) or [])
    if not opportunities or opportunities[0] not in lifts:
        return None
    return float(lifts[opportunities[0]])


def release_defects(tasks: Sequence[Task], hidden: Mapping[str, HiddenTarget]) -> dict[str, Any]:
    """The figures above for one release's tasks and hidden targets."""
    with_options = [task for task in tasks if len(task.candidates) >= 2]
    twins = [task.task_id for task in with_options
             if near_duplicate_pairs([candidate.name for candidate in task.candidates])]
    bottlenecks = [hidden[task.task_id] for task in tasks
                   if task.family == "bottleneck_opportunity" and task.task_id in hidden]
    tests = [test for target in bottlenecks if (test := bottleneck_rise(target)) is not None]
    lifts = [lift for target in bottlenecks if (lift := primary_opportunity_lift(target)) is not None]
    labels: dict[str, Counter[str]] = {}
    recency: dict[str, list[bool]] = {}
    for task in tasks:
        target = hidden.get(task.task_id)
        if target is None:
            continue
        label = getattr(target, "trajectory", None)
        if label:
            labels.setdefault(task.family, Counter())[str(label)] += 1
        outcome = recency_wins(task, target)
        if outcome is not None:
            recency.setdefault(task.family, []).append(outcome)
    return {
        "tasks": len(tasks),
        "near_duplicate_option_tasks": twins,
        "near_duplicate_rate": len(twins) / len(with_options) if with_options else None,
        "concept_pairs": sum(task.family == "concept_emergence" for task in tasks),
        "one_concept_twice_tasks": [task.task_id for task in tasks if names_one_concept_twice(task)],
        "bottleneck_targets": len(bottlenecks),
        "bottleneck_tested": len(tests),
        "bottleneck_rising": sum(rises(test) for test in tests),
        "bottleneck_share_up": sum(test["window_share"] > test["pre_share"] for test in tests),
        "opportunity_lifts": lifts,
        "opportunity_specific": sum(lift >= MIN_SPECIFICITY_LIFT for lift in lifts),
        "labels": {family: dict(counter.most_common()) for family, counter in sorted(labels.items())},
        "recency": {family: (sum(values), len(values)) for family, values in sorted(recency.items())},
    }


def render_defects(figures: Mapping[str, Any]) -> list[str]:
    """Plain lines of :func:`release_defects` figures."""
    rate = figures["near_duplicate_rate"]
    lines = [f"near-duplicate options: {len(figures['near_duplicate_option_tasks'])} tasks"
             + (f" ({rate:.1%} of tasks with options; goal 0)" if rate is not None else "")]
    if figures["concept_pairs"]:
        lines.append(f"concept pairs naming one concept twice: {len(figures['one_concept_twice_tasks'])} of "
                     f"{figures['concept_pairs']} concept-emergence tasks offer one (goal 0)")
    tested = figures["bottleneck_tested"]
    lines.append(f"bottleneck targets: {figures['bottleneck_targets']}; addressing share up in "
                 f"{figures['bottleneck_share_up']}/{tested}, a rise at p <= 0.1 (one-sided two-proportion) "
                 f"in {figures['bottleneck_rising']}/{tested} (goal 100 %)")
    lifts = figures["opportunity_lifts"]
    if lifts:
        lines.append(f"primary opportunity specificity (lift vs the domain's other window papers): "
                     f"{figures['opportunity_specific']}/{len(lifts)} >= {MIN_SPECIFICITY_LIFT:g}; median "
                     f"{sorted(lifts)[len(lifts) // 2]:.2f}, lowest {min(lifts):.2f}")
    else:
        lines.append("opportunity specificity: not recorded by this release")
    for family, counts in figures["labels"].items():
        lines.append(f"labels {family}: " + ", ".join(f"{label}={count}" for label, count in counts.items()))
    for family, (matches, evaluable) in figures["recency"].items():
        lines.append(f"recency rule {family}: {matches}/{evaluable} = {matches / evaluable:.0%} "
                     "(gate <= 60 %)")
    return lines
