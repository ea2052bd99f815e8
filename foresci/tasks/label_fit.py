"""Whether an option's name says what its node's papers are, by the KB's own embedder (#44).

Each option a direction or planning task could offer is read through its node's most central papers
(``representative_ids``, title + abstract): every such paper is embedded with the KB's model and compared
with the names of every node that could be an option (the domain's eligible nodes, umbrella names left out),
the names of the node's own lineage (the node, its ancestors, its descendants) counting as its own. A paper
*votes* for its own name when no other name is nearer by more than :data:`MARGIN`. A name does not fit its
node when its most central paper is nearer another name by more than :data:`MARGIN`, or fewer than two of
its :data:`CENTRAL` central papers vote for it ("generative adversarial networks" whose most central paper,
"PixelFlow: Pixel-Space Generative Models with Flow", is 0.08 nearer "text-to-image generation" on the real
2025-12-31 KB). The cosine of the name with its node's centroid and with the best other centroid is recorded
beside the votes.

Without an embedder (``DomainEvidence.embed`` None) nothing is judged (:func:`label_fits` returns {}) and
the word-share check of :mod:`foresci.tasks.release_checks` stands in.

Central papers can fit a name their node does not: "low-resource languages" on the real 2025-12-31 KB is a
619-paper bucket of generic fine-tuning papers whose five central papers the embedder still reads as
nearest that name. :func:`bucket_reason` reads all the node's pre-cutoff papers instead: a name is a
*generic bucket* when its words are in fewer than :data:`BUCKET_SHARE` of the node's papers and in fewer
than :data:`BUCKET_LIFT` times the share of the domain's papers (9 % against 5.4 % there; "small language
models" 15 % against 10.8 %). A name that is rare in its node's papers but concentrated there is kept
("computer-use agents" 8 % against 1.7 %, "image restoration" 14 % against 2.6 %: their papers use other
words for the same topic).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

CENTRAL = 5
"""Central papers read per node."""
MARGIN = 0.05
"""Cosine by which another name may be nearer a central paper before the paper stops voting for its own."""
MIN_VOTE_SHARE = 0.4
"""Share of the central papers that must vote for the name (2 of 5)."""
BUCKET_SHARE = 0.2
"""Share of the node's pre-cutoff papers holding the name's words under which the name may be a bucket's."""
BUCKET_LIFT = 2.0
"""How many times the domain's share of the name's words the node's share must reach (under it, the node's
papers name it hardly more often than the domain's: the name says nothing about the node)."""


@dataclass(frozen=True)
class LabelFit:
    """One node's name against its central papers: papers voting for it, papers read, the name its most
    central paper is nearest to and by how much that name is nearer than its own (``first_gap``), and the
    name's cosine with its own centroid and the best other one."""

    name: str
    votes: int
    papers: int
    first_nearest: str
    first_gap: float
    first_title: str = ""
    centroid_own: float = 0.0
    centroid_other: float = 0.0

    @property
    def fits(self) -> bool:
        """False when the most central paper is nearer another name by more than :data:`MARGIN` or fewer than
        :data:`MIN_VOTE_SHARE` of the central papers vote for this one."""
        return self.papers == 0 or (self.first_gap <= MARGIN and self.votes >= MIN_VOTE_SHARE * self.papers)

    def detail(self) -> str:
        """One line for the manifest and the audit."""
        return (f"'{self.name}': its most central paper '{self.first_title[:80]}' is nearer "
                f"'{self.first_nearest}' (by {self.first_gap:+.2f}); {self.votes} of {self.papers} central "
                f"papers vote for its own name (centroid cosine {self.centroid_own:.2f}, best other "
                f"{self.centroid_other:.2f})")

    def record(self) -> dict[str, Any]:
        """What a hidden target stores per option (``stats.label_fit``)."""
        return {"votes": self.votes, "papers": self.papers, "first_nearest": self.first_nearest,
                "first_gap": round(self.first_gap, 3), "centroid_own": round(self.centroid_own, 3),
                "centroid_other": round(self.centroid_other, 3)}


def bucket_reason(name: str, paper_ids: Sequence[str], index: Any) -> str | None:
    """Why ``name`` is a generic bucket's (None: it is not): its words (every specific stem, by ``index``, a
    :class:`~foresci.tasks.text_index.TextIndex` of the domain's pre-cutoff papers) in fewer than
    :data:`BUCKET_SHARE` of ``paper_ids`` (the node's pre-cutoff papers) and fewer than :data:`BUCKET_LIFT`
    times their share of the domain's papers."""
    own = index.word_share(name, paper_ids)
    if own >= BUCKET_SHARE or not own:
        return None
    domain = index.word_share(name, list(index.row_of))
    if own >= BUCKET_LIFT * domain:
        return None
    return (f"'{name}': its words in {own:.0%} of its node's papers against {domain:.0%} of the domain's "
            f"(under {BUCKET_SHARE:.0%} and under {BUCKET_LIFT:g}x: a generic bucket)")


_FITS: dict[tuple[Any, ...], dict[str, LabelFit]] = {}
_KEPT = 32


def _lineage(domain: Any, node_id: str) -> set[str]:
    parent_of = {node.node_id: node.parent_id for node in domain.snapshot.nodes}
    members = set(domain.nodes[node_id].subtree) if node_id in domain.nodes else {node_id}
    current = parent_of.get(node_id)
    while current is not None:
        members.add(current)
        current = parent_of.get(current)
    return members


def _unit(vector: Sequence[float] | None, size: int) -> np.ndarray:
    values = np.asarray(vector if vector is not None else np.zeros(size), dtype=np.float32)
    norm = float(np.linalg.norm(values))
    return values / norm if norm else values


def label_fits(domain: Any, pool: Sequence[Any], names: Sequence[str],
               judged: Sequence[str] | None = None) -> dict[str, LabelFit]:
    """node id -> :class:`LabelFit` for the nodes ``judged`` (node ids; default all) of ``pool``
    (NodeEvidence, every node that could be an option) named ``names``; {} without an embedder. Remembered
    per domain, cutoff and pool (the windows and families of one build share it)."""
    if domain.embed is None or not pool:
        return {}
    ids = [item.node_id for item in pool]
    wanted = list(ids if judged is None else [node for node in ids if node in set(judged)])
    key = (domain.domain, domain.cutoff, id(domain.snapshot), tuple(ids), tuple(names), tuple(wanted))
    if key in _FITS:
        return _FITS[key]
    labels = np.asarray(domain.embed(list(names)), dtype=np.float32)
    size = labels.shape[1]
    near = labels @ np.stack([_unit(item.node.centroid, size) for item in pool]).T
    fits: dict[str, LabelFit] = {}
    for position, item in enumerate(pool):
        if item.node_id not in wanted:
            continue
        lineage = _lineage(domain, item.node_id)
        own = np.asarray([other in lineage for other in ids])
        central = [paper for paper in item.node.representative_ids if paper in domain.papers][:CENTRAL]
        votes, first, gap = 0, names[position], 0.0
        if central and (~own).any():
            scores = np.asarray(domain.embed([domain.papers[paper].text for paper in central]),
                                dtype=np.float32) @ labels.T
            gaps = scores[:, ~own].max(axis=1) - scores[:, own].max(axis=1)
            votes = int((gaps <= MARGIN).sum())
            gap = float(gaps[0])
            if gap > 0:
                first = names[int(np.flatnonzero(~own)[int(scores[0, ~own].argmax())])]
        fits[item.node_id] = LabelFit(
            name=names[position], votes=votes, papers=len(central), first_nearest=first, first_gap=gap,
            first_title=domain.papers[central[0]].title if central else "",
            centroid_own=float(near[position, position]),
            centroid_other=float(near[position, ~own].max()) if (~own).any() else 0.0)
    if len(_FITS) >= _KEPT:
        _FITS.pop(next(iter(_FITS)))
    _FITS[key] = fits
    return fits
