"""Defects a researcher reads in a release that the gates were blind to (#29), as figures.

Per release: the share of tasks offering near-duplicate options (goal 0), the trajectory-label distribution
per family and the naive recency rule's rate per family, and each registered family's own figures
(:meth:`~foresci.tasks.families.TaskFamily.defect_figures`: the shipped concept-pair family counts pairs of
two names of one concept, the bottleneck family its rising targets and opportunity specificity).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from foresci.tasks.audit_rates import recency_wins
from foresci.tasks.families.lookup import registered
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.models import Task
from foresci.tasks.option_similarity import names_near_duplicate, near_duplicate_pairs
from foresci.tasks.release_checks import pair_names


def names_one_concept_twice(task: Task) -> bool:
    """Whether a concept-pair option pairs two names of one concept ("synthetic data + synthetic data
    generation"): the pair co-occurs by wording, not by research."""
    return any(names_near_duplicate(*pair) for pair in pair_names(task))


def release_defects(tasks: Sequence[Task], hidden: Mapping[str, HiddenTarget]) -> dict[str, Any]:
    """The figures above for one release's tasks and hidden targets."""
    with_options = [task for task in tasks if len(task.candidates) >= 2]
    twins = [task.task_id for task in with_options
             if near_duplicate_pairs([candidate.name for candidate in task.candidates])]
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
    figures: dict[str, Any] = {
        "tasks": len(tasks),
        "near_duplicate_option_tasks": twins,
        "near_duplicate_rate": len(twins) / len(with_options) if with_options else None,
    }
    for family in registered():
        figures.update(family.defect_figures([task for task in tasks if task.family == family.name], hidden))
    figures["labels"] = {family: dict(counter.most_common()) for family, counter in sorted(labels.items())}
    figures["recency"] = {family: (sum(values), len(values)) for family, values in sorted(recency.items())}
    return figures


def render_defects(figures: Mapping[str, Any]) -> list[str]:
    """Plain lines of :func:`release_defects` figures."""
    rate = figures["near_duplicate_rate"]
    lines = [f"near-duplicate options: {len(figures['near_duplicate_option_tasks'])} tasks"
             + (f" ({rate:.1%} of tasks with options; goal 0)" if rate is not None else "")]
    for family in registered():
        lines.extend(family.defect_lines(figures))
    for family, counts in figures["labels"].items():
        lines.append(f"labels {family}: " + ", ".join(f"{label}={count}" for label, count in counts.items()))
    for family, (matches, evaluable) in figures["recency"].items():
        lines.append(f"recency rule {family}: {matches}/{evaluable} = {matches / evaluable:.0%} "
                     "(gate <= 60 %)")
    return lines
