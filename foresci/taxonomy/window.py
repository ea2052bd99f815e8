"""Node activity in a (usually post-cutoff) window, and trajectory labels for every node.

For hidden targets and benchmarks only: these functions read papers after the snapshot's cutoff,
which only ``tasks.build`` and ``evaluation`` may do. The snapshot itself is never changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import date

import numpy as np

from foresci.kb.models import Paper
from foresci.taxonomy.assign import assign_papers
from foresci.taxonomy.evidence import month_key
from foresci.taxonomy.models import Snapshot
from foresci.taxonomy.trajectory import TrajectoryMeasure, TrajectoryRules, measure_trajectory


def ancestors(snapshot: Snapshot, node_id: str) -> list[str]:
    """The node and its ancestors, nearest first."""
    parents = {node.node_id: node.parent_id for node in snapshot.nodes}
    chain = [node_id]
    parent = parents.get(node_id)
    while parent is not None:
        chain.append(parent)
        parent = parents.get(parent)
    return chain


def combined_monthly(snapshot: Snapshot, later_papers: Sequence[Paper],
                     later_embeddings: np.ndarray) -> dict[str, dict[str, int]]:
    """Per node: its pre-cutoff monthly counts plus the later papers routed to it or its descendants."""
    monthly = {node.node_id: Counter(node.monthly_counts) for node in snapshot.nodes}
    fresh = [paper for paper in later_papers if paper.announced > snapshot.cutoff]
    rows = [index for index, paper in enumerate(later_papers) if paper.announced > snapshot.cutoff]
    if fresh:
        assignment = assign_papers(snapshot, fresh, later_embeddings[rows])
        for paper in fresh:
            for node_id in ancestors(snapshot, assignment[paper.paper_id]):
                monthly[node_id][month_key(paper.announced)] += 1
    return {node_id: dict(sorted(counts.items())) for node_id, counts in monthly.items()}


def label_all_nodes(snapshot: Snapshot, monthly: dict[str, dict[str, int]], reference_monthly: dict[str, int],
                    window: tuple[date, date], baseline: tuple[date, date],
                    rules: TrajectoryRules | None = None) -> dict[str, TrajectoryMeasure]:
    """Trajectory measure of every node (children's monthly counts feed the fragmenting rule)."""
    rules = rules or TrajectoryRules.load()
    measures: dict[str, TrajectoryMeasure] = {}
    for node in snapshot.nodes:
        children = [monthly[child.node_id] for child in snapshot.children(node.node_id)]
        measures[node.node_id] = measure_trajectory(monthly[node.node_id], reference_monthly, window,
                                                    baseline, rules, children or None)
    return measures
