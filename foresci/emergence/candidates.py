"""Candidate pairs at a cutoff and their window targets.

A candidate is a concept pair (i < j) unconnected at the cutoff whose two concepts were both used before
it. When there are more than ``limit`` candidates, a uniform random sample of ``limit`` of them is kept:
the sample is drawn from the pre-cutoff candidate list with a fixed seed, so it never depends on the
window (AUC stays unbiased under uniform sampling; precision@k is read at the sample's positive share).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from foresci.emergence.network import ConceptNetwork


@dataclass(frozen=True)
class Candidates:
    """Candidate pairs (rows of ``pairs``: concept columns i < j) and how many there were before sampling."""

    pairs: np.ndarray  # (n, 2) int64
    total: int

    @property
    def sampled(self) -> bool:
        """True when ``pairs`` is a sample of the candidates."""
        return len(self.pairs) < self.total


def candidate_pairs(network: ConceptNetwork, limit: int, seed: int) -> Candidates:
    """The unconnected pairs of used concepts at the network's cutoff (a seeded sample above ``limit``)."""
    used = np.flatnonzero(network.frequency > 0)
    size = len(used)
    connected = network.weights[used][:, used].toarray() > 0
    upper = np.triu(~connected, k=1)
    flat = np.flatnonzero(upper)
    total = len(flat)
    if total > limit:
        chosen = np.random.default_rng(seed).choice(total, size=limit, replace=False)
        flat = flat[np.sort(chosen)]
    pairs = np.stack([used[flat // size], used[flat % size]], axis=1).astype(np.int64) if size else \
        np.zeros((0, 2), dtype=np.int64)
    return Candidates(pairs=pairs, total=total)


def pair_counts(cooccurring: sp.csr_matrix, pairs: np.ndarray) -> np.ndarray:
    """(n,) entry of the (concepts, concepts) matrix ``cooccurring`` at each pair (papers using both)."""
    if len(pairs) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.asarray(cooccurring[pairs[:, 0], pairs[:, 1]]).ravel().astype(np.int64)


def positives(counts: np.ndarray, min_papers: int) -> np.ndarray:
    """(n,) bool: the pair co-occurs in at least ``min_papers`` window papers."""
    return counts >= min_papers
