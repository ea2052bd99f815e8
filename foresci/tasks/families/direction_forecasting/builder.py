"""Direction forecasting: from a fixed set of candidate directions, which gains momentum in the window."""

from __future__ import annotations

import math
import random
from typing import cast

from foresci.tasks.builders.common import (
    Built,
    candidates_from,
    direction_candidates,
    eligible_nodes,
    pre_cutoff_context,
    record_dropped_twins,
    sample_option_sets,
    task_id,
)
from foresci.tasks.config import TaskSettings
from foresci.tasks.evidence import DomainEvidence, NodeEvidence
from foresci.tasks.families.base import get_family
from foresci.tasks.families.direction_forecasting.family import direction_question, momentum_measure
from foresci.tasks.families.direction_forecasting.target import DirectionTarget
from foresci.tasks.hidden import Claim, Slot
from foresci.tasks.models import Candidate, Task
from foresci.tasks.release_checks import apart, implied_trajectory, option_pool, trajectory_consistent
from foresci.taxonomy.models import Trajectory

FAMILY = "direction_forecasting"
TRAJECTORY_VARIANTS = {
    "accelerating": ["accelerating", "gaining momentum faster than the domain", "rapid growth"],
    "fragmenting": ["fragmenting", "splitting into sub-directions", "diversifying into several branches"],
    "steady": ["steady", "holding its share", "stable growth in line with the domain"],
    "cooling": ["cooling", "losing share", "declining momentum"],
}


def build_direction_tasks(domain: DomainEvidence, settings: TaskSettings, domain_name: str,
                          wanted: int) -> list[Built]:
    """Candidate direction tasks for one domain and window (more than ``wanted``; selection happens later)."""
    rng = random.Random(f"{settings.seed}:{FAMILY}:{domain.domain}:{domain.window.horizon}")
    pool = option_pool(domain, direction_candidates(domain, settings), domain_name, FAMILY,
                       eligible_nodes(domain, settings))
    built: list[Built] = []
    for options in sample_option_sets(pool, settings.candidates_per_task,
                                      settings.attempts_per_task * wanted, rng, apart):
        item = _build_one(domain, options, settings, domain_name, rng)
        if item is not None:
            built.append(item)
    record_dropped_twins(built, domain, settings)
    return built


def lead_noise(winner: NodeEvidence, runner_up: NodeEvidence) -> float:
    """Standard error of the difference of two nodes' log growth (window vs. level) under Poisson counts
    (add-one)."""
    return math.sqrt(sum(1.0 / (count + 1) for count in (winner.window, winner.level,
                                                         runner_up.window, runner_up.level)))


def void_reason(options: list[NodeEvidence], settings: TaskSettings) -> str | None:
    """Why the window leaves an option set without a clear answer (None: it has one): the winner's margin
    or window papers below the thresholds, its lead within the noise (``min_lead_z``), no trajectory.

    The builder drops such sets; a round that froze one prospectively resolves it as void."""
    by_growth = sorted(options, key=lambda item: (-item.growth, item.node_id))
    winner, runner_up = by_growth[0], by_growth[1]
    if winner.growth - runner_up.growth < settings.min_margin:
        return f"margin {winner.growth - runner_up.growth:.4f} < min_margin {settings.min_margin}"
    if winner.window < settings.min_window_papers:
        return f"winner has {winner.window} window papers < min_window_papers {settings.min_window_papers}"
    if winner.growth - runner_up.growth < settings.min_lead_z * lead_noise(winner, runner_up):
        return f"lead below min_lead_z {settings.min_lead_z} x its noise"
    if winner.trajectory is None:
        return "no trajectory for the winner"
    return None


def _build_one(domain: DomainEvidence, options: list[NodeEvidence], settings: TaskSettings, domain_name: str,
               rng: random.Random) -> Built | None:
    if void_reason(options, settings) is not None:
        return None
    named = candidates_from(options, rng)
    by_growth = sorted(options, key=lambda item: (-item.growth, item.node_id))
    winner = by_growth[0]
    key = (f"{domain.window.horizon}:{winner.node_id}",
           *sorted(item.node_id for item in options if item is not winner))
    identifier = task_id(FAMILY, domain.domain, domain.window.horizon, key, domain.window.cutoff.isoformat())
    task = public_task(domain, options, named, domain_name, identifier)
    hidden, label, persistence_match = direction_target(domain, options, named, settings, identifier)
    return Built(task=task, hidden=hidden, decision_key=key, label=label,
                 persistence_match=persistence_match)


def public_task(domain: DomainEvidence, options: list[NodeEvidence],
                named: list[tuple[Candidate, NodeEvidence]], domain_name: str, identifier: str) -> Task:
    """The public task over ``options`` named as ``named`` (pre-cutoff facts only)."""
    window = domain.window
    option_of = {item.node_id: candidate.option_id for candidate, item in named}
    title, question = direction_question(domain_name, window.cutoff, window.start, window.end)
    return Task(task_id=identifier, family=FAMILY, domain=domain.domain, cutoff=window.cutoff,
                horizon=window.horizon, window_start=window.start, window_end=window.end, title=title,
                question=question, candidates=[candidate for candidate, _ in named],
                context={"domain_name": domain_name,
                         "candidates": {option_of[item.node_id]: pre_cutoff_context(item)
                                        for item in options},
                         "momentum_measure": momentum_measure(domain.level_period)},
                deliverable=list(get_family(FAMILY).deliverables))


def direction_target(domain: DomainEvidence, options: list[NodeEvidence],
                     named: list[tuple[Candidate, NodeEvidence]], settings: TaskSettings,
                     identifier: str) -> tuple[DirectionTarget, str, bool]:
    """The hidden target of a decisive option set (:func:`void_reason` None), its trajectory label and
    whether persistence (the most pre-cutoff papers) picks the winner."""
    by_growth = sorted(options, key=lambda item: (-item.growth, item.node_id))
    winner = by_growth[0]
    option_of = {item.node_id: candidate.option_id for candidate, item in named}
    neighbours = [item for item in by_growth[1:]
                  if winner.growth - item.growth <= settings.neighbour_tolerance]
    persistence = max(options, key=lambda item: (item.pre_total, item.node_id))
    winner_name = next(candidate.name for candidate, item in named if item is winner)
    assert winner.trajectory is not None  # void_reason refuses a winner without a trajectory
    label = winner.trajectory
    repaired = []
    if not trajectory_consistent(label, winner.growth):  # the key must agree with the target's own growth
        label = cast(Trajectory, implied_trajectory(winner.growth))
        repaired.append(f"trajectory_inconsistent: winner's {winner.trajectory} (share growth "
                        f"{winner.growth:+.2f}) keyed {label}")
    slots = [Slot(name="primary_direction",
                  variants=[winner_name, *(f"{winner_name}: {term}" for term in winner.node.key_terms[:3])]),
             Slot(name="trajectory", variants=list(TRAJECTORY_VARIANTS[label]))]
    if neighbours:
        slots.append(Slot(name="acceptable_neighbours",
                          variants=[candidate.name for candidate, item in named if item in neighbours]))
    claims = [
        Claim(claim_id="c1", text=f"{winner_name} gains the most momentum among the candidates in the "
              f"window.",
              variants=[f"Option {option_of[winner.node_id]} is the direction that gains momentum."]),
        Claim(claim_id="c2", text=f"The trajectory of {winner_name} in the window is {label}.",
              variants=TRAJECTORY_VARIANTS[label][1:]),
        Claim(claim_id="c3", text=(f"{winner_name}'s share of the domain's new papers moves from "
                                   f"{winner.level_share:.1%} in {domain.level_period} to "
                                   f"{winner.window_share:.1%} "
                                   "in the window.")),
    ]
    cooling = [item for item in options if item.growth < -settings.min_margin]
    for index, item in enumerate(cooling, start=4):
        name = next(candidate.name for candidate, other in named if other is item)
        claims.append(Claim(claim_id=f"c{index}", text=f"{name} loses share of the domain in the window."))
    hidden = DirectionTarget(
        task_id=identifier, family=FAMILY, primary_direction=option_of[winner.node_id],
        acceptable_directions=[option_of[item.node_id] for item in neighbours], trajectory=label,
        ranking=[option_of[item.node_id] for item in by_growth], slots=slots, claims=claims,
        evidence_ids=winner.window_ids[:20],
        stats={"normalised_by": domain.normalised_by,
               "options": {option_of[item.node_id]: _option_stats(item) for item in options},
               "persistence_answer": option_of[persistence.node_id],
               "persistence_match": persistence is winner,
               "node_ids": {option_of[item.node_id]: item.node_id for item in options}})
    if repaired:
        hidden.stats["repaired"] = repaired
    return hidden, label, persistence is winner


def _option_stats(item: NodeEvidence) -> dict[str, object]:
    return {"pre_total": item.pre_total, "baseline": item.baseline, "level": item.level,
            "level_estimate": round(item.level_estimate, 3), "window": item.window,
            "baseline_share": round(item.baseline_share, 6), "level_share": round(item.level_share, 6),
            "window_share": round(item.window_share, 6),
            "log_share_growth": round(item.growth, 4), "trajectory": item.trajectory}
