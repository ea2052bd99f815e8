"""venue_positioning's round hooks (:attr:`TaskFamily.round_tasks`): eligible nodes with pre-cutoff venue
papers, the five venue families as options (shuffled) at open; at tick the venue family that led the
node's window papers, with the release's target where the builder's gates hold."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from foresci.kb.models import VENUE_FAMILIES
from foresci.tasks.builders.common import eligible_nodes
from foresci.tasks.config import TaskSettings
from foresci.tasks.domain_inputs import domain_name
from foresci.tasks.evidence import DomainEvidence
from foresci.tasks.families.round_outcome import Resolved, split_outcome
from foresci.tasks.families.venue_positioning import builder as venue
from foresci.tasks.models import Task

Identify = Callable[[Sequence[str]], str]
"""The round's task id of an option set (the decision: what the id hashes)."""


def freeze(evidence: DomainEvidence, settings: TaskSettings, wanted: int, rng: random.Random,
           identify: Identify) -> list[tuple[Task, dict[str, Any]]]:
    """Eligible nodes with pre-cutoff venue papers; the five venue families as options (shuffled)."""
    nodes = [item for item in eligible_nodes(evidence, settings) if item.pre_venues]
    rng.shuffle(nodes)
    name = domain_name(evidence.domain)
    made: list[tuple[Task, dict[str, Any]]] = []
    for item in nodes[:wanted]:
        families = list(VENUE_FAMILIES)
        rng.shuffle(families)
        identifier = identify([item.node_id])
        task = venue.public_task(evidence, item, families, name, identifier)
        made.append((task, {"node_id": item.node_id,
                            "options": {c.name: c.option_id for c in task.candidates}}))
    return made


def resolve(task: Task, record: dict[str, Any], evidence: DomainEvidence, settings: TaskSettings) -> Resolved:
    """The venue family that led the node's window papers (ties split); the target where the gates hold."""
    node = evidence.nodes[record["node_id"]]
    outcome = split_outcome({option: float(node.window_venues.get(name, 0))
                             for name, option in dict(record["options"]).items()})
    reason = venue.void_reason(node, settings)
    if reason is not None:
        return Resolved(None, outcome, note=reason)
    prior = venue.domain_window_venues(evidence)
    venue_hidden, _ = venue.venue_target(evidence, node, dict(record["options"]), prior, task.task_id)
    return Resolved(None, outcome, venue_hidden)
