"""The growing tree behind induction: routing papers to leaves, width and depth expansion (TaxoAdapt).

Pure numpy state over paper *indices* (positions in the chronologically sorted input); turning the
state into :class:`~foresci.taxonomy.models.Node` records is :mod:`foresci.taxonomy.evidence`'s job.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np

from foresci.taxonomy.cluster import choose_k, spherical_kmeans
from foresci.taxonomy.config import TaxonomySettings

ROOT = ""  # key of the (implicit) root in parent maps; top-level nodes have parent_id None


@dataclass
class GrowingNode:
    """A node under construction."""

    node_id: str
    parent_id: str | None
    depth: int
    created_slice: int
    created_at: date
    event: str
    parents: list[str] = field(default_factory=list)
    members: list[int] = field(default_factory=list)  # paper indices; only leaves hold papers


def node_id_for(domain: str, founding_ids: Sequence[str]) -> str:
    """A stable node id: a hash of the domain and the ids of the papers that founded the node."""
    digest = hashlib.sha1(f"{domain}|{','.join(sorted(founding_ids))}".encode()).hexdigest()
    return f"n{digest[:10]}"


class GrowingTree:
    """Leaves own papers; internal nodes own the union of their descendants."""

    def __init__(self, domain: str, paper_ids: Sequence[str], embeddings: np.ndarray,
                 settings: TaxonomySettings) -> None:
        self.domain = domain
        self.paper_ids = list(paper_ids)
        self.embeddings = embeddings
        self.settings = settings
        self.nodes: dict[str, GrowingNode] = {}
        self.poor: dict[str, set[int]] = {}
        self._seed_counter = 0
        self.coverage = settings.coverage_threshold if settings.coverage_threshold is not None else 0.0

    # -- structure -------------------------------------------------------------------------------
    def children(self, parent_id: str | None) -> list[str]:
        """Ids of the children of ``parent_id`` (None: top level), in creation order."""
        return [node.node_id for node in self.nodes.values() if node.parent_id == parent_id]

    def is_leaf(self, node_id: str) -> bool:
        """True when the node has no children."""
        return not any(node.parent_id == node_id for node in self.nodes.values())

    def subtree_members(self, node_id: str) -> list[int]:
        """Paper indices of the node and all its descendants, ascending."""
        node = self.nodes[node_id]
        gathered = list(node.members)
        for child in self.children(node_id):
            gathered.extend(self.subtree_members(child))
        return sorted(gathered)

    def centroid(self, node_id: str) -> np.ndarray:
        """Unit-length mean embedding of the node's papers."""
        members = self.subtree_members(node_id)
        vector = self.embeddings[members].sum(axis=0)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0 else vector

    def _next_seed(self) -> int:
        self._seed_counter += 1
        return self.settings.seed * 1_000_003 + self._seed_counter

    def _create(self, members: Sequence[int], parent_id: str | None, slice_index: int, slice_end: date,
                event: str, parents: list[str]) -> GrowingNode:
        depth = 0 if parent_id is None else self.nodes[parent_id].depth + 1
        founding = [self.paper_ids[index] for index in members]
        node_id = node_id_for(self.domain, founding)
        node = GrowingNode(node_id=node_id, parent_id=parent_id, depth=depth, created_slice=slice_index,
                           created_at=slice_end, event=event, parents=parents, members=sorted(members))
        self.nodes[node_id] = node
        return node

    def _cluster(self, members: list[int], k: int, k_low: int | None = None) -> list[list[int]]:
        """Cluster papers into <= ``k`` groups of >= min_node_papers (small groups rejoin the nearest).

        With ``k_low``, the number of groups is chosen in [k_low, k] by silhouette.
        """
        vectors = self.embeddings[members]
        if k_low is not None and k_low < k:
            k, labels = choose_k(vectors, k_low, k, self._next_seed(), self.settings.kmeans_iterations)
        else:
            labels = spherical_kmeans(vectors, k, self._next_seed(), self.settings.kmeans_iterations)
        groups = [[members[row] for row in np.flatnonzero(labels == label)] for label in range(k)]
        kept = [group for group in groups if len(group) >= self.settings.min_node_papers]
        if len(kept) < 1:
            return [sorted(members)]
        orphans = [index for group in groups if len(group) < self.settings.min_node_papers for index in group]
        if orphans:
            centres = np.stack([_unit(self.embeddings[group].sum(axis=0)) for group in kept])
            nearest = np.argmax(self.embeddings[orphans] @ centres.T, axis=1)
            for index, target in zip(orphans, nearest, strict=True):
                kept[int(target)].append(index)
        return [sorted(group) for group in kept]

    # -- growth ----------------------------------------------------------------------------------
    def seed(self, members: list[int], slice_index: int, slice_end: date) -> None:
        """Create the top level from the first slice's papers."""
        settings = self.settings
        most = max(1, min(settings.max_top_level, len(members) // max(1, settings.min_node_papers)))
        fewest = min(most, max(settings.min_top_level, round(len(members) / settings.top_level_size)))
        groups = self._cluster(members, most, k_low=fewest)
        for group in groups:
            self._create(group, None, slice_index, slice_end, "seed", [])
        if settings.coverage_threshold is None:
            self.coverage = calibrated_coverage(self.embeddings, groups, settings.coverage_margin)

    def add_slice(self, members: list[int], slice_index: int, slice_end: date) -> None:
        """Route a slice's papers, then expand in width and depth where needed."""
        if not members:
            return
        if not self.nodes:
            self.seed(members, slice_index, slice_end)
        else:
            self._route_all(members)
            self._expand_width(slice_index, slice_end)
        self._expand_depth(slice_index, slice_end)

    def _route_all(self, members: list[int]) -> None:
        centroids = {node_id: self.centroid(node_id) for node_id in self.nodes}
        threshold = self.coverage
        for index in members:
            vector = self.embeddings[index]
            parent: str | None = None
            poor_at: str | None = None
            while True:
                kids = self.children(parent)
                if not kids:
                    break
                similarities = np.array([float(centroids[kid] @ vector) for kid in kids])
                best = int(np.argmax(similarities))
                if similarities[best] < threshold and poor_at is None:
                    poor_at = parent if parent is not None else ROOT
                parent = kids[best]
            assert parent is not None
            self.nodes[parent].members.append(index)
            if poor_at is not None:
                self.poor.setdefault(poor_at, set()).add(index)

    def _expand_width(self, slice_index: int, slice_end: date) -> None:
        settings = self.settings
        for parent_key in sorted(self.poor):
            pool = sorted(self.poor[parent_key])
            if len(pool) < settings.min_width_papers:
                continue
            parent_id = None if parent_key == ROOT else parent_key
            if parent_id is not None and self.nodes[parent_id].depth + 1 > settings.max_depth:
                continue
            k = max(1, min(settings.children_per_split, len(pool) // settings.min_width_papers))
            groups = self._cluster(pool, k, k_low=1 if k == 1 else 2)
            used: set[int] = set()
            for group in groups:
                centre = _unit(self.embeddings[group].sum(axis=0))
                cohesion = float(np.mean(self.embeddings[group] @ centre))
                if len(group) < settings.min_width_papers or cohesion < self.coverage:
                    continue
                moving = set(group)
                for node in self.nodes.values():
                    if node.members:
                        node.members = [index for index in node.members if index not in moving]
                self._create(group, parent_id, slice_index, slice_end, "width", [])
                used.update(group)
            self.poor[parent_key] = set(pool) - used
        self._drop_empty_leaves()

    def _drop_empty_leaves(self) -> None:
        """Remove leaves that lost all their papers to new siblings (and parents left empty by that)."""
        while True:
            empty = [node_id for node_id, node in self.nodes.items()
                     if not node.members and self.is_leaf(node_id)]
            if not empty:
                return
            for node_id in empty:
                del self.nodes[node_id]

    def _expand_depth(self, slice_index: int, slice_end: date) -> None:
        settings = self.settings
        changed = True
        while changed:
            changed = False
            for node in list(self.nodes.values()):
                if (not self.is_leaf(node.node_id) or len(node.members) <= settings.max_leaf_papers
                        or node.depth >= settings.max_depth):
                    continue
                k = min(settings.children_per_split, len(node.members) // settings.min_node_papers)
                groups = self._cluster(list(node.members), k, k_low=2)
                if len(groups) < 2 or self._cohesion_gain(node.members, groups) < settings.min_split_gain:
                    continue
                for group in groups:
                    self._create(group, node.node_id, slice_index, slice_end, "depth", [node.node_id])
                node.members = []
                changed = True

    def _cohesion_gain(self, members: list[int], groups: list[list[int]]) -> float:
        """How much closer papers sit to their group's centre than to the parent's (mean cosine)."""
        parent = float(np.mean(self.embeddings[members] @ _unit(self.embeddings[members].sum(axis=0))))
        split = sum(float(np.sum(self.embeddings[group] @ _unit(self.embeddings[group].sum(axis=0))))
                    for group in groups) / max(1, len(members))
        return split - parent

    def leaf_of(self) -> dict[int, str]:
        """Paper index -> id of the leaf that holds it."""
        return {index: node.node_id for node in self.nodes.values() for index in node.members}


def calibrated_coverage(embeddings: np.ndarray, groups: Sequence[Sequence[int]], margin: float) -> float:
    """The coverage threshold calibrated on the seed clustering, in units that do not depend on the model.

    ``own``: median cosine of seed papers to their own node's centre; ``foreign``: median cosine to the
    nearest other node's centre. The threshold is ``foreign + margin * (own - foreign)``: a paper is poorly
    covered when it sits closer to "a paper of another node" than ``margin`` of the way to "a paper of
    this node". Any model whose cosines differ by a shift and scale (anisotropy, temperature) gets the
    same split. With a single seed node there is no "other node"; the 5 % quantile of own cosines is used.
    """
    centres = np.stack([_unit(embeddings[list(group)].sum(axis=0)) for group in groups])
    rows = [index for group in groups for index in group]
    owner = np.asarray([number for number, group in enumerate(groups) for _ in group])
    similarity = embeddings[rows] @ centres.T
    own = similarity[np.arange(len(rows)), owner]
    if len(groups) < 2:
        return float(np.quantile(own, 0.05))
    similarity[np.arange(len(rows)), owner] = -np.inf
    foreign = similarity.max(axis=1)
    own_level, foreign_level = float(np.median(own)), float(np.median(foreign))
    return foreign_level + margin * (own_level - foreign_level)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector
