"""Same-node check: a task's subject, bottleneck and opportunity must belong to one taxonomy node.

Each phrase is embedded with the KB's own model and compared with every node centroid of T(t). A phrase
belongs to the task's node when its closest node within the node's lineage (the node, its ancestors, its
descendants) is at most ``MARGIN`` less similar than its closest node outside it. Without an embedder the
check is reported as not run.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from foresci.tasks.evidence import DomainEvidence, NodeEvidence

MARGIN = 0.05


def _lineage(domain: DomainEvidence, evidence: NodeEvidence) -> set[str]:
    members = set(evidence.subtree)
    parent_of = {node.node_id: node.parent_id for node in domain.snapshot.nodes}
    current = parent_of.get(evidence.node_id)
    while current is not None:
        members.add(current)
        current = parent_of.get(current)
    return members


def node_coherence(domain: DomainEvidence, evidence: NodeEvidence, phrases: dict[str, str]) -> dict[str, Any]:
    """Per phrase: cosine to the node's centroid, the node's rank among all nodes, and whether it belongs;
    ``passed`` is True when every phrase belongs (None when no embedder or centroids are available)."""
    nodes = [node for node in domain.snapshot.nodes if node.centroid is not None]
    if domain.embed is None or not nodes or evidence.node.centroid is None:
        return {"method": "not checked (no embedder or centroids)", "passed": None}
    centroids = np.asarray([node.centroid for node in nodes], dtype=np.float32)
    vectors = np.asarray(domain.embed(list(phrases.values())), dtype=np.float32)
    if vectors.shape[1] != centroids.shape[1]:
        return {"method": "not checked (embedding dimension differs from the centroids')", "passed": None}
    lineage = _lineage(domain, evidence)
    own = next(index for index, node in enumerate(nodes) if node.node_id == evidence.node_id)
    inside = np.asarray([node.node_id in lineage for node in nodes])
    result: dict[str, Any] = {"method": "cosine to node centroids; belongs when the closest node of the "
                                        "task node's lineage is within "
                                        f"{MARGIN} of the closest node outside it"}
    passed = True
    for (role, phrase), vector in zip(phrases.items(), vectors, strict=True):
        similarity = centroids @ vector
        order = np.argsort(-similarity, kind="stable")
        outside = float(similarity[~inside].max()) if (~inside).any() else -1.0
        belongs = float(similarity[inside].max()) >= outside - MARGIN
        rank = int(np.flatnonzero(order == own)[0]) + 1
        result[role] = {"phrase": phrase, "cosine": round(float(similarity[own]), 4), "rank": rank,
                        "belongs": belongs}
        passed = passed and belongs
    result["passed"] = passed
    return result
