"""Venue-conditioned positioning: rank the five venue families for a contribution in a sub-direction.

The hidden order comes from the venue families of the node's papers accepted during the venue cycle after
the cutoff (venue read from the arXiv comment), smoothed towards the domain's own venue mix in that cycle;
persistence would rank by the node's venue mix before the cutoff.
"""

from __future__ import annotations

import random
from collections import Counter

from foresci.kb.models import VENUE_FAMILIES
from foresci.tasks.builders.common import (
    OPTION_IDS,
    Built,
    display_name,
    eligible_nodes,
    node_description,
    task_id,
)
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence, NodeEvidence
from foresci.tasks.hidden import Claim, HiddenTarget, Slot
from foresci.tasks.models import Candidate, Task
from foresci.tasks.templates import DELIVERABLES, venue_question

FAMILY = "venue_positioning"
PRIOR_WEIGHT = 1.0


def domain_window_venues(domain: DomainEvidence) -> Counter[str]:
    """Venue families of all the domain's window papers that route to a node."""
    return Counter(paper.venue_family for paper_id, paper in domain.papers.items()
                   if paper.venue_family and paper_id in domain.assignment
                   and domain.window.contains(paper.announced))


def venue_order(counts: Counter[str], prior: Counter[str]) -> list[str]:
    """Venue families by smoothed share: (count + w * prior share) / (total + w), ties by prior then name."""
    total, prior_total = sum(counts.values()), sum(prior.values()) or 1
    def score(family: str) -> tuple[float, float, str]:
        prior_share = prior[family] / prior_total
        return (-(counts[family] + PRIOR_WEIGHT * prior_share) / (total + PRIOR_WEIGHT), -prior_share,
                family)
    return sorted(VENUE_FAMILIES, key=score)


def build_venue_tasks(domain: DomainEvidence, settings: TaskSettings, domain_name: str,
                      wanted: int) -> list[Built]:
    """Candidate venue tasks, one per eligible node with enough venue-tagged papers in the cycle."""
    rng = random.Random(f"{settings.seed}:{FAMILY}:{domain.domain}:{domain.window.horizon}")
    prior = domain_window_venues(domain)
    built: list[Built] = []
    for evidence in eligible_nodes(domain, settings):
        if sum(evidence.window_venues.values()) < settings.min_venue_papers or not evidence.pre_venues:
            continue
        built.append(_build_one(domain, evidence, prior, domain_name, rng))
    rng.shuffle(built)
    return built


def _build_one(domain: DomainEvidence, evidence: NodeEvidence, prior: Counter[str], domain_name: str,
               rng: random.Random) -> Built:
    window = domain.window
    families = list(VENUE_FAMILIES)
    rng.shuffle(families)
    option_of = {family: OPTION_IDS[index] for index, family in enumerate(families)}
    hidden_order = venue_order(evidence.window_venues, prior)
    persistence_order = venue_order(evidence.pre_venues, prior)
    name = display_name(evidence.node)
    key = (f"{window.horizon}:{hidden_order[0]}", name.lower())
    identifier = task_id(FAMILY, domain.domain, window.horizon, key, window.cutoff.isoformat())
    title, question = venue_question(domain_name, name, window.cutoff, window.start, window.end)
    task = Task(task_id=identifier, family=FAMILY, domain=domain.domain, cutoff=window.cutoff,
                horizon=window.horizon, window_start=window.start, window_end=window.end, title=title,
                question=question,
                candidates=[Candidate(option_id=option_of[family], name=family) for family in families],
                context={"domain_name": domain_name, "contribution": name,
                         "description": node_description(evidence.node),
                         "key_terms": list(evidence.node.key_terms[:8]),
                         "pre_cutoff_papers": evidence.pre_total,
                         "pre_cutoff_venue_papers": dict(sorted(evidence.pre_venues.items()))},
                deliverable=list(DELIVERABLES[FAMILY]))
    top = hidden_order[0]
    ranking = [option_of[family] for family in hidden_order]
    hidden = HiddenTarget(
        task_id=identifier, family=FAMILY, ranking=ranking,
        rationale=[f"{family}: {evidence.window_venues[family]} of the sub-direction's venue-tagged papers "
                   f"in "
                   "the cycle" for family in hidden_order],
        slots=[Slot(name="top_venue_family", variants=[top, f"option {option_of[top]}"])],
        claims=[Claim(claim_id="c1", text=f"{top} is the best-fit venue family for work on {name}."),
                Claim(claim_id="c2", text=f"{hidden_order[0]} fits better than {hidden_order[-1]}.")],
        evidence_ids=[paper_id for paper_id in evidence.window_ids
                      if domain.papers[paper_id].venue_family][:20],
        stats={"node_id": evidence.node_id, "window_venues": dict(evidence.window_venues),
               "pre_venues": dict(evidence.pre_venues), "domain_window_venues": dict(prior),
               "persistence_answer": [option_of[family] for family in persistence_order],
               "persistence_match": persistence_order[0] == top, "options": option_of})
    return Built(task=task, hidden=hidden, decision_key=key, persistence_match=persistence_order[0] == top)
