"""An emergence set: the snapshot at a cutoff (vocabulary, network, candidates, features) and the window
targets of its candidates.

:func:`snapshot_at` reads only the papers announced on or before the cutoff (it drops any later one it is
handed); :func:`emergence_set` reads the window papers with the snapshot's vocabulary to count, for each
candidate, the window papers that use both of its concepts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np
import scipy.sparse as sp

from foresci.emergence.candidates import Candidates, candidate_pairs, pair_counts, positives
from foresci.emergence.concepts import ConceptPaper, Vocabulary
from foresci.emergence.config import EmergenceSettings
from foresci.emergence.domain_network import CutoffNetwork, cutoff_network
from foresci.emergence.features import PairFeatures, pair_features
from foresci.emergence.months import shift_months as shift_months  # re-exported: callers import it here
from foresci.emergence.network import ConceptNetwork, cooccurrence, incidence


@dataclass(frozen=True)
class Snapshot:
    """Everything concept emergence knows at a cutoff, from papers announced on or before it."""

    cutoff: date
    vocabulary: Vocabulary
    network: ConceptNetwork
    candidates: Candidates
    features: PairFeatures
    paper_concepts: sp.csr_matrix  # (papers up to the cutoff, concepts), announcement order
    titles: tuple[str, ...]  # those papers' titles, same order
    paper_ids: tuple[str, ...]  # and their ids

    def digests(self) -> dict[str, str]:
        """Content hashes of vocabulary, network, candidates and features (the leakage test's bytes)."""
        import hashlib

        return {
            "vocabulary": hashlib.sha256(self.vocabulary.to_json().encode("utf-8")).hexdigest(),
            "network": self.network.digest(),
            "candidates": hashlib.sha256(self.candidates.pairs.tobytes()
                                         + str(self.candidates.total).encode()).hexdigest(),
            "features": self.features.digest(),
        }


NameEmbedder = Callable[[Sequence[str]], np.ndarray]
"""Vectors of concept names ((n, d), one row per name): the KB's embedder, for a pair's semantic closeness."""


def snapshot_at(papers: Sequence[ConceptPaper], cutoff: date, recent_months: int,
                settings: EmergenceSettings, limit: int | None = None,
                embed: NameEmbedder | None = None, vocabulary: Vocabulary | None = None) -> Snapshot:
    """The snapshot at ``cutoff`` from ``papers`` announced on or before it (later papers are dropped).

    ``recent_months`` sets the span before the cutoff whose papers count as recent (a feature);
    ``limit`` caps the candidates (default ``targets.max_candidates``, a seeded uniform sample above it);
    ``embed`` gives the concept names' vectors (without it the semantic closeness feature is 0);
    ``vocabulary`` replaces the one mined at ``cutoff`` (the learned baseline's training snapshot reads its
    application cutoff's concepts, known at that later cutoff).
    """
    return snapshot_of(cutoff_network(papers, cutoff, recent_months, settings, vocabulary), settings, limit,
                       embed)


def snapshot_of(base: CutoffNetwork, settings: EmergenceSettings, limit: int | None = None,
                embed: NameEmbedder | None = None) -> Snapshot:
    """The snapshot of a network at a cutoff (:func:`foresci.emergence.domain_network.cutoff_network`):
    its candidate pairs (``limit``: as in :func:`snapshot_at`) and their features."""
    network, vocabulary = base.network, base.vocabulary
    targets = settings.targets
    candidates = candidate_pairs(network, limit or targets.max_candidates, targets.sample_seed)
    vectors = np.asarray(embed(list(vocabulary.names)), dtype=np.float64) \
        if embed and len(vocabulary) else None
    return Snapshot(cutoff=base.cutoff, vocabulary=vocabulary, network=network, candidates=candidates,
                    features=pair_features(network, candidates.pairs, vectors),
                    paper_concepts=base.paper_concepts, titles=tuple(paper.title for paper in base.papers),
                    paper_ids=tuple(paper.paper_id for paper in base.papers))


@dataclass(frozen=True)
class EmergenceSet:
    """A snapshot and, for each candidate, the window papers using both concepts."""

    snapshot: Snapshot
    window_end: date
    window_papers: int
    counts: np.ndarray

    def labels(self, min_papers: int) -> np.ndarray:
        """(n,) bool: candidates co-occurring in at least ``min_papers`` window papers."""
        return positives(self.counts, min_papers)


def window_counts(snapshot: Snapshot, window: Sequence[ConceptPaper]) -> np.ndarray:
    """Window papers using both concepts of each candidate, read with the snapshot's vocabulary."""
    together = cooccurrence(incidence(window, snapshot.vocabulary))
    return pair_counts(together, snapshot.candidates.pairs)


def emergence_set(papers: Sequence[ConceptPaper], cutoff: date, window_end: date, settings: EmergenceSettings,
                  limit: int | None = None, embed: NameEmbedder | None = None,
                  vocabulary: Vocabulary | None = None) -> EmergenceSet:
    """The snapshot at ``cutoff`` and its targets in ``(cutoff, window_end]`` (papers after that ignored)."""
    months = (window_end.year - cutoff.year) * 12 + window_end.month - cutoff.month
    snapshot = snapshot_at(papers, cutoff, max(months, 1), settings, limit, embed, vocabulary)
    window = [paper for paper in papers if cutoff < paper.announced <= window_end]
    return EmergenceSet(snapshot=snapshot, window_end=window_end, window_papers=len(window),
                        counts=window_counts(snapshot, window))
