"""Headroom above the rules that read only the public task: per family, the best of persistence, the
recency rule and the largest option, and trend's margin over it (world-resampled intervals).

A rule's top-1 on a task is its expected strict top-1 under a random tie-break: 1 / (options tied for the
rule's pick) when the hidden top is among them, else 0. The rules read only what the task states publicly
(:mod:`foresci.tasks.public_counts`: each option's pre-cutoff and, in tasks of older releases, recent
papers):

- ``rule:recency``: the highest recent / pre-cutoff ratio (pre-cutoff papers floored at 1; the audit's rule;
  only where the task states recent papers, which tasks built since issue 43 do not);
- ``rule:largest``: the most pre-cutoff papers;
- ``rule:smallest``: the fewest (planning ranks options by newcomers' entry, where a crowded option ranks
  low, so the smallest option was the rule to beat there until planning tasks stopped stating sizes).

Persistence is a scored method already (it reads the KB's pre-cutoff counts, which the public counts
restate), and so are the five link measures of concept emergence (they ranked a task's pairs by the value
its public ``pair_signals`` stated; since issue 43 tasks state none and they read the network from the KB,
so for concept emergence the bar is stricter than a rule reading the task). A family whose tasks state no
counts (planning, concept emergence) gets no rule rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from foresci.evaluation.quality import FamilyQuality
from foresci.evaluation.stats import MeanWithInterval
from foresci.tasks.hidden import HiddenTarget
from foresci.tasks.models import Task
from foresci.tasks.public_counts import public_option_counts, public_sizes

RULES = ("rule:recency", "rule:largest", "rule:smallest")
PUBLIC_READERS = ("persistence", *RULES, "preferential_attachment", "common_neighbours", "adamic_adar",
                  "jaccard", "resource_allocation")
"""The fixed rules compared with trend: each reads only what a task states (or restates) publicly, and the
five link measures (concept emergence; scored only where a run asked them), which read what older tasks
stated in ``pair_signals`` and now read the same measures from the KB (a stricter bar)."""


def _tie_share(values: Mapping[str, float], top: str) -> float:
    best = max(values.values())
    holders = [option for option, value in values.items() if value == best]
    return 1.0 / len(holders) if top in holders else 0.0


def rule_top1(task: Task, target: HiddenTarget) -> dict[str, float]:
    """Rule -> expected strict top-1 on ``task``: each rule the task's stated counts allow (none when it
    states no counts or names no top; the size rules alone when it states sizes but no recent papers)."""
    counts, sizes = public_option_counts(task), public_sizes(task)
    top = target.top_option()
    found: dict[str, float] = {}
    if top is None:
        return found
    if len(counts) >= 2:
        found["rule:recency"] = _tie_share({option: recent / max(pre, 1)
                                            for option, (pre, recent) in counts.items()}, top)
    if len(sizes) >= 2:
        found["rule:largest"] = _tie_share({option: float(pre) for option, pre in sizes.items()}, top)
        found["rule:smallest"] = _tie_share({option: -float(pre) for option, pre in sizes.items()}, top)
    return found


def add_public_rules(quality: Mapping[str, FamilyQuality], tasks: Mapping[str, Task],
                     hidden: Mapping[str, HiddenTarget]) -> None:
    """Add each rule's top-1 to every scored task of ``quality`` (in place, as methods ``rule:*``)."""
    for part in quality.values():
        scored = {task for values in part.top1.values() for task in values}
        for task_id in sorted(scored):
            task, target = tasks.get(task_id), hidden.get(task_id)
            if task is None or target is None:
                continue
            for rule, value in rule_top1(task, target).items():
                part.top1.setdefault(rule, {})[task_id] = value


def persistence_family(name: str) -> bool:
    """Whether the family says its answer is mostly where the work already is (``TaskFamily.headline``
    False: persistence wins it; docs: release checks): its headroom is printed but it is no headline
    family. An unregistered name counts as a headline family."""
    from foresci.tasks.families import UnknownFamilyError, get_family

    try:
        return not get_family(name).headline
    except UnknownFamilyError:
        return False


@dataclass(frozen=True)
class Headroom:
    """The best public-reading rule of a family and trend's margin over it (world-weighted top-1)."""

    family: str
    rule: str
    rule_top1: MeanWithInterval
    trend_top1: MeanWithInterval
    margin: MeanWithInterval  # trend - rule, paired, worlds resampled

    @property
    def reading_pays(self) -> bool:
        """Trend's lower bound lies above the best rule's mean (the issue's goal)."""
        return self.trend_top1.low > self.rule_top1.mean

    def line(self) -> str:
        """One printed line."""
        verdict = "yes" if self.reading_pays else "NO"
        if persistence_family(self.family):
            verdict += " (a persistence family, not a headline one)"
        return (f"    headroom: best public rule {self.rule} {self.rule_top1.mean:.3f} "
                f"[{self.rule_top1.low:.3f}, {self.rule_top1.high:.3f}]; trend - it {self.margin.mean:+.3f} "
                f"[{self.margin.low:+.3f}, {self.margin.high:+.3f}]; trend's lower bound "
                f"{self.trend_top1.low:.3f} above the rule's mean: {verdict}")


def headroom(quality: FamilyQuality, cluster_of: Callable[[str], str],
             samples: int = 2000) -> Headroom | None:
    """The best of :data:`PUBLIC_READERS` (world-weighted top-1 mean) and trend's margin over it; None
    without trend or any rule."""
    trend = quality.interval("top1", "trend", samples, cluster_of=cluster_of, equal_clusters=True)
    rules = {rule: quality.interval("top1", rule, samples, cluster_of=cluster_of, equal_clusters=True)
             for rule in PUBLIC_READERS}
    found = {rule: interval for rule, interval in rules.items() if interval is not None}
    if trend is None or not found:
        return None
    best = max(found, key=lambda rule: found[rule].mean)
    margin = quality.paired_difference("top1", "trend", best, samples, cluster_of=cluster_of,
                                       equal_clusters=True)
    if margin is None:
        return None
    return Headroom(quality.family, best, found[best], trend, margin)
