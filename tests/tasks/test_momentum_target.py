"""The momentum target (a node's window share against its pre-cutoff level) carries no regression to the
mean that a trend forecaster's pre-cutoff slope could be anti-correlated with.

A null literature: 240 nodes whose papers arrive at constant Poisson rates for 12 months before the cutoff
and 3 months after, so nothing before the cutoff says which node will grow. The old target (window share
against the 3 months just before the cutoff) made whatever rose before the cutoff lose: the fitted
pre-cutoff slope correlates strongly negatively with it. The target must not.
"""

from __future__ import annotations

import calendar
from datetime import date

import numpy as np

from foresci.agents.baselines.measure import poisson_log_slope
from foresci.kb.models import Paper
from foresci.tasks.evidence import collect_evidence, level_estimates, smoothed_growth
from foresci.tasks.windows import make_window, month_key, months_between
from foresci.taxonomy.models import Node, Snapshot

CUTOFF = date(2024, 12, 31)
NODES = 240
MONTHLY_RATE = 5.0


def _null_literature(seed: int,
                     rates: list[float] | None = None) -> tuple[Snapshot, list[Paper], dict[str, str]]:
    """Papers at constant Poisson rates (``rates`` per node, else ``MONTHLY_RATE``), 2024-01..2025-03."""
    rng = np.random.default_rng(seed)
    months = months_between(date(2024, 1, 1), date(2025, 3, 31))
    papers: list[Paper] = []
    assignment: dict[str, str] = {}
    for node in range(NODES):
        rate = MONTHLY_RATE if rates is None else rates[node]
        for month in months:
            year, number = int(month[:4]), int(month[5:])
            for index in range(int(rng.poisson(rate))):
                day = date(year, number, int(rng.integers(1, calendar.monthrange(year, number)[1] + 1)))
                paper_id = f"n{node}-{month}-{index}"
                papers.append(Paper(paper_id=paper_id, title="t", abstract="a", announced=day))
                assignment[paper_id] = f"n{node}"
    snapshot = Snapshot(domain="d", cutoff=CUTOFF, slice_index=0,
                        nodes=[Node(node_id=f"n{node}", label=f"node {node}") for node in range(NODES)])
    return snapshot, papers, assignment


def _pre_cutoff_slopes(papers: list[Paper], assignment: dict[str, str]) -> dict[str, float]:
    """Each node's fitted monthly log-share slope over the 12 months up to the cutoff (what trend reads)."""
    months = months_between(date(2024, 1, 1), CUTOFF)
    counts = {f"n{node}": dict.fromkeys(months, 0) for node in range(NODES)}
    totals = dict.fromkeys(months, 0)
    for paper in papers:
        if paper.announced <= CUTOFF:
            counts[assignment[paper.paper_id]][month_key(paper.announced)] += 1
            totals[month_key(paper.announced)] += 1
    reference = [totals[month] for month in months]
    return {node: poisson_log_slope([series[month] for month in months], reference)[0]
            for node, series in counts.items()}


def test_momentum_target_is_uncorrelated_with_the_pre_cutoff_slope_in_a_null_literature() -> None:
    snapshot, papers, assignment = _null_literature(seed=3)
    evidence = collect_evidence(snapshot, papers, assignment, make_window(CUTOFF, "3m"))
    slopes = _pre_cutoff_slopes(papers, assignment)
    nodes = sorted(slopes)
    slope = np.asarray([slopes[node] for node in nodes])
    target = np.asarray([evidence.nodes[node].growth for node in nodes])
    short_baseline = np.asarray([evidence.nodes[node].baseline_growth for node in nodes])

    assert len(evidence.level_months) == 12 and evidence.level_months[-1] == "2024-12"
    assert all(evidence.nodes[node].level == evidence.nodes[node].pre_total for node in nodes)
    # the old definition: rising before the cutoff predicts losing in the window (regression to the mean)
    assert np.corrcoef(slope, short_baseline)[0, 1] < -0.3
    assert abs(np.corrcoef(slope, target)[0, 1]) < 0.12


def test_level_period_starts_where_the_literature_starts() -> None:
    snapshot, papers, assignment = _null_literature(seed=4)
    late = [paper for paper in papers if paper.announced >= date(2024, 7, 1)]
    evidence = collect_evidence(snapshot, late, assignment, make_window(CUTOFF, "3m"))
    assert evidence.level_months == [f"2024-{month:02d}" for month in range(7, 13)]
    node = evidence.nodes["n0"]
    assert node.level == node.pre_total
    assert node.level_share == node.level / evidence.level_total


def test_momentum_target_does_not_favour_the_smallest_nodes_in_a_null_literature() -> None:
    """Nodes of different sizes, nothing changes at the cutoff: how many papers a node had before the cutoff
    must not predict its momentum. Dividing by the raw level count did (regression to the mean: a level
    that came out high by Poisson noise reads as losing share), so "pick the largest option" lost and the
    smallest option won more than its share of direction tasks."""
    rates = list(np.random.default_rng(11).uniform(1.0, 4.0, NODES))
    snapshot, papers, assignment = _null_literature(seed=5, rates=rates)
    evidence = collect_evidence(snapshot, papers, assignment, make_window(CUTOFF, "3m"))
    nodes = sorted(evidence.nodes)
    level = np.asarray([evidence.nodes[node].level for node in nodes], dtype=float)
    target = np.asarray([evidence.nodes[node].growth for node in nodes])
    raw = np.asarray([smoothed_growth(evidence.nodes[node].level, evidence.level_total,
                                      evidence.nodes[node].window, evidence.reference_window)
                      for node in nodes])

    assert np.corrcoef(level, raw)[0, 1] < -0.2  # the raw level: the smaller, the more "momentum"
    assert abs(np.corrcoef(level, target)[0, 1]) < 0.12
    estimates = [evidence.nodes[node].level_estimate for node in nodes]
    assert np.corrcoef(level, estimates)[0, 1] > 0.95  # shrunk, not replaced: the order of sizes holds
    assert np.std(estimates) < np.std(level)


def test_level_estimates_shrink_noisy_counts_toward_the_typical_node() -> None:
    estimates = level_estimates({"tiny": 2, "a": 40, "b": 50, "c": 60, "big": 400, "empty": 0})
    assert estimates["empty"] == 0.0
    assert 2 < estimates["tiny"] < 40  # two papers say little: pulled far up
    assert 380 < estimates["big"] <= 400  # hundreds of papers say a lot: barely moved
    assert estimates["a"] < estimates["b"] < estimates["c"] < estimates["big"]
    assert level_estimates({"a": 3, "b": 90}) == {"a": 3.0, "b": 90.0}  # no spread to estimate from two
