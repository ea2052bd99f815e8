"""Venue-conditioned positioning: rank the five venue families for a contribution in a sub-direction.

The input is a project, not a node label (#44): a contribution type and what the node's papers do, read
from its pre-cutoff papers (:mod:`.project`), stated in the question and in ``context.project``.

The hidden order measures fit, not the calendar (#44): each venue family's share of the node's papers
accepted during the venue cycle after the cutoff (venue read from the arXiv comment) over its share of
the rest of the domain's accepted papers in the same cycle (the lift, :func:`venue_fit`; the node's
counts are smoothed with ``PSEUDO`` papers of the domain's mix, the domain's with one paper per family).
A calendar that brings CVPR acceptances in spring lifts the domain and the node alike and cancels; the
family where this kind of work is over-represented ranks first. A node whose top family's count does not
exceed its expected count (node total x the domain's share) by ``min_count_z`` Poisson standard errors,
or holds fewer than ``min_window_papers`` papers, gets no task. Persistence ranks the node's pre-cutoff
venue mix against the domain's pre-cutoff mix the same way.

Only acceptances count, for targets and for evidence (``foresci.kb.venue_status``: submissions,
workshops and "under review" are not venues). Tie rule: a node whose two most frequent accepted venue
families in the cycle have the same count gets no task (the smoothing would decide its top family from
the domain's mix, not from the node's own papers).
"""

from __future__ import annotations

import math
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
from foresci.tasks.families.base import get_family
from foresci.tasks.families.venue_positioning.family import venue_question
from foresci.tasks.families.venue_positioning.project import project_description
from foresci.tasks.families.venue_positioning.target import VenueTarget
from foresci.tasks.hidden import Claim, Slot
from foresci.tasks.models import Candidate, Task
from foresci.tasks.release_checks import record_refusals, record_relabels, renamed_pool
from foresci.taxonomy.venues import accepted_venue_family

FAMILY = "venue_positioning"
PSEUDO = 3.0


def domain_window_venues(domain: DomainEvidence) -> Counter[str]:
    """Venue families of all the domain's window papers that route to a node."""
    families = ((paper_id, paper, accepted_venue_family(paper)) for paper_id, paper in domain.papers.items())
    return Counter(family for paper_id, paper, family in families
                   if family and paper_id in domain.assignment and domain.window.contains(paper.announced))


def venue_fit(counts: Counter[str], prior: Counter[str]) -> dict[str, dict[str, float]]:
    """Per venue family: the share of the rest of the domain (``prior`` less the node's own ``counts``,
    one pseudo paper per family), the node's expected count at that share, its lift ((count + PSEUDO x
    share) / (total + PSEUDO) / share) and its excess over the expected count in Poisson standard errors
    (z)."""
    rest = Counter({family: max(0, prior[family] - counts[family]) for family in VENUE_FAMILIES})
    total, prior_total = sum(counts.values()), sum(rest.values()) + len(VENUE_FAMILIES)
    fit: dict[str, dict[str, float]] = {}
    for family in VENUE_FAMILIES:
        share = (rest[family] + 1) / prior_total
        expected = total * share
        fit[family] = {"domain_share": round(share, 4), "expected": round(expected, 3),
                       "lift": round((counts[family] + PSEUDO * share) / (total + PSEUDO) / share, 4),
                       "z": round((counts[family] - expected) / math.sqrt(expected), 3) if expected else 0.0}
    return fit


def venue_order(counts: Counter[str], prior: Counter[str]) -> list[str]:
    """Venue families by fit (:func:`venue_fit` lift, highest first), ties by the domain's share then
    name."""
    fit = venue_fit(counts, prior)
    return sorted(VENUE_FAMILIES, key=lambda family: (-fit[family]["lift"], -fit[family]["domain_share"],
                                                      family))


def domain_pre_venues(domain: DomainEvidence) -> Counter[str]:
    """Venue families of the domain's routed papers accepted up to the cutoff (as known then)."""
    return Counter(family for paper_id, paper in domain.papers.items()
                   if paper_id in domain.assignment and paper.announced <= domain.cutoff
                   and (family := accepted_venue_family(paper)))


def fit_void_reason(evidence: NodeEvidence, prior: Counter[str], settings: TaskSettings) -> str | None:
    """Why the node's best-fit family is not above noise (None: it is): its count under
    ``min_window_papers`` or its excess over the domain mix under ``min_count_z`` standard errors."""
    top = venue_order(evidence.window_venues, prior)[0]
    count, z = evidence.window_venues[top], venue_fit(evidence.window_venues, prior)[top]["z"]
    if count < settings.min_window_papers:
        return f"best-fit family {top} holds {count} papers < min_window_papers {settings.min_window_papers}"
    if z < settings.min_count_z:
        return f"best-fit family {top} exceeds the domain mix by {z:.2f} < min_count_z {settings.min_count_z}"
    return None


def top_is_tied(counts: Counter[str]) -> bool:
    """True when the two most frequent venue families have the same count (the tie rule drops the task)."""
    top = counts.most_common(2)
    return len(top) == 2 and top[0][1] == top[1][1]


def void_reason(evidence: NodeEvidence, settings: TaskSettings) -> str | None:
    """Why the cycle leaves a node without a best-fit venue family (None: it has one): fewer venue-tagged
    papers than ``min_venue_papers``, or its two most frequent families tied. The builder skips such
    nodes; a round that froze one prospectively resolves it as void."""
    tagged = sum(evidence.window_venues.values())
    if tagged < settings.min_venue_papers:
        return f"{tagged} venue-tagged papers in the cycle < min_venue_papers {settings.min_venue_papers}"
    if top_is_tied(evidence.window_venues):
        return "the two most frequent venue families are tied"
    return None


def build_venue_tasks(domain: DomainEvidence, settings: TaskSettings, domain_name: str,
                      wanted: int) -> list[Built]:
    """Candidate venue tasks, one per eligible node with enough venue-tagged papers in the cycle."""
    rng = random.Random(f"{settings.seed}:{FAMILY}:{domain.domain}:{domain.window.horizon}")
    prior = domain_window_venues(domain)
    built: list[Built] = []
    refused: list[str] = []
    eligible = eligible_nodes(domain, settings)
    for evidence in renamed_pool(domain, eligible, domain_name, eligible):
        if not evidence.pre_venues or void_reason(evidence, settings) is not None:
            continue
        if (reason := fit_void_reason(evidence, prior, settings)) is not None:
            refused.append(f"check:thin_target: {domain.domain} venue {display_name(evidence.node)}: "
                           f"{reason}")
            continue
        built.append(_build_one(domain, evidence, prior, domain_name, rng))
    record_refusals(domain.domain, domain.window.horizon, refused)
    rng.shuffle(built)
    return built


def _build_one(domain: DomainEvidence, evidence: NodeEvidence, prior: Counter[str], domain_name: str,
               rng: random.Random) -> Built:
    window = domain.window
    families = list(VENUE_FAMILIES)
    rng.shuffle(families)
    option_of = {family: OPTION_IDS[index] for index, family in enumerate(families)}
    hidden_order = venue_order(evidence.window_venues, prior)
    name = display_name(evidence.node)
    key = (f"{window.horizon}:{hidden_order[0]}", name.lower())
    identifier = task_id(FAMILY, domain.domain, window.horizon, key, window.cutoff.isoformat())
    task = public_task(domain, evidence, families, domain_name, identifier)
    hidden, persistence_match = venue_target(domain, evidence, option_of, prior, identifier)
    record_relabels(task, hidden, domain)
    return Built(task=task, hidden=hidden, decision_key=key, persistence_match=persistence_match)


def public_task(domain: DomainEvidence, evidence: NodeEvidence, families: list[str], domain_name: str,
                identifier: str) -> Task:
    """The public task about ``evidence``'s node with the venue families as options in ``families``'
    order (pre-cutoff facts only)."""
    window = domain.window
    option_of = {family: OPTION_IDS[index] for index, family in enumerate(families)}
    name = display_name(evidence.node)
    project = project_description(evidence, domain.papers, window.cutoff, name)
    title, question = venue_question(domain_name, name, window.cutoff, window.start, window.end,
                                     project["text"])
    return Task(task_id=identifier, family=FAMILY, domain=domain.domain, cutoff=window.cutoff,
                horizon=window.horizon, window_start=window.start, window_end=window.end, title=title,
                question=question,
                candidates=[Candidate(option_id=option_of[family], name=family) for family in families],
                context={"domain_name": domain_name, "contribution": name,
                         "project": {"type": project["kind"], "description": project["text"],
                                     "pre_cutoff_examples": project["examples"]},
                         "description": node_description(evidence.node),
                         "key_terms": list(evidence.node.key_terms[:8]),
                         "pre_cutoff_papers": evidence.pre_total,
                         "pre_cutoff_venue_papers": dict(sorted(evidence.pre_venues.items()))},
                deliverable=list(get_family(FAMILY).deliverables))


def venue_target(domain: DomainEvidence, evidence: NodeEvidence, option_of: dict[str, str],
                 prior: Counter[str], identifier: str) -> tuple[VenueTarget, bool]:
    """The hidden target of a node with a best-fit family (:func:`void_reason` None; ``prior``: the
    domain's venue mix in the cycle, :func:`domain_window_venues`) and whether persistence (the node's
    pre-cutoff venue mix) picks it."""
    hidden_order = venue_order(evidence.window_venues, prior)
    persistence_order = venue_order(evidence.pre_venues, domain_pre_venues(domain))
    fit = venue_fit(evidence.window_venues, prior)
    name = display_name(evidence.node)
    top = hidden_order[0]
    ranking = [option_of[family] for family in hidden_order]
    hidden = VenueTarget(
        task_id=identifier, family=FAMILY, ranking=ranking,
        rationale=[f"{family}: {evidence.window_venues[family]} of the sub-direction's venue-tagged papers "
                   f"in the cycle, {fit[family]['expected']:.1f} expected at the domain's share "
                   f"(lift {fit[family]['lift']:.2f})" for family in hidden_order],
        slots=[Slot(name="top_venue_family", variants=[top, f"option {option_of[top]}"])],
        claims=[Claim(claim_id="c1", text=f"{top} is the best-fit venue family for work on {name}."),
                Claim(claim_id="c2", text=f"{hidden_order[0]} fits better than {hidden_order[-1]}.")],
        evidence_ids=[paper_id for paper_id in evidence.window_ids
                      if accepted_venue_family(domain.papers[paper_id])][:20],
        stats={"node_id": evidence.node_id, "window_venues": dict(evidence.window_venues),
               "fit_rule": "lift over the domain's venue mix in the same cycle", "fit": fit,
               "pre_venues": dict(evidence.pre_venues), "domain_window_venues": dict(prior),
               "persistence_answer": [option_of[family] for family in persistence_order],
               "persistence_match": persistence_order[0] == top, "options": option_of})
    return hidden, persistence_order[0] == top
