"""Per-family mappers of ResearchForesight ground truth onto foresci hidden targets (and public options).

Their four families and the subtypes their format defines:

- ``direction_forecasting`` (``chain_terminal_forecast``, ``q1_terminal_forecast``, and the older
  ``venue_aware_direction_forecast`` kept in this family): ``future_terminal``, ``emergent_descendants``,
  ``trajectory`` (label and measures), ``future_chain``, ``historical_stats``;
- ``bottleneck_opportunity_discovery`` (``pageindex_grounded_bottleneck`` and its ``q1_`` form):
  ``historical_limitation_cluster`` with counts, ``realized_opportunity_directions``, ``future_descendants``;
- ``strategic_research_planning``: ``agenda_priority_selection`` (``direction_records`` with
  ``future_paper_count``) and ``comparative_opportunity_prioritization`` (two records with
  ``comparative_role`` winner/loser, ``winner_*``/``loser_*`` fields and ``winner_stats``/``loser_stats``
  holding ``historical_paper_count``);
- ``venue_aware_research_positioning`` (``venue_aware_direction_forecast``, ``venue_targeted_planning``):
  ``venue_forecast`` (``likely_bucket``, ``top_venue_buckets``), ``target_venue_bucket``, trajectory and
  ``direction_records``.

Options are named from their records, sorted by name (the order carries no answer); option ids A, B, ...
Every mapper returns the ground-truth keys it used; the rest is listed in ``HiddenTarget.unmapped``.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from typing import Any

from foresci.kb.models import VENUE_FAMILIES
from foresci.kb.venue_status import venue_family
from foresci.tasks.builders.common import OPTION_IDS
from foresci.tasks.families.bottleneck_opportunity.target import BottleneckTarget
from foresci.tasks.families.direction_forecasting.target import DirectionTarget
from foresci.tasks.families.strategic_planning.target import PlanningTarget
from foresci.tasks.families.venue_positioning.target import VenueTarget
from foresci.tasks.hidden import HiddenTarget, Slot
from foresci.tasks.models import Candidate, Task

TRAJECTORIES = ("accelerating", "fragmenting", "steady", "cooling")
SLICE = re.compile(r"^(\d{4})Q([1-4])$")


def slice_start(label: str | None) -> date | None:
    """First day of a 'YYYYQn' taxonomy time slice; None when absent or malformed."""
    match = SLICE.match(label or "")
    if not match:
        return None
    return date(int(match.group(1)), 3 * (int(match.group(2)) - 1) + 1, 1)


def created_after(label: str | None, cutoff: date) -> bool:
    """True when a node's creation slice starts after the cutoff (the node did not exist at the cutoff)."""
    start = slice_start(label)
    return start is not None and start > cutoff


def humanise(name: object) -> str:
    """Their snake_case display names as words ('multi_turn_rl' -> 'multi turn rl')."""
    return " ".join(str(name or "").replace("_", " ").split())


def option_candidates(names: list[str]) -> tuple[list[Candidate], dict[str, str]]:
    """Candidates for distinct option names sorted by name, and name -> option id."""
    ordered = sorted({name for name in names if name}, key=str.lower)[: len(OPTION_IDS)]
    option_of = {name: OPTION_IDS[index] for index, name in enumerate(ordered)}
    return [Candidate(option_id=option_of[name], name=name) for name in ordered], option_of


def _record_names(records: list[dict[str, Any]]) -> list[str]:
    return [humanise(item.get("display_name")) for item in records if humanise(item.get("display_name"))]


def _set_trajectory(target: DirectionTarget | VenueTarget, truth: dict[str, Any]) -> None:
    trajectory = truth.get("trajectory") or {}
    label = trajectory.get("trajectory_label") if isinstance(trajectory, dict) else None
    if label in TRAJECTORIES:
        target.trajectory = label
        target.slots.append(Slot(name="trajectory", variants=[label]))
        target.stats["trajectory_measures"] = trajectory


def map_direction(task: Task, target: DirectionTarget, truth: dict[str, Any]) -> set[str]:
    """Next-step direction among the named descendants, plus the trajectory label."""
    terminal = truth.get("future_terminal") or {}
    descendants = list(truth.get("emergent_descendants") or [])
    records = ([terminal] if terminal else []) + descendants
    candidates, option_of = option_candidates(_record_names(records))
    task.candidates = candidates
    name = humanise(terminal.get("display_name")) or (_record_names(descendants) or [""])[0]
    if name:
        target.primary_direction = option_of[name]
        target.acceptable_directions = [option for other, option in option_of.items() if other != name]
        target.slots.append(Slot(name="primary_direction", variants=[name]))
        target.stats["primary_direction_name"] = name
    _set_trajectory(target, truth)
    target.stats["target_created"] = terminal.get("created_time_slice")
    target.stats["target_created_after_cutoff"] = created_after(
        terminal.get("created_time_slice"), task.cutoff
    )
    target.stats["options_created_after_cutoff"] = sum(
        created_after(item.get("created_time_slice"), task.cutoff) for item in records if item is not terminal
    )
    target.stats["option_names"] = option_of
    used = {"future_terminal", "trajectory", "emergent_descendants"}
    if truth.get("venue_forecast"):
        used |= _venue_stats(target, truth)
    return used


def map_bottleneck(task: Task, target: BottleneckTarget, truth: dict[str, Any]) -> set[str]:
    """Primary bottleneck (the first limitation cluster, its counts) and the realized opportunities."""
    clusters = list(truth.get("historical_limitation_cluster") or [])
    names = [str(item.get("name") or "") for item in clusters if item.get("name")]
    if names:
        target.bottleneck = names
        description = str(clusters[0].get("description") or "")
        target.slots.append(
            Slot(name="bottleneck", variants=[names[0], *([description] if description else [])])
        )
        counts = [int(item.get("count") or 0) for item in clusters]
        target.stats["limitation_counts"] = counts
        top = max(counts)
        if len(counts) >= 2 and counts.count(top) == 1:
            target.stats["persistence_match"] = counts[0] == top
    opportunities = _record_names(
        list(truth.get("realized_opportunity_directions") or truth.get("future_descendants") or [])
    )
    target.opportunity = opportunities
    if opportunities:
        target.slots.append(Slot(name="opportunity", variants=opportunities))
    target.stats["has_realized_opportunity"] = bool(opportunities)
    return {"historical_limitation_cluster", "realized_opportunity_directions", "future_descendants"}


def is_comparative(truth: dict[str, Any]) -> bool:
    """A comparative (winner vs. loser) planning record."""
    return bool(truth.get("winner_display_name")) or any(
        item.get("comparative_role") for item in truth.get("direction_records") or []
    )


def map_planning(task: Task, target: PlanningTarget, truth: dict[str, Any]) -> set[str]:
    """Agenda ranking by realized future papers, or a comparative winner/loser pair with its counts."""
    if is_comparative(truth):
        return _map_comparative(task, target, truth)
    records = list(truth.get("direction_records") or [])
    candidates, option_of = option_candidates(
        _record_names(records) or [humanise(name) for name in truth.get("candidate_directions") or []]
    )
    task.candidates = candidates
    future = {
        humanise(item.get("display_name")): int(item.get("future_paper_count") or 0) for item in records
    }
    ranked = sorted(option_of, key=lambda name: (-future.get(name, 0), name.lower()))
    target.ranking = [option_of[name] for name in ranked]
    if ranked:
        target.slots.append(Slot(name="top_priority", variants=ranked[:1]))
    target.stats["options"] = len(ranked)
    target.stats["option_names"] = option_of
    target.stats["future_paper_counts"] = {option_of[name]: future.get(name) for name in ranked}
    target.stats["options_without_window_evidence"] = sum(1 for name in ranked if name not in future)
    target.stats["options_created_after_cutoff"] = sum(
        created_after(item.get("created_time_slice"), task.cutoff) for item in records
    )
    return {"direction_records", "candidate_directions", "emergent_descendants"}


def _map_comparative(task: Task, target: PlanningTarget, truth: dict[str, Any]) -> set[str]:
    records = {item.get("comparative_role"): item for item in truth.get("direction_records") or []}
    winner = humanise(truth.get("winner_display_name") or (records.get("winner") or {}).get("display_name"))
    loser = humanise(truth.get("loser_display_name") or (records.get("loser") or {}).get("display_name"))
    candidates, option_of = option_candidates([winner, loser])
    task.candidates = candidates
    target.ranking = [option_of[name] for name in (winner, loser) if name in option_of]
    target.slots.append(Slot(name="top_priority", variants=[winner]))
    stats = {"winner": truth.get("winner_stats") or {}, "loser": truth.get("loser_stats") or {}}
    won, lost = (stats[role].get("historical_paper_count") for role in ("winner", "loser"))
    if won is not None and lost is not None:
        target.stats["option_pre_counts"] = {option_of[winner]: int(won), option_of[loser]: int(lost)}
        target.stats["pre_counts_source"] = "recorded historical_paper_count"
        if int(won) != int(lost):
            target.stats["persistence_match"] = int(won) > int(lost)
    target.stats["pair_relation"] = _pair_relation(
        str(truth.get("winner_node_id") or ""), str(truth.get("loser_node_id") or "")
    )
    target.stats["options"] = 2
    target.stats["option_names"] = option_of
    target.stats["future_paper_counts"] = {
        option_of[winner]: stats["winner"].get("future_paper_count"),
        option_of[loser]: stats["loser"].get("future_paper_count"),
    }
    return {
        "direction_records",
        "emergent_descendants",
        "winner_node_id",
        "winner_display_name",
        "loser_node_id",
        "loser_display_name",
        "winner_stats",
        "loser_stats",
        "winner_score",
        "loser_score",
    }


def _pair_relation(winner: str, loser: str) -> str:
    """'parent_wins' / 'child_wins' when one node id is the other's ancestor, else 'other'."""
    if winner and loser.startswith(winner + "/"):
        return "parent_wins"
    if loser and winner.startswith(loser + "/"):
        return "child_wins"
    return "other"


def family_counts(buckets: dict[str, Any] | None) -> Counter[str]:
    """Venue-bucket counts ("ICML": 6, "other": 95) summed per venue family; other buckets dropped."""
    counts: Counter[str] = Counter()
    for bucket, count in (buckets or {}).items():
        family = venue_family(str(bucket))
        if family and int(count or 0) > 0:
            counts[family] += int(count)
    return counts


def venue_ranking(counts: Counter[str], likely: str | None) -> tuple[list[str], bool]:
    """Families with evidence by count; a tie at the top goes to ``likely`` (their recorded bucket),
    then by name. Returns the order and whether the top was tied."""
    order = sorted(counts, key=lambda family: (-counts[family], family != likely, family))
    tied = len(order) >= 2 and counts[order[0]] == counts[order[1]]
    return order, tied


def map_venue(task: Task, target: VenueTarget, truth: dict[str, Any]) -> set[str]:
    """Venue-family ordering over the five families, with trajectory and direction records kept."""
    option_of = {family: OPTION_IDS[index] for index, family in enumerate(VENUE_FAMILIES)}
    task.candidates = [Candidate(option_id=option_of[family], name=family) for family in VENUE_FAMILIES]
    used = _venue_stats(target, truth)
    forecast = truth.get("venue_forecast") or {}
    counts = family_counts(forecast.get("top_venue_buckets"))
    likely = venue_family(forecast.get("likely_bucket") or truth.get("target_venue_bucket"))
    order, tied = venue_ranking(counts, likely)
    if order:
        target.ranking = [option_of[family] for family in order]
        target.slots.append(
            Slot(name="top_venue_family", variants=[order[0], f"option {option_of[order[0]]}"])
        )
    target.stats.update({"options": option_of, "window_venues": dict(counts), "top_tied": tied})
    history = family_counts((truth.get("historical_stats") or {}).get("top_venue_buckets"))
    if history:
        target.stats["pre_venues"] = dict(history)
        target.stats["option_pre_counts"] = {
            option_of[family]: history.get(family, 0) for family in VENUE_FAMILIES
        }
        target.stats["pre_counts_source"] = "recorded historical_stats.top_venue_buckets"
        persistence, _ = venue_ranking(history, None)
        if order:
            target.stats["persistence_answer"] = option_of[persistence[0]]
            target.stats["persistence_match"] = persistence[0] == order[0]
        used.add("historical_stats")
    _set_trajectory(target, truth)
    records = sorted(
        truth.get("direction_records") or [], key=lambda item: -int(item.get("future_paper_count") or 0)
    )
    names = _record_names(records)
    if names:
        target.slots.append(Slot(name="next_direction", variants=names))
        target.stats["direction_records"] = names
    bucket = str(truth.get("target_venue_bucket") or forecast.get("likely_bucket") or "")
    target.stats["target_named_in_question"] = bool(bucket) and bucket.lower() in task.question.lower()
    terminal = truth.get("future_terminal") or {}
    if terminal:
        target.stats["target_created_after_cutoff"] = created_after(
            terminal.get("created_time_slice"), task.cutoff
        )
    return used | {"trajectory", "direction_records", "future_terminal", "emergent_descendants"}


def _venue_stats(target: HiddenTarget, truth: dict[str, Any]) -> set[str]:
    forecast = truth.get("venue_forecast") or {}
    target.stats["likely_venue_bucket"] = forecast.get("likely_bucket") or truth.get("target_venue_bucket")
    target.stats["likely_venue_family"] = venue_family(target.stats["likely_venue_bucket"])
    return {"venue_forecast", "target_venue_bucket", "target_venue_name"}
