"""Node evidence records: turns the growing tree into :class:`Node` records of a :class:`Snapshot`.

Each node gets its supporting and most central papers, monthly and venue-family counts, first/last
seen dates, c-TF-IDF key terms and label, dimension shares, centroid and cohesion.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import date

import numpy as np

from foresci.kb.models import Paper
from foresci.taxonomy.dimensions import DIMENSION_ORDER
from foresci.taxonomy.grow import GrowingTree
from foresci.taxonomy.models import Dimension, Lineage, Node
from foresci.taxonomy.text import TermMatrix, contrastive_weights, label_from_terms, top_terms


def month_key(day: date) -> str:
    """'YYYY-MM' of a date."""
    return f"{day.year:04d}-{day.month:02d}"


def monthly_counts(papers: Sequence[Paper]) -> dict[str, int]:
    """Papers per announcement month, months ascending."""
    counts = Counter(month_key(paper.announced) for paper in papers)
    return dict(sorted(counts.items()))


def preorder(tree: GrowingTree) -> list[str]:
    """Node ids depth-first, parents before children, siblings by size (largest first) then id."""
    ordered: list[str] = []
    sizes = {node_id: len(tree.subtree_members(node_id)) for node_id in tree.nodes}

    def visit(parent_id: str | None) -> None:
        for child in sorted(tree.children(parent_id), key=lambda node_id: (-sizes[node_id], node_id)):
            ordered.append(child)
            visit(child)

    visit(None)
    return ordered


def build_nodes(tree: GrowingTree, papers: Sequence[Paper], terms: TermMatrix,
                primary_dimension: Sequence[Dimension], label_terms: int, key_terms: int,
                representatives: int) -> list[Node]:
    """Evidence records of every node in the tree, in pre-order."""
    order = preorder(tree)
    members = {node_id: tree.subtree_members(node_id) for node_id in order}
    labels = _labels(tree, order, members, terms, label_terms, key_terms)
    nodes: list[Node] = []
    for node_id in order:
        grown = tree.nodes[node_id]
        indices = members[node_id]
        centroid = tree.centroid(node_id)
        similarity = tree.embeddings[indices] @ centroid
        central = [indices[row] for row in np.argsort(-similarity, kind="stable")[:representatives]]
        node_papers = [papers[index] for index in indices]
        dimension_counts = Counter(primary_dimension[index] for index in indices)
        total = max(1, len(indices))
        dimension = max(DIMENSION_ORDER, key=lambda name: (dimension_counts.get(name, 0),
                                                            -DIMENSION_ORDER.index(name)))
        venues = Counter(paper.venue_family for paper in node_papers if paper.venue_family)
        label, kept_terms = labels[node_id]
        nodes.append(Node(
            node_id=node_id, label=label,
            description=f"{len(indices)} papers; most central: {papers[central[0]].title}" if central else "",
            dimension=dimension, parent_id=grown.parent_id, depth=grown.depth, key_terms=kept_terms,
            paper_ids=[paper.paper_id for paper in node_papers],
            representative_ids=[papers[index].paper_id for index in central],
            monthly_counts=monthly_counts(node_papers), venue_counts=dict(sorted(venues.items())),
            first_seen=min(paper.announced for paper in node_papers) if node_papers else None,
            last_seen=max(paper.announced for paper in node_papers) if node_papers else None,
            lineage=Lineage(created_slice=grown.created_slice, created_at=grown.created_at,
                            event=grown.event if grown.event in ("seed", "width", "depth") else "seed",
                            parents=list(grown.parents)),
            centroid=[float(value) for value in centroid.astype(np.float32)],
            dimension_shares={name: round(dimension_counts.get(name, 0) / total, 4)
                              for name in DIMENSION_ORDER},
            cohesion=round(float(similarity.mean()), 4) if len(indices) else None,
        ))
    return nodes


def _labels(tree: GrowingTree, order: list[str], members: dict[str, list[int]], terms: TermMatrix,
            label_terms: int, key_terms: int) -> dict[str, tuple[str, list[str]]]:
    """Labels from terms distinctive of a node against its parent (top level: against all papers)."""
    result: dict[str, tuple[str, list[str]]] = {}
    if not order or not terms.vocabulary:
        return {node_id: ("(unlabelled)", []) for node_id in order}
    group_df = terms.class_document_frequency([members[node_id] for node_id in order])
    row_of = {node_id: row for row, node_id in enumerate(order)}
    all_df = np.asarray((terms.matrix > 0).sum(axis=0), dtype=np.float64).ravel()
    documents = terms.matrix.shape[0]
    for node_id in order:
        parent_id = tree.nodes[node_id].parent_id
        if parent_id is None:
            reference_df, reference_size = all_df, documents
            exclude: frozenset[str] = frozenset()
        else:
            reference_df, reference_size = group_df[row_of[parent_id]], len(members[parent_id])
            exclude = frozenset(word for term in result[parent_id][1][:label_terms]
                                for word in [term, *term.split()])
        weights = contrastive_weights(group_df[row_of[node_id]], len(members[node_id]), reference_df,
                                      reference_size)
        kept = top_terms(weights, terms.vocabulary, key_terms, exclude)
        result[node_id] = (label_from_terms(kept[:label_terms]), kept)
    return result
