"""Per-node evidence for one domain, cutoff and window: the single input every family builder reads.

Counts before and after the cutoff are made the same way (each paper routed to a leaf node of T(t) by
``assign_papers``, then summed over the node's subtree), so a node's window count and its pre-cutoff count
are comparable. Shares are relative to the domain's own papers in the same period, which absorbs the
collection drift of the arXiv stream (SPEC §8): ``normalised_by`` says so on every output.

A node's momentum in the window (``growth``, the hidden target of direction and planning tasks) is its
window share against its *level*: its share over the ``level_months`` months up to the cutoff (12 by
default, fewer where the KB starts later). Not against the same-length period just before the cutoff
(``baseline``): with a few papers a month that short count is noisy, a node with an unlucky baseline then
"gains momentum" by regression to the mean, and whatever rose just before the cutoff is systematically
penalised; on worlds with no planted pre-cutoff change both forecasters fell well below chance. Under
Poisson counts the total over the level period carries no information about how those papers spread over
its months, so the level is independent of any pre-cutoff slope read from the same months.

The level a node's window share is compared with is not its observed level count but an empirical-Bayes
estimate of its expected count (:func:`level_estimates`): the observed count shrunk toward the typical level
of the domain's nodes, the more the noisier it is. With the raw count, a node whose level came out high by
Poisson noise reads as losing momentum and one whose level came out low as gaining it (regression to the
mean), so whatever has the most (fewest) pre-cutoff papers systematically lost (won): on planned counts of
the signal benchmark's worlds with nothing planted before the cutoff (290 seeds, 4-option sets,
``benchmarks/momentum_null.py``) the largest option won 0.186 of the tasks and the smallest 0.332; with the
estimate 0.244 and 0.259 (chance 0.25). The observed level stays on record (``level``, ``level_share``);
``level_estimate`` is what ``growth`` divides by.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from foresci.kb.models import Paper
from foresci.tasks.text import content_tokens, ngrams, vocabulary
from foresci.tasks.windows import Window, add_months, month_key
from foresci.taxonomy.models import Node, Snapshot, Trajectory
from foresci.taxonomy.venues import accepted_venue_family

NORMALISED_BY = "share of the domain's papers in the same period (papers routed to any node of T(t))"
LEVEL_MONTHS = 12
MIN_LEVEL_SPREAD = 0.01
"""Least between-node variance of log level counts the shrinkage assumes (nodes never all the same size)."""

Classifier = Callable[..., Trajectory]
COMMON_SHARE = 0.1


@dataclass(eq=False)
class NodeEvidence:
    """Counts, shares, venues and trajectory of one node (its whole subtree) around the cutoff.

    Compared by identity: one object per node and window, so two are equal only when they are the same
    (field-by-field comparison made ``item in options`` compare whole taxonomy nodes).

    ``baseline``: papers in the same-length period just before the cutoff; ``level``: papers in the level
    period (the ``level_months`` months up to the cutoff); ``level_estimate``: the empirical-Bayes estimate
    of the node's expected level count (:func:`level_estimates`); ``growth``: log window share / estimated
    level share (the momentum target); ``baseline_growth``: log window share / baseline share.
    """

    node: Node
    subtree: list[str]
    pre_total: int
    baseline: int
    window: int
    baseline_share: float
    window_share: float
    growth: float
    level: int = 0
    level_share: float = 0.0
    level_estimate: float = 0.0
    baseline_growth: float = 0.0
    window_ids: list[str] = field(default_factory=list)
    pre_ids: list[str] = field(default_factory=list)
    monthly: dict[str, int] = field(default_factory=dict)
    pre_venues: Counter[str] = field(default_factory=Counter)
    window_venues: Counter[str] = field(default_factory=Counter)
    trajectory: Trajectory | None = None

    @property
    def node_id(self) -> str:
        """The node's id."""
        return self.node.node_id


@dataclass
class PaperTextCache:
    """What the builders derive from a domain's papers that does not depend on the window: content tokens and
    n-grams per paper, venue family per paper, and the pre-cutoff word counts and vocabulary. Shared by the
    evidence of every window of one domain at one cutoff (:func:`collect_windows`), so each is computed once
    per build, not once per window."""

    token_sets: dict[str, frozenset[str]] = field(default_factory=dict)
    gram_sets: dict[str, frozenset[str]] = field(default_factory=dict)
    venues: dict[str, str | None] = field(default_factory=dict)
    pre_counts: tuple[Counter[str], int] | None = None
    common: frozenset[str] | None = None
    pre_vocabulary: frozenset[str] | None = None
    text_index: Any = None  # foresci.tasks.text_index.TextIndex of the pre-cutoff papers, built on first use


@dataclass
class DomainEvidence:
    """Everything the builders need about one domain at one cutoff for one window."""

    domain: str
    snapshot: Snapshot
    window: Window
    papers: dict[str, Paper]
    assignment: dict[str, str]
    nodes: dict[str, NodeEvidence]
    reference_baseline: int
    reference_window: int
    reference_monthly: dict[str, int]
    pre_vocabulary: frozenset[str]
    level_total: int = 0
    level_months: list[str] = field(default_factory=list)
    normalised_by: str = NORMALISED_BY
    embed: Callable[[Sequence[str]], Any] | None = field(default=None, repr=False)
    text_cache: PaperTextCache = field(default_factory=PaperTextCache, repr=False)

    @property
    def pre_token_counts(self) -> tuple[Counter[str], int]:
        """Content word -> number of the domain's pre-cutoff papers using it; and how many those are."""
        cache = self.text_cache
        if cache.pre_counts is None:
            counts: Counter[str] = Counter()
            pre = [paper_id for paper_id, paper in self.papers.items() if paper.announced <= self.cutoff]
            for paper_id in pre:
                counts.update(self.token_set(paper_id))
            cache.pre_counts = (counts, len(pre))
        return cache.pre_counts

    @property
    def common_tokens(self) -> frozenset[str]:
        """Content words in more than 10 % of the domain's pre-cutoff papers (too common to mark a topic)."""
        cache = self.text_cache
        if cache.common is None:
            counts, size = self.pre_token_counts
            cache.common = frozenset(token for token, count in counts.items() if count > COMMON_SHARE * size)
        return cache.common

    def gram_set(self, paper_id: str) -> frozenset[str]:
        """Content n-grams of a paper's title and abstract (cached)."""
        cached = self.text_cache.gram_sets.get(paper_id)
        if cached is None:
            cached = frozenset(ngrams(self.papers[paper_id].text))
            self.text_cache.gram_sets[paper_id] = cached
        return cached

    def token_set(self, paper_id: str) -> frozenset[str]:
        """Content tokens of a paper's title and abstract (cached)."""
        cached = self.text_cache.token_sets.get(paper_id)
        if cached is None:
            cached = frozenset(content_tokens(self.papers[paper_id].text))
            self.text_cache.token_sets[paper_id] = cached
        return cached

    @property
    def level_period(self) -> str:
        """'the pre-cutoff period YYYY-MM..YYYY-MM' that ``growth`` compares the window with."""
        span = f" {self.level_months[0]}..{self.level_months[-1]}" if self.level_months else ""
        return f"the pre-cutoff period{span}"

    @property
    def cutoff(self) -> date:
        """The cutoff t."""
        return self.window.cutoff

    def texts(self, paper_ids: Sequence[str]) -> list[str]:
        """Title + abstract of the given papers, skipping unknown ids."""
        return [self.papers[paper_id].text for paper_id in paper_ids if paper_id in self.papers]


def subtree_ids(snapshot: Snapshot) -> dict[str, list[str]]:
    """Map each node id to the ids of its subtree (itself first, then descendants)."""
    children: dict[str | None, list[str]] = {}
    for node in snapshot.nodes:
        children.setdefault(node.parent_id, []).append(node.node_id)
    result: dict[str, list[str]] = {}
    for node in snapshot.nodes:
        stack, seen = [node.node_id], []
        while stack:
            current = stack.pop()
            seen.append(current)
            stack.extend(children.get(current, []))
        result[node.node_id] = seen
    return result


def _venues(papers: Mapping[str, Paper], paper_ids: Sequence[str],
            known: dict[str, str | None]) -> Counter[str]:
    """Accepted venue families of the papers, counted (``known``: paper id -> family, filled as read)."""
    families: list[str | None] = []
    for paper_id in paper_ids:
        if paper_id in known:
            families.append(known[paper_id])
        else:
            family = known[paper_id] = accepted_venue_family(papers[paper_id])
            families.append(family)
    return Counter(family for family in families if family)


def smoothed_growth(baseline: float, baseline_total: int, window: int, window_total: int) -> float:
    """Log ratio of the window share to the baseline share, add-one smoothed (0 = share unchanged)."""
    return math.log(((window + 1) / (window_total + 1)) / ((baseline + 1) / (baseline_total + 1)))


def level_estimates(levels: Mapping[str, int]) -> dict[str, float]:
    """Empirical-Bayes estimate of each node's expected level count from the observed ones.

    Log counts are modelled as the node's true log level plus Poisson noise of variance ``1 / (count +
    0.5)``, true log levels as normal across the nodes with papers in the level period; the estimate is the
    posterior mean, ``x - B (x - mean)`` with ``B = noise / (noise + spread)`` (moments: spread = variance
    of the log counts minus the mean noise, at least ``MIN_LEVEL_SPREAD``). A count of a few papers moves
    far toward the typical node, one of hundreds barely. Nodes without papers keep 0; with fewer than three
    nodes that have papers the counts are kept as they are (no spread to estimate).
    """
    counted = {node_id: count for node_id, count in levels.items() if count > 0}
    if len(counted) < 3:
        return {node_id: float(count) for node_id, count in levels.items()}
    logs = {node_id: math.log(count + 0.5) for node_id, count in counted.items()}
    noise = {node_id: 1.0 / (count + 0.5) for node_id, count in counted.items()}
    mean = sum(logs.values()) / len(logs)
    variance = sum((value - mean) ** 2 for value in logs.values()) / len(logs)
    spread = max(variance - sum(noise.values()) / len(noise), MIN_LEVEL_SPREAD)
    estimates = {node_id: 0.0 for node_id in levels}
    for node_id, value in logs.items():
        weight = noise[node_id] / (noise[node_id] + spread)
        estimates[node_id] = math.exp(value - weight * (value - mean)) - 0.5
    return estimates


def level_period(papers: Sequence[Paper], cutoff: date, months: int) -> list[str]:
    """The 'YYYY-MM' keys of the ``months`` months up to the cutoff's month that ``papers`` reach into
    (months before the first paper are left out: nobody collected them)."""
    keys = [month_key(add_months(cutoff, -offset)) for offset in range(months - 1, -1, -1)]
    first = min((month_key(paper.announced) for paper in papers), default=keys[-1])
    return [key for key in keys if key >= first] or keys[-1:]


def collect_evidence(snapshot: Snapshot, papers: Sequence[Paper], assignment: Mapping[str, str],
                     window: Window,
                     classify: Classifier | None = None, level_months: int = LEVEL_MONTHS,
                     text_cache: PaperTextCache | None = None) -> DomainEvidence:
    """Count each node's papers before the cutoff, in the baseline, in the level period and in the window;
    classify trajectories.

    ``papers``: the domain's papers up to the window's end (earlier and later ones are ignored);
    ``assignment``: paper_id -> node id of ``snapshot`` (normally a leaf), for papers on both sides of the
    cutoff; ``classify``: ``foresci.taxonomy.trajectory.classify_trajectory`` or a stand-in with its
    signature; None (or a window or baseline without papers) leaves trajectories unset; ``level_months``:
    length of the level period that ``growth`` compares the window with; ``text_cache``: what an earlier
    window of the same domain, cutoff and papers derived from them (:class:`PaperTextCache`; a new one when
    None).
    """
    cache = text_cache if text_cache is not None else PaperTextCache()
    by_id = {paper.paper_id: paper for paper in papers if paper.announced <= window.end}
    level_keys = level_period([paper for paper in by_id.values() if paper.paper_id in assignment],
                              window.cutoff, level_months)
    in_level_months = frozenset(level_keys)
    subtrees = subtree_ids(snapshot)
    node_of_leaf: dict[str, list[str]] = {}
    for node_id, members in subtrees.items():
        for member in members:
            node_of_leaf.setdefault(member, []).append(node_id)
    reference_monthly: Counter[str] = Counter()
    reference_baseline = reference_window = level_total = 0
    per_node_pre: dict[str, list[str]] = {node.node_id: [] for node in snapshot.nodes}
    per_node_window: dict[str, list[str]] = {node.node_id: [] for node in snapshot.nodes}
    per_node_baseline: Counter[str] = Counter()
    per_node_level: Counter[str] = Counter()
    per_node_monthly: dict[str, Counter[str]] = {node.node_id: Counter() for node in snapshot.nodes}
    for paper_id, paper in by_id.items():
        leaf = assignment.get(paper_id)
        if leaf is None or leaf not in node_of_leaf:
            continue
        month = month_key(paper.announced)
        reference_monthly[month] += 1
        in_window = window.contains(paper.announced)
        in_baseline = window.in_baseline(paper.announced)
        in_level = paper.announced <= window.cutoff and month in in_level_months
        reference_window += in_window
        reference_baseline += in_baseline
        level_total += in_level
        for node_id in node_of_leaf[leaf]:
            per_node_monthly[node_id][month] += 1
            if in_window:
                per_node_window[node_id].append(paper_id)
            elif paper.announced <= window.cutoff:
                per_node_pre[node_id].append(paper_id)
                per_node_baseline[node_id] += in_baseline
                per_node_level[node_id] += in_level
    nodes: dict[str, NodeEvidence] = {}
    estimated = level_estimates({node.node_id: per_node_level[node.node_id] for node in snapshot.nodes})
    for node in snapshot.nodes:
        node_id = node.node_id
        pre_ids, window_ids = per_node_pre[node_id], per_node_window[node_id]
        baseline, level = per_node_baseline[node_id], per_node_level[node_id]
        evidence = NodeEvidence(
            node=node, subtree=subtrees[node_id], pre_total=len(pre_ids), baseline=baseline,
            window=len(window_ids),
            baseline_share=baseline / reference_baseline if reference_baseline else 0.0,
            window_share=len(window_ids) / reference_window if reference_window else 0.0,
            growth=smoothed_growth(estimated[node_id], level_total, len(window_ids), reference_window),
            level=level, level_share=level / level_total if level_total else 0.0,
            level_estimate=estimated[node_id],
            baseline_growth=smoothed_growth(baseline, reference_baseline, len(window_ids), reference_window),
            window_ids=window_ids, pre_ids=pre_ids, monthly=dict(sorted(per_node_monthly[node_id].items())),
            pre_venues=_venues(by_id, pre_ids, cache.venues),
            window_venues=_venues(by_id, window_ids, cache.venues))
        nodes[node_id] = evidence
    if classify is not None and reference_window > 0 and reference_baseline > 0:
        children: dict[str, list[str]] = {}
        for node in snapshot.nodes:
            if node.parent_id is not None:
                children.setdefault(node.parent_id, []).append(node.node_id)
        for node_id, evidence in nodes.items():
            child_monthly = [nodes[child].monthly for child in children.get(node_id, [])]
            evidence.trajectory = classify(
                evidence.monthly, dict(reference_monthly), (window.start, window.end),
                (window.baseline_start, window.baseline_end), None, child_monthly or None)
    if cache.pre_vocabulary is None:
        cache.pre_vocabulary = vocabulary(paper.text for paper in by_id.values()
                                          if paper.announced <= window.cutoff)
    return DomainEvidence(domain=snapshot.domain, snapshot=snapshot, window=window, papers=by_id,
                          assignment=dict(assignment), nodes=nodes, reference_baseline=reference_baseline,
                          reference_window=reference_window,
                          reference_monthly=dict(sorted(reference_monthly.items())),
                          pre_vocabulary=cache.pre_vocabulary, level_total=level_total,
                          level_months=level_keys, text_cache=cache)


def collect_windows(snapshot: Snapshot, papers: Sequence[Paper], assignment: Mapping[str, str],
                    windows: Sequence[Window], classify: Classifier | None = None) -> list[DomainEvidence]:
    """:func:`collect_evidence` for each window (in order); windows after the same cutoff share one
    :class:`PaperTextCache` (what lies before their cutoff is the same for each)."""
    caches: dict[date, PaperTextCache] = {}
    return [collect_evidence(snapshot, papers, assignment, window, classify,
                             text_cache=caches.setdefault(window.cutoff, PaperTextCache()))
            for window in windows]
