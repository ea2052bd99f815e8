"""The toy family's round hooks (``round_tasks``): at open, triples of eligible directions from pre-cutoff
facts only; at tick, the option with the most window papers (ties split), decisive when not tied."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from busiest_direction import NAME, QUESTION, TITLE, BusiestDirection
from busiest_direction.target import BusiestTarget

from foresci.tasks.builders.common import candidates_from, eligible_nodes
from foresci.tasks.config import TaskSettings
from foresci.tasks.domain_inputs import domain_name
from foresci.tasks.evidence import DomainEvidence
from foresci.tasks.families.round_outcome import Resolved, split_outcome
from foresci.tasks.models import Task


def freeze(evidence: DomainEvidence, settings: TaskSettings, wanted: int, rng: random.Random,
           identify: Callable[[Sequence[str]], str]) -> list[tuple[Task, dict[str, Any]]]:
    """Up to ``wanted`` tasks of three eligible directions each (their pre-cutoff facts only)."""
    pool = eligible_nodes(evidence, settings)
    window, name = evidence.window, domain_name(evidence.domain)
    made: list[tuple[Task, dict[str, Any]]] = []
    for start in range(0, max(len(pool) - 2, 0), 3):
        if len(made) >= wanted:
            break
        options = pool[start:start + 3]
        named = candidates_from(options, rng)
        identifier = identify(sorted(item.node_id for item in options))
        task = Task(task_id=identifier, family=NAME, domain=evidence.domain, cutoff=window.cutoff,
                    horizon=window.horizon, window_start=window.start, window_end=window.end,
                    title=TITLE.format(domain=name), question=QUESTION,
                    candidates=[candidate for candidate, _ in named], context={"domain_name": name},
                    deliverable=list(BusiestDirection.deliverables))
        made.append((task, {"options": {candidate.option_id: item.node_id for candidate, item in named}}))
    return made


def resolve(task: Task, record: dict[str, Any], evidence: DomainEvidence, settings: TaskSettings) -> Resolved:
    """The busiest option in the window; decisive (a hidden order) when the top is not tied."""
    papers = {option: float(evidence.nodes[node].window) for option, node in record["options"].items()}
    outcome = split_outcome(papers)
    if len(outcome) > 1:
        return Resolved(None, outcome, note="tied at the top")
    ranking = sorted(papers, key=lambda option: (-papers[option], option))
    return Resolved(None, outcome, BusiestTarget(task_id=task.task_id, ranking=ranking))
