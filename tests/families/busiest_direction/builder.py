"""The toy family's tasks: consecutive triples of eligible directions, ranked by their window papers."""

from __future__ import annotations

import random

from busiest_direction import NAME, QUESTION, TITLE, BusiestDirection
from busiest_direction.target import BusiestTarget

from foresci.tasks.builders.common import Built, candidates_from, eligible_nodes, task_id
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence
from foresci.tasks.hidden import Claim, Slot
from foresci.tasks.models import Task


def build_busiest_tasks(domain: DomainEvidence, settings: TaskSettings, domain_name: str,
                        wanted: int) -> list[Built]:
    """Up to ``2 * wanted`` tasks of three options each whose busiest option is not tied."""
    rng = random.Random(f"{settings.seed}:{NAME}:{domain.domain}:{domain.window.horizon}")
    pool = eligible_nodes(domain, settings)
    window = domain.window
    built: list[Built] = []
    for start in range(max(len(pool) - 2, 0)):
        options = pool[start:start + 3]
        ranked = sorted(options, key=lambda item: (-item.window, item.node_id))
        if ranked[0].window == ranked[1].window:
            continue
        named = candidates_from(options, rng)
        option_of = {item.node_id: candidate.option_id for candidate, item in named}
        name_of = {item.node_id: candidate.name for candidate, item in named}
        key = tuple(sorted(item.node_id for item in options))
        identifier = task_id(NAME, domain.domain, window.horizon, key, window.cutoff.isoformat())
        task = Task(task_id=identifier, family=NAME, domain=domain.domain, cutoff=window.cutoff,
                    horizon=window.horizon, window_start=window.start, window_end=window.end,
                    title=TITLE.format(domain=domain_name), question=QUESTION,
                    candidates=[candidate for candidate, _ in named], context={"domain_name": domain_name},
                    deliverable=list(BusiestDirection.deliverables))
        top = ranked[0]
        hidden = BusiestTarget(
            task_id=identifier, ranking=[option_of[item.node_id] for item in ranked],
            slots=[Slot(name="busiest", variants=[name_of[top.node_id]])],
            claims=[Claim(claim_id="c1", text=f"{name_of[top.node_id]} gets the most papers in the window.")],
            evidence_ids=top.window_ids[:20],
            stats={"window_papers": {option_of[item.node_id]: item.window for item in options}})
        built.append(Built(task=task, hidden=hidden, decision_key=key))
        if len(built) >= 2 * wanted:
            break
    return built
