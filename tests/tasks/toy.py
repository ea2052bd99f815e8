"""A small hand-built world for task-builder tests: a snapshot, papers and their node assignment.

Planted dynamics (window = the months after the 2025-12-31 cutoff):
- ``n_glim`` (largest before the cutoff) holds steady; ``n_vorp`` triples its share (accelerating);
  ``n_quel`` collapses (cooling); ``n_sarn`` holds steady; ``n_dask`` splits: its three children share its
  papers evenly after the cutoff but one child held nearly everything before (fragmenting).
- Bottleneck signals: ``n_vorp`` pre-cutoff papers report "flux drift instability" (and a frequent but
  static "token budget overrun"); window papers reduce flux drift and open "zorbic lattice meshing".
- Venues: ``n_vorp`` papers go to CVPR/ICCV/ECCV first, then ICLR/ICML/NeurIPS; ``n_glim`` to ACL.
"""

from __future__ import annotations

import random
from datetime import date

from foresci.kb.models import Paper
from foresci.taxonomy.models import Node, Signal, Snapshot

CUTOFF = date(2025, 12, 31)
MONTHS = [f"2025-{month:02d}" for month in range(1, 13)] + [f"2026-{month:02d}" for month in range(1, 7)]

# node id -> (label, parent, pre-cutoff monthly rate, window monthly rate, venue order)
PLAN: dict[str, tuple[str, str | None, int, int, list[str]]] = {
    "n_glim": ("glim sparse routing", None, 30, 30, ["ACL/EMNLP/NAACL", "AAAI/IJCAI"]),
    "n_vorp": ("vorp spectral adapters", None, 10, 30, ["CVPR/ICCV/ECCV", "ICLR/ICML/NeurIPS"]),
    "n_quel": ("quel memory caching", None, 20, 5, ["SIGIR/KDD", "ACL/EMNLP/NAACL"]),
    "n_sarn": ("sarn reward shaping", None, 14, 14, ["ICLR/ICML/NeurIPS", "AAAI/IJCAI"]),
    "n_dask": ("dask planning agents", None, 0, 0, ["AAAI/IJCAI", "ICLR/ICML/NeurIPS"]),
    "n_dask_a": ("dask tree search", "n_dask", 12, 6, ["AAAI/IJCAI", "ICLR/ICML/NeurIPS"]),
    "n_dask_b": ("dask world models", "n_dask", 1, 6, ["AAAI/IJCAI", "ICLR/ICML/NeurIPS"]),
    "n_dask_c": ("dask tool graphs", "n_dask", 1, 6, ["AAAI/IJCAI", "ICLR/ICML/NeurIPS"]),
}
FILLER = ("We study benchmarks with careful ablations across settings and report consistent gains over "
          "strong baselines on standard suites.")


def _abstract(node_id: str, label: str, after_cutoff: bool, rng: random.Random) -> str:
    sentences = [f"We present a {label} technique.", FILLER]
    if node_id == "n_vorp":
        if after_cutoff and rng.random() < 0.7:
            sentences.append("By reducing flux drift instability we enable zorbic lattice meshing at scale.")
        elif not after_cutoff:
            if rng.random() < 0.3:
                sentences.append("However, the approach remains limited by flux drift instability.")
            if rng.random() < 0.6:
                sentences.append("Training also suffers from token budget overrun.")
    if node_id == "n_quel" and not after_cutoff and rng.random() < 0.3:
        sentences.append("However, it remains limited by cache eviction thrash.")
    if node_id == "n_vorp" and after_cutoff and rng.random() < 0.4:
        sentences.append("Training also suffers from token budget overrun.")
    return " ".join(sentences)


def toy_world(seed: int = 3) -> tuple[Snapshot, list[Paper], dict[str, str]]:
    """Return (snapshot at CUTOFF, papers Jan 2025 - Jun 2026, paper_id -> leaf node id)."""
    rng = random.Random(seed)
    papers: list[Paper] = []
    assignment: dict[str, str] = {}
    counter = 0
    for month in MONTHS:
        year, number = (int(part) for part in month.split("-"))
        after = date(year, number, 1) > CUTOFF
        for node_id, (label, _parent, pre_rate, post_rate, venues) in PLAN.items():
            for index in range(post_rate if after else pre_rate):
                counter += 1
                venue = venues[0] if rng.random() < 0.75 else venues[1]
                paper = Paper(paper_id=f"t{counter:05d}", title=f"{label.title()} study {index}",
                              abstract=_abstract(node_id, label, after, rng), categories=["cs.LG"],
                              announced=date(year, number, 1 + index % 27),
                              venue_family=venue if rng.random() < 0.5 else None)
                papers.append(paper)
                assignment[paper.paper_id] = node_id
    papers.sort(key=lambda paper: (paper.announced, paper.paper_id))
    nodes = []
    for node_id, (label, parent, _pre, _post, _venues) in PLAN.items():
        signals = []
        if node_id == "n_vorp":
            signals = [Signal(kind="bottleneck", text="flux drift instability", count=30,
                              first_seen=date(2025, 2, 1)),
                       Signal(kind="bottleneck", text="token budget overrun", count=70,
                              first_seen=date(2025, 1, 5))]
        if node_id == "n_quel":
            signals = [Signal(kind="bottleneck", text="cache eviction thrash", count=20,
                              first_seen=date(2025, 3, 1))]
        nodes.append(Node(node_id=node_id, label=label, parent_id=parent, depth=0 if parent is None else 1,
                          key_terms=label.split(), first_seen=date(2025, 1, 1), signals=signals))
    snapshot = Snapshot(domain="toy", cutoff=CUTOFF, nodes=nodes)
    return snapshot, papers, assignment


def with_centroids(snapshot: Snapshot) -> Snapshot:
    """Give every node a one-hot centroid (parents: the normalised sum of their children's)."""
    dimension = len(snapshot.nodes)
    index = {node.node_id: position for position, node in enumerate(snapshot.nodes)}
    nodes = []
    for node in snapshot.nodes:
        children = [child.node_id for child in snapshot.nodes if child.parent_id == node.node_id]
        members = children or [node.node_id]
        vector = [0.0] * dimension
        for member in members:
            vector[index[member]] = 1.0 / len(members) ** 0.5
        nodes.append(node.model_copy(update={"centroid": vector}))
    return snapshot.model_copy(update={"nodes": nodes})


class ToyKB:
    """The part of the KnowledgeBase API the tasks code reads, over the toy world (optionally truncated)."""

    def __init__(self, until: date | None = None, seed: int = 3) -> None:
        snapshot, papers, assignment = toy_world(seed)
        self.snapshot = with_centroids(snapshot)
        self._papers = [paper for paper in papers if until is None or paper.announced <= until]
        index = {node.node_id: position for position, node in enumerate(self.snapshot.nodes)}
        self._rows = {paper.paper_id: index[assignment[paper.paper_id]] for paper in self._papers}
        self.domains = ["toy"]
        self.max_date = until or date(2026, 6, 30)
        self.fingerprint = f"toy-{until}"
        self.path = "toy"

    def papers(self, until: date | None = None, since: date | None = None, domain: str | None = None,
               statuses: tuple[str, ...] = ("core", "support")) -> list[Paper]:
        """Papers in [since, until], announcement order."""
        return [paper for paper in self._papers if (until is None or paper.announced <= until)
                and (since is None or paper.announced >= since)]

    def embeddings(self, paper_ids: list[str]):  # type: ignore[no-untyped-def]
        """One-hot rows at each paper's leaf."""
        import numpy as np

        matrix = np.zeros((len(paper_ids), len(self.snapshot.nodes)), dtype=np.float32)
        for row, paper_id in enumerate(paper_ids):
            matrix[row, self._rows[paper_id]] = 1.0
        return matrix
