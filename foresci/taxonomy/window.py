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


def routed_monthly(snapshot: Snapshot, papers: Sequence[Paper],
                   embeddings: np.ndarray) -> dict[str, dict[str, int]]:
    """Per node: monthly counts of ``papers`` routed by :func:`assign_papers` to it or its descendants.

    Route the baseline's papers and the window's papers alike, so both sides of a trajectory are
    counted the same way (a node's stored ``monthly_counts`` reflect incremental growth instead: a
    node created late misses papers that arrived before it existed).
    """
    monthly: dict[str, Counter[str]] = {node.node_id: Counter() for node in snapshot.nodes}
    assignment = assign_papers(snapshot, papers, embeddings)
    chains: dict[str, list[str]] = {}
    for paper in papers:
        leaf = assignment[paper.paper_id]
        chain = chains.setdefault(leaf, ancestors(snapshot, leaf))
        for node_id in chain:
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
