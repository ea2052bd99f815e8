"""strategic_planning's round hooks (:attr:`TaskFamily.round_tasks`): sibling sets (children of one node)
and mixed sets of the domain, drawn as the builder samples them at open, resolved at tick by the builder's
gates and target code on the window's evidence."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from foresci.tasks.builders.common import (
    Built,
    direction_candidates,
    display_name,
    record_dropped_twins,
    sample_option_sets,
)
from foresci.tasks.config import TaskSettings
from foresci.tasks.domain_inputs import domain_name
from foresci.tasks.evidence import DomainEvidence, NodeEvidence
from foresci.tasks.families.round_outcome import Resolved, split_outcome
from foresci.tasks.families.strategic_planning import builder as planning
from foresci.tasks.models import Task

Identify = Callable[[Sequence[str]], str]
"""The round's task id of an option set (the decision: what the id hashes)."""


def freeze(evidence: DomainEvidence, settings: TaskSettings, wanted: int, rng: random.Random,
           identify: Identify) -> list[tuple[Task, dict[str, Any]]]:
    """Sibling sets (children of one node) and mixed sets of the domain, as the builder samples them."""
    pool = direction_candidates(evidence, settings)
    name = domain_name(evidence.domain)
    by_parent: dict[str | None, list[NodeEvidence]] = {}
    for item in pool:
        by_parent.setdefault(item.node.parent_id, []).append(item)
    size = settings.candidates_per_task
    drawn: list[tuple[list[NodeEvidence], str]] = []
    for parent_id in sorted(by_parent, key=lambda value: value or ""):
        siblings = by_parent[parent_id]
        if min(size, len(siblings)) < 3:
            continue
        scope = display_name(evidence.nodes[parent_id].node) if parent_id in evidence.nodes else name
        drawn += [(options, scope) for options in
                  sample_option_sets(siblings, min(size, len(siblings)), settings.attempts_per_task, rng)]
    drawn += [(options, name) for options in sample_option_sets(pool, size, settings.attempts_per_task, rng)]
    rng.shuffle(drawn)
    made: list[tuple[Task, dict[str, Any]]] = []
    seen: set[tuple[str, ...]] = set()
    for options, scope in drawn:
        key = tuple(item.node_id for item in options)
        if len(made) >= wanted or key in seen:
            continue
        seen.add(key)
        named = planning.name_options(evidence, options, rng)
        identifier = identify(list(key))
        task = planning.public_task(evidence, options, named, scope, name, identifier)
        made.append((task, {"options": {c.option_id: item.node_id for c, item in named}, "scope": scope}))
    return made


def resolve(task: Task, record: dict[str, Any], evidence: DomainEvidence, settings: TaskSettings) -> Resolved:
    """The option that grew most (ties split); the release's target where the builder's gates hold."""
    named = [(candidate, evidence.nodes[str(candidate.node_id)]) for candidate in task.candidates]
    options = sorted((node for _, node in named), key=lambda node: node.node_id)
    outcome = split_outcome({candidate.option_id: node.growth for candidate, node in named})
    reason = planning.void_reason(options, settings, evidence)
    if reason is not None:
        return Resolved(None, outcome, note=reason)
    target, _ = planning.planning_target(evidence, options, named, str(task.context["domain_name"]),
                                         task.task_id)
    record_dropped_twins([Built(task=task, hidden=target, decision_key=())], evidence, settings)
    return Resolved(None, outcome, target)
