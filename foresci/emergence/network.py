"""The concept co-occurrence network: papers x concepts incidence and the concept x concept graph.

Both are scipy.sparse CSR matrices. The network of a set of papers counts, for every concept pair, the
papers using both (the diagonal is cleared); a concept's degree is its number of distinct neighbours.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np
import scipy.sparse as sp

from foresci.emergence.concepts import ConceptPaper, Vocabulary


def incidence(papers: Sequence[ConceptPaper], vocabulary: Vocabulary) -> sp.csr_matrix:
    """(papers, concepts) 0/1 matrix: row r marks the vocabulary concepts paper r uses."""
    columns = vocabulary.index()
    indptr = [0]
    indices: list[int] = []
    for paper in papers:
        used = sorted({columns[key] for key in paper.phrases if key in columns})
        indices.extend(used)
        indptr.append(len(indices))
    data = np.ones(len(indices), dtype=np.int32)
    return sp.csr_matrix((data, np.asarray(indices, dtype=np.int32), np.asarray(indptr, dtype=np.int64)),
                         shape=(len(papers), len(vocabulary)))


def cooccurrence(paper_concepts: sp.csr_matrix) -> sp.csr_matrix:
    """(concepts, concepts) papers using both concepts, diagonal cleared, indices sorted."""
    counts = (paper_concepts.T @ paper_concepts).tocsr()
    counts.setdiag(0)
    counts.eliminate_zeros()
    counts.sort_indices()
    return counts.astype(np.int32)


@dataclass(frozen=True)
class ConceptNetwork:
    """The network at a cutoff: co-occurrence counts, each concept's papers and papers in a recent span."""

    cutoff: date
    weights: sp.csr_matrix  # (V, V) papers using both concepts
    frequency: np.ndarray  # (V,) papers using each concept
    recent_frequency: np.ndarray  # (V,) papers using each concept in the recent span before the cutoff
    papers: int  # papers read
    last_read: date | None  # announcement date of the latest paper read
    monthly: np.ndarray | None = None  # (V, GROWTH_BUCKETS) papers per calendar month before the cutoff
    first_seen: np.ndarray | None = None  # (V,) ordinal day of each concept's first paper (0: never used)
    earlier_weights: sp.csr_matrix | None = None  # (V, V) co-occurrence up to cutoff - GROWTH_MONTHS

    @property
    def degree(self) -> np.ndarray:
        """(V,) distinct neighbours of each concept."""
        return np.diff(self.weights.indptr).astype(np.int64)

    def digest(self) -> str:
        """SHA-256 of the network's arrays (what the leakage test compares)."""
        buffer = io.BytesIO()
        growth = {} if self.monthly is None or self.first_seen is None or self.earlier_weights is None else {
            "monthly": self.monthly, "first_seen": self.first_seen, "earlier_data": self.earlier_weights.data,
            "earlier_indices": self.earlier_weights.indices, "earlier_indptr": self.earlier_weights.indptr}
        np.savez(buffer, data=self.weights.data, indices=self.weights.indices, indptr=self.weights.indptr,
                 frequency=self.frequency, recent=self.recent_frequency, **growth)
        header = f"{self.cutoff.isoformat()}|{self.papers}|{self.weights.shape}".encode()
        return hashlib.sha256(header + buffer.getvalue()).hexdigest()


def build_network(papers: Sequence[ConceptPaper], paper_concepts: sp.csr_matrix, cutoff: date,
                  recent_since: date) -> ConceptNetwork:
    """The network of the rows of ``paper_concepts`` whose paper is announced on or before ``cutoff``.

    ``papers`` are the rows' papers in the same order; ``recent_since`` starts the recent span
    (announced after it and on or before the cutoff).
    """
    days = np.asarray([paper.announced.toordinal() for paper in papers], dtype=np.int64)
    visible = days <= cutoff.toordinal()
    rows = paper_concepts[np.flatnonzero(visible)]
    recent_rows = paper_concepts[np.flatnonzero(visible & (days > recent_since.toordinal()))]
    last = date.fromordinal(int(days[visible].max())) if visible.any() else None
    monthly, first_seen, earlier = growth_arrays(days, paper_concepts, cutoff)
    return ConceptNetwork(
        cutoff=cutoff,
        weights=cooccurrence(rows),
        frequency=np.asarray(rows.sum(axis=0)).ravel().astype(np.int64),
        recent_frequency=np.asarray(recent_rows.sum(axis=0)).ravel().astype(np.int64),
        papers=int(visible.sum()),
        last_read=last,
        monthly=monthly,
        first_seen=first_seen,
        earlier_weights=earlier,
    )


GROWTH_BUCKETS = 6
"""Calendar months before the cutoff whose papers per concept the growth features read (bucket b: papers
announced in ``(cutoff - (b + 1) months, cutoff - b months]``)."""
GROWTH_MONTHS = 3
"""The span of 'recent' growth: neighbours and common neighbours gained since ``cutoff - GROWTH_MONTHS``."""


def growth_arrays(days: np.ndarray, paper_concepts: sp.csr_matrix,
                  cutoff: date) -> tuple[np.ndarray, np.ndarray, sp.csr_matrix]:
    """(monthly counts (V, GROWTH_BUCKETS), first-use ordinal (V,), co-occurrence at cutoff - GROWTH_MONTHS)
    of the rows of ``paper_concepts`` announced (``days``: ordinals) on or before ``cutoff``; later rows are
    never read. Fixed spans, whatever the window: a model trained at one cutoff reads the same at another."""
    from foresci.emergence.months import shift_months

    end = cutoff.toordinal()
    visible = days <= end
    bounds = [shift_months(cutoff, -months).toordinal() for months in range(GROWTH_BUCKETS + 1)]
    columns = []
    for bucket in range(GROWTH_BUCKETS):
        inside = visible & (days > bounds[bucket + 1]) & (days <= bounds[bucket])
        columns.append(np.asarray(paper_concepts[np.flatnonzero(inside)].sum(axis=0)).ravel())
    size = paper_concepts.shape[1]
    monthly = np.stack(columns, axis=1).astype(np.int64) if columns else np.zeros((size, 0), np.int64)
    first_seen = np.zeros(size, dtype=np.int64)
    coo = paper_concepts[np.flatnonzero(visible)].tocoo()
    if coo.nnz:
        seen_days = days[np.flatnonzero(visible)][coo.row]
        first = np.full(size, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(first, coo.col, seen_days)
        first_seen = np.where(first == np.iinfo(np.int64).max, 0, first)
    before = visible & (days <= shift_months(cutoff, -GROWTH_MONTHS).toordinal())
    return monthly, first_seen, cooccurrence(paper_concepts[np.flatnonzero(before)])


def link_measure(signals: dict[str, float], score: str) -> float:
    """A link measure of one pair from its stated network signals (``degree_first``, ``degree_second``,
    ``common_neighbours``, ``adamic_adar``, ...): preferential attachment (the degree product), Jaccard
    (shared over all neighbours), or a signal as is (common neighbours, Adamic–Adar, resource allocation)."""
    first, second = signals.get("degree_first", 0.0), signals.get("degree_second", 0.0)
    if score == "preferential_attachment":
        return first * second
    if score == "jaccard":
        common = signals.get("common_neighbours", 0.0)
        union = first + second - common
        return common / union if union > 0 else 0.0
    return signals.get(score, 0.0)
