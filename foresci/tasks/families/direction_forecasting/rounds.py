"""direction_forecasting's round hooks (:attr:`TaskFamily.round_tasks`): option sets drawn from the pool the
builder samples (real directions, unrelated options) at open, resolved at tick by the builder's gates and
target code on the window's evidence."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from foresci.tasks.builders.common import (
    Built,
    candidates_from,
    direction_candidates,
    record_dropped_twins,
    sample_option_sets,
)
from foresci.tasks.config import TaskSettings
from foresci.tasks.domain_inputs import domain_name
from foresci.tasks.evidence import DomainEvidence
from foresci.tasks.families.direction_forecasting import builder as direction
from foresci.tasks.families.round_outcome import Resolved, split_outcome
from foresci.tasks.models import Task

Identify = Callable[[Sequence[str]], str]
"""The round's task id of an option set (the decision: what the id hashes)."""


def freeze(evidence: DomainEvidence, settings: TaskSettings, wanted: int, rng: random.Random,
           identify: Identify) -> list[tuple[Task, dict[str, Any]]]:
    """Up to ``wanted`` tasks of the domain's window: (public task, record of its options' nodes)."""
    pool = direction_candidates(evidence, settings)
    name = domain_name(evidence.domain)
    made: list[tuple[Task, dict[str, Any]]] = []
    for options in sample_option_sets(pool, settings.candidates_per_task, settings.attempts_per_task, rng):
        if len(made) >= wanted:
            break
        named = candidates_from(options, rng)
        identifier = identify([item.node_id for item in options])
        task = direction.public_task(evidence, options, named, name, identifier)
        made.append((task, {"options": {c.option_id: item.node_id for c, item in named}}))
    return made


def resolve(task: Task, record: dict[str, Any], evidence: DomainEvidence, settings: TaskSettings) -> Resolved:
    """The option that grew most (ties split); the release's target where the builder's gates hold."""
    named = [(candidate, evidence.nodes[str(candidate.node_id)]) for candidate in task.candidates]
    options = sorted((node for _, node in named), key=lambda node: node.node_id)
    outcome = split_outcome({candidate.option_id: node.growth for candidate, node in named})
    reason = direction.void_reason(options, settings)
    if reason is not None:
        return Resolved(None, outcome, note=reason)
    target, _, _ = direction.direction_target(evidence, options, named, settings, task.task_id)
    record_dropped_twins([Built(task=task, hidden=target, decision_key=())], evidence, settings)
    return Resolved(None, outcome, target)
