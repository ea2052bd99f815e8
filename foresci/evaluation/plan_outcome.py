"""Outcome-based scoring of a plan's milestones and go/no-go criterion (#44), offline, from the window.

A plan answer names a top option, milestones and a go/no-go criterion (payload ``milestones``,
``go_no_go``). Its hidden target records, per option, the window's outcome (``stats.options[o]``: window
papers ``window``, ``log_share_growth``, ``newcomer_share`` and ``baseline_newcomer_share``) and the titles
of its window papers (``stats.window_titles[o]``).

- **Milestones**: a milestone is credited when a window paper of the answer's top option matches it: the
  paper's title holds at least half, and at least :data:`MIN_SHARED` (fewer if the milestone has fewer), of
  the milestone's specific word stems (plan filler such as "first", "result", "month" left out). The score
  is the credited share of the first :data:`MAX_MILESTONES` milestones (0 with none).
- **Go/no-go**: the criterion is read as a checkable condition on the top option's window: a paper count
  ("at least 10 new papers"), a share growth in per cent ("its share grows by 20 %"), growth in words
  ("keeps growing", "gains share"), a newcomer share in per cent ("newcomers write at least 40 % of its
  papers": the window's newcomer share reaches it) or newcomers in words ("newcomers keep publishing": the
  newcomer share does not fall below the option's own before the cutoff). Its verdict (go when the
  condition held in the window) is right when going was right: the top option sits in the upper half of the
  hidden ranking. Score 1 when the verdict is right, 0 when wrong or when nothing in the criterion can be
  checked.

The plan's value is the mean of the two parts that can be scored (None when neither can).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from foresci.tasks.text_index import GENERIC, STOP, phrase_stems

MAX_MILESTONES = 5
MIN_SHARED = 2
FILLER = frozenset(phrase_stems(
    "first result results within month months week weeks comparison compare against strongest work works "
    "paper papers publish release achieve reach deliver milestone milestones initial prototype baseline "
    "baselines new strong submit submission end window start begin complete show demonstrate"))
PAPERS = re.compile(r"(\d+)\s*(?:or more\s+|\+\s*)?(?:new\s+|window\s+|more\s+)?papers", re.I)
PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%")
GROWTH = re.compile(r"\b(grow|grows|growing|gain|gains|gaining|increase|increases|rising|rises)\b", re.I)
NEWCOMERS = re.compile(r"\b(newcomer|newcomers|new teams?|new authors?)\b", re.I)


def _stems(text: str) -> frozenset[str]:
    return frozenset(value for value in phrase_stems(text, expand=True)
                     if value not in STOP and value not in GENERIC and value not in FILLER and len(value) > 2)


def milestone_credit(milestone: str, titles: Sequence[str]) -> str | None:
    """The first window title that matches ``milestone`` (see the module text), None when none does."""
    wanted = _stems(milestone)
    if not wanted:
        return None
    need = max(min(MIN_SHARED, len(wanted)), math.ceil(len(wanted) / 2))
    for title in titles:
        if len(wanted & _stems(title)) >= need:
            return title
    return None


def criterion_verdict(criterion: str, outcome: Mapping[str, Any]) -> tuple[bool | None, str]:
    """Whether the criterion's condition held in the window for the option with ``outcome`` (None: nothing
    checkable), and how it was read."""
    if found := PAPERS.search(criterion):
        wanted, seen = int(found.group(1)), int(outcome.get("window", 0))
        return seen >= wanted, f"{wanted} papers wanted, {seen} in the window"
    growth = float(outcome.get("log_share_growth", 0.0))
    if (found := PERCENT.search(criterion)) and GROWTH.search(criterion):
        wanted_pct, seen_pct = float(found.group(1)), (math.exp(growth) - 1.0) * 100.0
        return seen_pct >= wanted_pct, f"share growth {wanted_pct:g} % wanted, {seen_pct:+.0f} % seen"
    if NEWCOMERS.search(criterion) and "newcomer_share" in outcome:
        share = float(outcome["newcomer_share"])
        if found := PERCENT.search(criterion):  # a stated share is the bar, not the option's own past
            stated = found.group(1)
            wanted_pct = float(stated)
            decimals = len(stated.partition(".")[2])
            # met when the share, rounded as the bar is stated, reaches it (88 % is met by 0.875)
            met = round(share * 100.0, decimals) >= wanted_pct
            return met, f"newcomer share {stated} % wanted, {share * 100.0:.1f} % seen"
        before = float(outcome.get("baseline_newcomer_share", 0.0))
        return share >= before, f"newcomer share {share:.0%} in the window vs {before:.0%} before"
    if GROWTH.search(criterion):
        return growth > 0, f"share growth {growth:+.2f} (log)"
    return None, "no checkable condition"


def plan_outcome(top: str | None, milestones: Sequence[str], criterion: str, ranking: Sequence[str],
                 stats: Mapping[str, Any]) -> dict[str, Any] | None:
    """The plan's scores: ``milestones`` (credited share), ``go_no_go`` (1 / 0), ``value`` (their mean) and
    the reading of each; None when the target records no outcome for the top option."""
    outcomes = dict(stats.get("options") or {})
    if top is None or top not in outcomes:
        return None
    titles = dict(stats.get("window_titles") or {})
    parts: dict[str, Any] = {"top": top}
    scores: list[float] = []
    if top in titles:
        listed = [str(item) for item in milestones][:MAX_MILESTONES]
        credited = {milestone: title for milestone in listed
                    if (title := milestone_credit(milestone, titles[top])) is not None}
        parts["milestones"] = len(credited) / len(listed) if listed else 0.0
        parts["credited"] = credited
        scores.append(parts["milestones"])
    verdict, reading = criterion_verdict(criterion or "", outcomes[top])
    right_to_go = top in list(ranking)[:max(1, len(ranking) // 2)]
    parts["go_no_go"] = 1.0 if verdict is not None and verdict == right_to_go else 0.0
    parts["criterion"] = reading
    parts["right_to_go"] = right_to_go
    scores.append(parts["go_no_go"])
    parts["value"] = sum(scores) / len(scores)
    return parts
