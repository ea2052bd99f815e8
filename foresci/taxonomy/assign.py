"""Route any papers (including post-cutoff ones) to a snapshot's leaves by node centroids."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from foresci.kb.models import Paper
from foresci.taxonomy.cluster import normalise_rows
from foresci.taxonomy.models import Snapshot


def assign_papers(snapshot: Snapshot, papers: Sequence[Paper], embeddings: np.ndarray) -> dict[str, str]:
    """Map each paper id to the id of its nearest leaf, descending the tree by centroid similarity.

    Works for papers after the snapshot's cutoff (the tasks builder counts a hidden window this way);
    the snapshot itself is not changed. Raises ValueError if a node lacks a centroid.
    """
    if embeddings.shape[0] != len(papers):
        raise ValueError(f"embeddings have {embeddings.shape[0]} rows for {len(papers)} papers")
    if not papers or not snapshot.nodes:
        return {}
    children: dict[str | None, list[str]] = {}
    centroid_rows: dict[str, int] = {}
    matrix_rows: list[list[float]] = []
    for node in snapshot.nodes:
        if node.centroid is None:
            raise ValueError(f"node {node.node_id} of {snapshot.domain}@{snapshot.cutoff} has no centroid; "
                             "re-induce the taxonomy with this foresci version")
        children.setdefault(node.parent_id, []).append(node.node_id)
        centroid_rows[node.node_id] = len(matrix_rows)
        matrix_rows.append(node.centroid)
    centroids = np.asarray(matrix_rows, dtype=np.float32)
    similarity = normalise_rows(np.asarray(embeddings, dtype=np.float32)) @ centroids.T
    assignment: dict[str, str] = {}
    for row, paper in enumerate(papers):
        parent: str | None = None
        while parent in children or parent is None:
            kids = children.get(parent, [])
            if not kids:
                break
            scores = [similarity[row, centroid_rows[kid]] for kid in kids]
            parent = kids[int(np.argmax(scores))]
        assert parent is not None
        assignment[paper.paper_id] = parent
    return assignment
