"""Strategic research planning: rank a fixed set of options for a team planning the window.

Options are sibling sub-directions (children of one node, or top-level nodes of the domain), so the team's
scope is real. Planning asks what direction forecasting does not (#44): where a team new to a direction
can still get in. The hidden order is by *entry* in the window: the share of each option's window papers
none of whose authors had published in that option before the cutoff (newcomer papers; smoothed (n + 1) /
(w + 2)). A crowded direction, held by the teams already in it, ranks low however fast it grows. The top
option needs ``min_window_papers`` window papers and a lead over the runner-up of ``min_count_z`` standard
errors (two-proportion); persistence ranks by the same share in the baseline period before the cutoff
(papers none of whose authors published in the option earlier). Rationale units, milestones,
dependencies, risks and a go/no-go criterion are drawn from the window evidence (entry), the taxonomy's
edges (dependencies) and the node's bottleneck signals (risks).
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from foresci.tasks.builders.common import (
    Built,
    candidates_from,
    display_name,
    eligible_nodes,
    phrase_share,
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
from foresci.tasks.release_checks import apart, option_pool
from foresci.tasks.text import name_evidence_text

FAMILY = "strategic_planning"
WINDOW_TITLES = 40
"""Window paper titles kept per option on the hidden target (milestones are scored against them)."""


def build_planning_tasks(domain: DomainEvidence, settings: TaskSettings, domain_name: str,
                         wanted: int) -> list[Built]:
    """Candidate planning tasks: option sets of sibling nodes first, then mixed sets of the domain."""
    rng = random.Random(f"{settings.seed}:{FAMILY}:{domain.domain}:{domain.window.horizon}")
    pool = option_pool(domain, planning_candidates(domain, settings), domain_name, FAMILY,
                       eligible_nodes(domain, settings))
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
        for options in sample_option_sets(siblings, k, settings.attempts_per_task, rng, apart):
            made = _build_one(domain, options, scope, settings, domain_name, rng)
            if made is not None:
                built.append(made)
    for options in sample_option_sets(pool, size, settings.attempts_per_task * wanted, rng, apart):
        made = _build_one(domain, options, domain_name, settings, domain_name, rng)
        if made is not None:
            built.append(made)
    rng.shuffle(built)
    record_dropped_twins(built, domain, settings)
    return built


def planning_candidates(domain: DomainEvidence, settings: TaskSettings) -> list[NodeEvidence]:
    """The nodes a planning task may offer: every eligible node (enough pre-cutoff and baseline papers, a
    pre-cutoff name) not dominated by one limitation phrase (``max_phrase_share``: a bottleneck subject).

    Direction's ``min_history_share`` is not asked: it keeps late small nodes out of a *growth* target, whose
    share growth is an artifact of the node's creation. Entry counts window papers by authors new to the
    option against the option's own pre-cutoff authors, and the persistence answer reads the same share in
    the baseline period, which ``min_baseline`` already requires. With the history rule the real
    2025-09-30 pool held 3 to 16 nodes per domain (the corpus starts 2025-03-18, so most nodes are young),
    the 36 candidates had 6 distinct winners ('flow matching' 26) and 2 of the 5 kept tasks repeated a
    direction winner (#44)."""
    return [item for item in eligible_nodes(domain, settings)
            if phrase_share(item) < settings.max_phrase_share]


def _dependencies(domain: DomainEvidence, node_id: str) -> list[str]:
    names = {item.node_id: display_name(item.node) for item in domain.nodes.values()}
    return [f"builds on {names.get(edge.source, edge.source)} ({edge.relation})"
            for edge in domain.snapshot.edges if edge.target == node_id][:3]


@dataclass(frozen=True)
class Entry:
    """Newcomer papers of one option: in the window, and in the baseline period before the cutoff."""

    window: int
    newcomers: int
    baseline: int
    baseline_newcomers: int
    newcomer_ids: tuple[str, ...] = ()

    @property
    def share(self) -> float:
        """Smoothed newcomer share of the window papers: (newcomers + 1) / (window + 2)."""
        return (self.newcomers + 1) / (self.window + 2)

    @property
    def baseline_share(self) -> float:
        """The same share in the baseline period (the persistence answer's measure)."""
        return (self.baseline_newcomers + 1) / (self.baseline + 2)


_ENTRIES: dict[tuple[int, str], tuple[DomainEvidence, Entry]] = {}


def entry(domain: DomainEvidence, item: NodeEvidence) -> Entry:
    """The option's :class:`Entry`: a window (baseline) paper is a newcomer paper when none of its authors
    is an author of the option's papers announced before the window (before the baseline period)."""
    remembered = _ENTRIES.get((id(domain), item.node_id))
    if remembered is not None and remembered[0] is domain:
        return remembered[1]
    papers = domain.papers
    window = domain.window
    pre = [papers[paper_id] for paper_id in item.pre_ids if paper_id in papers]
    earlier = {author for paper in pre if paper.announced < window.baseline_start for author in paper.authors}
    known = earlier | {author for paper in pre for author in paper.authors}
    recent = [paper for paper in pre if paper.announced >= window.baseline_start]
    after = [papers[paper_id] for paper_id in item.window_ids if paper_id in papers]
    newcomers = tuple(paper.paper_id for paper in after if not set(paper.authors) & known)
    found = Entry(window=len(after), newcomers=len(newcomers),
                  baseline=len(recent), baseline_newcomers=sum(not set(paper.authors) & earlier
                                                               for paper in recent),
                  newcomer_ids=newcomers)
    if len(_ENTRIES) >= 4096:
        _ENTRIES.clear()
    _ENTRIES[(id(domain), item.node_id)] = (domain, found)
    return found


def entry_order(domain: DomainEvidence, options: Sequence[NodeEvidence],
                baseline: bool = False) -> list[NodeEvidence]:
    """Options by newcomer share, highest first (``baseline``: the pre-cutoff share), ties by node id."""
    def share(item: NodeEvidence) -> float:
        found = entry(domain, item)
        return found.baseline_share if baseline else found.share
    return sorted(options, key=lambda item: (-share(item), item.node_id))


def entry_z(first: Entry, second: Entry) -> float:
    """Two-proportion z of two options' newcomer shares (pooled)."""
    pooled = (first.newcomers + second.newcomers + 2) / (first.window + second.window + 4)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / (first.window + 2) + 1 / (second.window + 2)))
    return (first.share - second.share) / spread if spread > 0 else 0.0


def void_reason(options: Sequence[NodeEvidence], settings: TaskSettings,
                domain: DomainEvidence) -> str | None:
    """Why the window leaves an option set without a priority (None: it has one): the top option's window
    papers under ``min_window_papers`` or its entry lead within ``min_count_z`` standard errors. The
    builder drops such sets; a round that froze one prospectively resolves it as void."""
    ranked = entry_order(domain, options)
    top, second = entry(domain, ranked[0]), entry(domain, ranked[1])
    if top.window < settings.min_window_papers:
        return f"top option has {top.window} window papers < min_window_papers {settings.min_window_papers}"
    if (z := entry_z(top, second)) < settings.min_count_z:
        return f"entry lead {z:.2f} < min_count_z {settings.min_count_z} standard errors"
    return None


SIZE = re.compile(r"(?:^|(?<=; ))\d+ papers; ")
"""The "N papers; " of a node description ("N papers; most central: ...")."""


def sizeless(description: str) -> str:
    """A node description without its paper count: a planning task states no option's size (issue 43:
    the key is newcomers' entry, where small options lead, so a stated size let "pick the smallest" beat
    trend without reading the KB; an agent retrieves sizes with its tools)."""
    return SIZE.sub("", description)


def name_options(domain: DomainEvidence, options: Sequence[NodeEvidence],
                 rng: random.Random) -> list[tuple[Candidate, NodeEvidence]]:
    """The options shuffled and named A, B, C..., each described by where its name comes from (pre-cutoff
    papers, uncounted) and its node description without its size (:func:`sizeless`)."""
    return [(candidate.model_copy(update={"description": "; ".join(filter(None, [
        name_evidence_text(item.node, domain.papers, domain.cutoff, counted=False),
        sizeless(candidate.description)]))}), item)
        for candidate, item in candidates_from(options, rng)]


def option_context(item: NodeEvidence) -> dict[str, Any]:
    """What a planning task states about an option: its key terms, not its size (:func:`sizeless`; the
    hidden target keeps ``pre_total``)."""
    return {"key_terms": list(item.node.key_terms[:8])}


def _build_one(domain: DomainEvidence, options: Sequence[NodeEvidence], scope: str, settings: TaskSettings,
               domain_name: str, rng: random.Random) -> Built | None:
    if void_reason(options, settings, domain) is not None:
        return None
    window = domain.window
    named = name_options(domain, options, rng)
    top = entry_order(domain, options)[0]
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
                         "options": {option_of[item.node_id]: option_context(item) for item in options}},
                deliverable=list(get_family(FAMILY).deliverables))


def planning_target(domain: DomainEvidence, options: Sequence[NodeEvidence],
                    named: Sequence[tuple[Candidate, NodeEvidence]], domain_name: str,
                    identifier: str) -> tuple[PlanningTarget, bool]:
    """The hidden target of a decisive option set (:func:`void_reason` None) and whether persistence (the
    most pre-cutoff papers) picks its top option."""
    window = domain.window
    ranked = entry_order(domain, options)
    top = ranked[0]
    option_of = {item.node_id: candidate.option_id for candidate, item in named}
    name_of = {item.node_id: candidate.name for candidate, item in named}
    persistence = entry_order(domain, options, baseline=True)
    entries = {item.node_id: entry(domain, item) for item in options}
    risks = [signal.text for signal in top.node.signals if signal.kind == "bottleneck"][:3]
    dependencies = _dependencies(domain, top.node_id)
    rationale = [f"{name_of[item.node_id]}: {entries[item.node_id].newcomers} of its "
                 f"{entries[item.node_id].window} window papers by authors new to it (before the cutoff "
                 f"{entries[item.node_id].baseline_newcomers} of {entries[item.node_id].baseline})"
                 for item in ranked]
    milestones = [f"a first result in {name_of[top.node_id]} within {window.months // 2 or 1} month(s)",
                  f"a comparison against the strongest pre-cutoff work in {name_of[top.node_id]} by "
                  f"{window.end.isoformat()}"]
    go_no_go = (f"continue if newcomers keep publishing in {name_of[top.node_id]} (they wrote "
                f"{entries[top.node_id].share:.0%} of its window papers); stop if its papers come back to "
                "the teams already in it")
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
        evidence_ids=list(entries[top.node_id].newcomer_ids[:20]),
        stats={"normalised_by": domain.normalised_by, "milestones": milestones, "dependencies": dependencies,
               "risks": risks, "go_no_go": go_no_go,
               "target": "newcomer share of the window papers",
               "options": {option_of[item.node_id]: {"pre_total": item.pre_total, "window": item.window,
                                                     "newcomers": entries[item.node_id].newcomers,
                                                     "newcomer_share": round(entries[item.node_id].share, 4),
                                                     "baseline_newcomer_share":
                                                         round(entries[item.node_id].baseline_share, 4),
                                                     "log_share_growth": round(item.growth, 4)}
                           for item in options},
               "window_titles": {option_of[item.node_id]: [domain.papers[paper].title
                                                            for paper in item.window_ids[:WINDOW_TITLES]
                                                            if paper in domain.papers]
                                 for item in options},
               "persistence_answer": [option_of[item.node_id] for item in persistence],
               "persistence_match": persistence[0] is top,
               "node_ids": {option_of[item.node_id]: item.node_id for item in options}})
    return hidden, persistence[0] is top
