"""Strategic research planning: rank a fixed set of options for a team planning the window.

Options are sibling sub-directions (children of one node, or top-level nodes of the domain), so the team's
scope is real. The hidden order is by share growth in the window, and the top option must gain share (a
set where every option loses ground has no priority to find); persistence would rank by pre-cutoff
volume. Rationale units, milestones, dependencies, risks and a go/no-go criterion are drawn from the
window evidence (growth), the taxonomy's edges (dependencies) and the node's bottleneck signals (risks).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from foresci.tasks.builders.common import (
    Built,
    candidates_from,
    direction_candidates,
    display_name,
    pre_cutoff_context,
    record_dropped_twins,
    sample_option_sets,
    task_id,
)
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence, NodeEvidence
from foresci.tasks.families.base import get_family
from foresci.tasks.families.strategic_planning.family import planning_question
from foresci.tasks.families.strategic_planning.target import PlanningTarget
from foresci.tasks.hidden import Claim, Slot
from foresci.tasks.models import Candidate, Task
from foresci.tasks.text import name_evidence_text

FAMILY = "strategic_planning"


def build_planning_tasks(domain: DomainEvidence, settings: TaskSettings, domain_name: str,
                         wanted: int) -> list[Built]:
    """Candidate planning tasks: option sets of sibling nodes first, then mixed sets of the domain."""
    rng = random.Random(f"{settings.seed}:{FAMILY}:{domain.domain}:{domain.window.horizon}")
    pool = direction_candidates(domain, settings)
    by_parent: dict[str | None, list[NodeEvidence]] = {}
    for item in pool:
        by_parent.setdefault(item.node.parent_id, []).append(item)
    size = settings.candidates_per_task
    built: list[Built] = []
    for parent_id in sorted(by_parent, key=lambda value: value or ""):
        siblings = by_parent[parent_id]
        k = min(size, len(siblings))
        if k < 3:
            continue
        scope = (display_name(domain.nodes[parent_id].node) if parent_id in domain.nodes else domain_name)
        for options in sample_option_sets(siblings, k, settings.attempts_per_task, rng):
            made = _build_one(domain, options, scope, settings, domain_name, rng)
            if made is not None:
                built.append(made)
    for options in sample_option_sets(pool, size, settings.attempts_per_task * wanted, rng):
        made = _build_one(domain, options, domain_name, settings, domain_name, rng)
        if made is not None:
            built.append(made)
    rng.shuffle(built)
    record_dropped_twins(built, domain, settings)
    return built


def _dependencies(domain: DomainEvidence, node_id: str) -> list[str]:
    names = {item.node_id: display_name(item.node) for item in domain.nodes.values()}
    return [f"builds on {names.get(edge.source, edge.source)} ({edge.relation})"
            for edge in domain.snapshot.edges if edge.target == node_id][:3]


def void_reason(options: Sequence[NodeEvidence], settings: TaskSettings) -> str | None:
    """Why the window leaves an option set without a priority (None: it has one): the top option's margin
    or window papers below the thresholds, or no option gaining share. The builder drops such sets; a
    round that froze one prospectively resolves it as void."""
    ranked = sorted(options, key=lambda item: (-item.growth, item.node_id))
    top = ranked[0]
    if top.growth - ranked[1].growth < settings.min_margin:
        return f"margin {top.growth - ranked[1].growth:.4f} < min_margin {settings.min_margin}"
    if top.window < settings.min_window_papers:
        return f"top option has {top.window} window papers < min_window_papers {settings.min_window_papers}"
    if top.growth <= 0:
        return "no option gains share"
    return None


def name_options(domain: DomainEvidence, options: Sequence[NodeEvidence],
                 rng: random.Random) -> list[tuple[Candidate, NodeEvidence]]:
    """The options shuffled and named A, B, C..., each described by where its name comes from (pre-cutoff
    papers) and its node description."""
    return [(candidate.model_copy(update={"description": "; ".join(filter(None, [
        name_evidence_text(item.node, domain.papers, domain.cutoff), candidate.description]))}), item)
        for candidate, item in candidates_from(options, rng)]


def _build_one(domain: DomainEvidence, options: Sequence[NodeEvidence], scope: str, settings: TaskSettings,
               domain_name: str, rng: random.Random) -> Built | None:
    if void_reason(options, settings) is not None:
        return None
    window = domain.window
    named = name_options(domain, options, rng)
    top = sorted(options, key=lambda item: (-item.growth, item.node_id))[0]
    key = (f"{window.horizon}:{top.node_id}", *sorted(item.node_id for item in options if item is not top))
    identifier = task_id(FAMILY, domain.domain, window.horizon, key, window.cutoff.isoformat())
    task = public_task(domain, options, named, scope, domain_name, identifier)
    hidden, persistence_match = planning_target(domain, options, named, domain_name, identifier)
    return Built(task=task, hidden=hidden, decision_key=key, persistence_match=persistence_match)


def public_task(domain: DomainEvidence, options: Sequence[NodeEvidence],
                named: Sequence[tuple[Candidate, NodeEvidence]], scope: str, domain_name: str,
                identifier: str) -> Task:
    """The public task over ``options`` named as ``named`` (pre-cutoff facts only)."""
    window = domain.window
    option_of = {item.node_id: candidate.option_id for candidate, item in named}
    title, question = planning_question(domain_name, scope, window.cutoff, window.start, window.end)
    return Task(task_id=identifier, family=FAMILY, domain=domain.domain, cutoff=window.cutoff,
                horizon=window.horizon, window_start=window.start, window_end=window.end, title=title,
                question=question, candidates=[candidate for candidate, _ in named],
                context={"domain_name": domain_name, "scope": scope,
                         "options": {option_of[item.node_id]: pre_cutoff_context(item) for item in options}},
                deliverable=list(get_family(FAMILY).deliverables))


def planning_target(domain: DomainEvidence, options: Sequence[NodeEvidence],
                    named: Sequence[tuple[Candidate, NodeEvidence]], domain_name: str,
                    identifier: str) -> tuple[PlanningTarget, bool]:
    """The hidden target of a decisive option set (:func:`void_reason` None) and whether persistence (the
    most pre-cutoff papers) picks its top option."""
    window = domain.window
    ranked = sorted(options, key=lambda item: (-item.growth, item.node_id))
    top = ranked[0]
    option_of = {item.node_id: candidate.option_id for candidate, item in named}
    name_of = {item.node_id: candidate.name for candidate, item in named}
    persistence = sorted(options, key=lambda item: (-item.pre_total, item.node_id))
    risks = [signal.text for signal in top.node.signals if signal.kind == "bottleneck"][:3]
    dependencies = _dependencies(domain, top.node_id)
    rationale = [f"{name_of[item.node_id]}: share of new {domain_name} papers {item.level_share:.1%} -> "
                 f"{item.window_share:.1%}" for item in ranked]
    milestones = [f"a first result in {name_of[top.node_id]} within {window.months // 2 or 1} month(s)",
                  f"a comparison against the strongest pre-cutoff work in {name_of[top.node_id]} by "
                  f"{window.end.isoformat()}"]
    go_no_go = (f"continue if {name_of[top.node_id]} keeps growing its share of the domain "
                f"(it reached {top.window_share:.1%}); stop if it falls back under {top.level_share:.1%}")
    ranking = [option_of[item.node_id] for item in ranked]
    slots = [Slot(name="top_priority", variants=[name_of[top.node_id], f"option {option_of[top.node_id]}"])]
    if risks:
        slots.append(Slot(name="risks", variants=risks))
    claims = [Claim(claim_id="c1", text=f"{name_of[top.node_id]} is the top priority for the window.")]
    claims += [Claim(claim_id=f"c{index}", text=f"{name_of[first.node_id]} should rank above "
                                                 f"{name_of[second.node_id]}.")
               for index, (first, second) in enumerate(zip(ranked, ranked[1:], strict=False), start=2)]
    hidden = PlanningTarget(
        task_id=identifier, family=FAMILY, ranking=ranking, rationale=rationale, slots=slots, claims=claims,
        evidence_ids=top.window_ids[:20],
        stats={"normalised_by": domain.normalised_by, "milestones": milestones, "dependencies": dependencies,
               "risks": risks, "go_no_go": go_no_go,
               "options": {option_of[item.node_id]: {"pre_total": item.pre_total, "window": item.window,
                                                     "log_share_growth": round(item.growth, 4)}
                           for item in options},
               "persistence_answer": [option_of[item.node_id] for item in persistence],
               "persistence_match": persistence[0] is top,
               "node_ids": {option_of[item.node_id]: item.node_id for item in options}})
    return hidden, persistence[0] is top
