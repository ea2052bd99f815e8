"""Network features of candidate pairs at a cutoff: the link-prediction baselines and the learned model's
inputs. Everything here reads one :class:`ConceptNetwork` (papers up to its cutoff) and, for the semantic
closeness of a pair, the vectors of the concepts' names (the KB's embedder; a fixed model, no papers).

Beyond degree (baseline II): each concept's papers in the last three calendar months and the three before
(growth and acceleration), its neighbours gained in the last three months, the pair's common neighbours
gained in them, the days since each concept's first paper, and the cosine of the two names' vectors.
Short-span versions read the last calendar month (papers, and the change from the month before), the
days since each concept's first paper capped at :data:`RECENT_AGE_DAYS`, and the last-month papers of
the pair's common neighbours (its neighbourhood's growth): a KB only a few months old covers them at the
training snapshot."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.stats import rankdata

from foresci.emergence.network import GROWTH_BUCKETS, GROWTH_MONTHS, ConceptNetwork

BASELINES: tuple[str, ...] = ("preferential_attachment", "common_neighbours", "adamic_adar", "jaccard",
                              "resource_allocation")
FEATURE_NAMES: tuple[str, ...] = (
    "log_preferential_attachment", "log_common_neighbours", "adamic_adar", "jaccard", "resource_allocation",
    "log_min_degree", "log_max_degree", "log_min_frequency", "log_max_frequency",
    "log_min_growth", "log_max_growth", "min_acceleration", "max_acceleration", "log_min_last_month",
    "log_max_last_month", "log_min_new_neighbours", "log_max_new_neighbours", "min_new_neighbour_share",
    "max_new_neighbour_share", "log_common_neighbours_gained", "log_min_age_days", "log_max_age_days",
    "name_similarity", "min_month_acceleration", "max_month_acceleration", "log_min_recent_age",
    "log_max_recent_age", "log_common_neighbours_activity",
)
HISTORY_MONTHS = 2 * GROWTH_MONTHS
RECENT_AGE_DAYS = 90
"""The cap of the short-span age (``log_*_recent_age``): 'first used within the last 90 days, and when'."""
HISTORY_NEEDED: dict[str, int] = {
    **dict.fromkeys(("log_min_last_month", "log_max_last_month", "log_common_neighbours_activity"), 2),
    **dict.fromkeys(("min_month_acceleration", "max_month_acceleration"), 3),
    **dict.fromkeys(("log_min_growth", "log_max_growth", "log_min_recent_age", "log_max_recent_age"),
                    GROWTH_MONTHS + 1),
    **dict.fromkeys(("min_acceleration", "max_acceleration", "log_min_new_neighbours",
                     "log_max_new_neighbours", "min_new_neighbour_share", "max_new_neighbour_share",
                     "log_common_neighbours_gained", "log_min_age_days", "log_max_age_days"), HISTORY_MONTHS),
}
"""Calendar months of papers (the training snapshot's own, maybe partial, included) a feature that reads
the months before a snapshot needs up to the training snapshot: its span in whole months plus the first,
maybe partial, month. With fewer, a KB that starts later makes every concept look new and growing there,
so the learned baseline leaves it out (``feature_columns``)."""
HISTORY_FEATURES: frozenset[str] = frozenset(HISTORY_NEEDED)
"""Features that read the months before a snapshot (growth, acceleration, neighbours gained, age)."""


def feature_columns(history_months: float, chosen: Sequence[str] | None = None) -> tuple[int, ...]:
    """The columns of :meth:`PairFeatures.matrix` a model trained with ``history_months`` of papers up to
    its training snapshot reads (calendar months holding papers, the snapshot's own included): those
    ``chosen`` (None: all), without the history ones whose :data:`HISTORY_NEEDED` exceeds it. An unknown
    name raises ValueError."""
    unknown = sorted(set(chosen or ()) - set(FEATURE_NAMES))
    if unknown:
        raise ValueError(f"unknown learned feature(s) {', '.join(unknown)}; expected some of "
                         f"{', '.join(FEATURE_NAMES)}")
    return tuple(index for index, name in enumerate(FEATURE_NAMES)
                 if (chosen is None or name in chosen)
                 and history_months >= HISTORY_NEEDED.get(name, 0))


_CHUNK = 20_000  # pairs per sparse product (bounds the memory of the common-neighbour rows)


@dataclass(frozen=True)
class PairFeatures:
    """Per-pair network measures at one cutoff (arrays aligned with the candidate pairs)."""

    degree_left: np.ndarray
    degree_right: np.ndarray
    common: np.ndarray
    adamic_adar: np.ndarray
    resource_allocation: np.ndarray
    frequency_left: np.ndarray
    frequency_right: np.ndarray
    recent_left: np.ndarray
    recent_right: np.ndarray
    growth_left: np.ndarray  # papers in the last GROWTH_MONTHS calendar months before the cutoff
    growth_right: np.ndarray
    previous_left: np.ndarray  # papers in the GROWTH_MONTHS months before those
    previous_right: np.ndarray
    last_month_left: np.ndarray  # papers in the last calendar month before the cutoff
    last_month_right: np.ndarray
    new_degree_left: np.ndarray  # neighbours gained since cutoff - GROWTH_MONTHS
    new_degree_right: np.ndarray
    common_gained: np.ndarray  # common neighbours gained since cutoff - GROWTH_MONTHS
    age_left: np.ndarray  # days from the concept's first paper to the cutoff
    age_right: np.ndarray
    similarity: np.ndarray  # cosine of the two names' vectors (0 without an embedder)
    previous_month_left: np.ndarray | None = None  # papers in the calendar month before the last one
    previous_month_right: np.ndarray | None = None
    common_activity: np.ndarray | None = None  # last-month papers of the pair's common neighbours

    def baseline(self, name: str) -> np.ndarray:
        """The score of baseline ``name`` (one of :data:`BASELINES`, or ``degree``: d_i + d_j)."""
        left = self.degree_left.astype(np.float64)
        right = self.degree_right.astype(np.float64)
        if name == "preferential_attachment":
            return left * right
        if name == "common_neighbours":
            return self.common.astype(np.float64)
        if name == "adamic_adar":
            return self.adamic_adar
        if name == "resource_allocation":
            return self.resource_allocation
        if name == "jaccard":
            union = left + right - self.common
            return np.divide(self.common, union, out=np.zeros_like(left), where=union > 0)
        if name == "degree":
            return left + right
        raise KeyError(f"unknown emergence baseline {name!r}; expected one of {', '.join(BASELINES)}")

    def matrix(self) -> np.ndarray:
        """(n, len(FEATURE_NAMES)) inputs of the learned baseline, each column as percentile ranks among the
        cutoff's candidates: an earlier cutoff's network is smaller, so raw degrees and counts would not
        mean the same at training and at application."""
        low_degree = np.minimum(self.degree_left, self.degree_right)
        high_degree = np.maximum(self.degree_left, self.degree_right)

        def both(left: np.ndarray, right: np.ndarray) -> list[np.ndarray]:
            return [np.minimum(left, right), np.maximum(left, right)]

        def acceleration(recent: np.ndarray, previous: np.ndarray) -> np.ndarray:
            return (recent - previous) / (recent + previous + 1.0)

        def new_share(new: np.ndarray, degree: np.ndarray) -> np.ndarray:
            return new / np.maximum(degree, 1)

        size = len(self.degree_left)
        zeros = np.zeros(size)
        before_left = zeros if self.previous_month_left is None else self.previous_month_left
        before_right = zeros if self.previous_month_right is None else self.previous_month_right
        recent_age = np.minimum(np.stack([self.age_left, self.age_right]), RECENT_AGE_DAYS)
        columns = [
            np.log1p(self.baseline("preferential_attachment")), np.log1p(self.common), self.adamic_adar,
            self.baseline("jaccard"), self.resource_allocation, np.log1p(low_degree), np.log1p(high_degree),
            np.log1p(np.minimum(self.frequency_left, self.frequency_right)),
            np.log1p(np.maximum(self.frequency_left, self.frequency_right)),
            *np.log1p(both(self.growth_left, self.growth_right)),
            *both(acceleration(self.growth_left, self.previous_left),
                  acceleration(self.growth_right, self.previous_right)),
            *np.log1p(both(self.last_month_left, self.last_month_right)),
            *np.log1p(both(self.new_degree_left, self.new_degree_right)),
            *both(new_share(self.new_degree_left, self.degree_left),
                  new_share(self.new_degree_right, self.degree_right)),
            np.log1p(self.common_gained), *np.log1p(both(self.age_left, self.age_right)), self.similarity,
            *both(acceleration(self.last_month_left, before_left),
                  acceleration(self.last_month_right, before_right)),
            *np.log1p(both(recent_age[0], recent_age[1])),
            np.log1p(zeros if self.common_activity is None else self.common_activity),
        ]
        raw = np.stack([np.asarray(column, dtype=np.float64) for column in columns], axis=1)
        if len(raw) == 0:
            return raw
        return rankdata(raw, axis=0) / len(raw)  # percentiles among this cutoff's candidates

    def digest(self) -> str:
        """SHA-256 of the feature matrix (what the leakage test compares)."""
        return hashlib.sha256(np.ascontiguousarray(self.matrix()).tobytes()).hexdigest()


def _common_counts(adjacency: sp.csr_matrix, pairs: np.ndarray) -> np.ndarray:
    """(n,) common neighbours of each pair in the 0/1 ``adjacency``."""
    counts = [np.asarray(sp.csr_matrix(adjacency[chunk[:, 0]].multiply(adjacency[chunk[:, 1]])).sum(axis=1))
              .ravel() for chunk in (pairs[start:start + _CHUNK] for start in range(0, len(pairs), _CHUNK))]
    return np.concatenate(counts) if counts else np.zeros(0, dtype=np.float64)


def name_similarity(vectors: np.ndarray | None, pairs: np.ndarray) -> np.ndarray:
    """(n,) cosine of the two concepts' name vectors (rows of ``vectors``, normalised); zeros without."""
    if vectors is None or len(pairs) == 0:
        return np.zeros(len(pairs), dtype=np.float64)
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return np.einsum("ij,ij->i", unit[pairs[:, 0]], unit[pairs[:, 1]]).astype(np.float64)


def pair_features(network: ConceptNetwork, pairs: np.ndarray,
                  name_vectors: np.ndarray | None = None) -> PairFeatures:
    """Degrees, common neighbours, Adamic–Adar, resource allocation and the growth measures of ``pairs`` in
    ``network`` (``name_vectors``: (V, d) vectors of the concepts' names, for their semantic closeness)."""
    adjacency = (network.weights > 0).astype(np.float64).tocsr()
    degree = network.degree
    safe = np.maximum(degree, 2).astype(np.float64)  # a common neighbour has degree >= 2
    inverse_log = 1.0 / np.log(safe)
    inverse = 1.0 / safe
    size = len(degree)
    monthly = network.monthly if network.monthly is not None else np.zeros((size, GROWTH_BUCKETS), np.int64)
    growth = monthly[:, :GROWTH_MONTHS].sum(axis=1).astype(np.float64)
    previous = monthly[:, GROWTH_MONTHS:2 * GROWTH_MONTHS].sum(axis=1).astype(np.float64)
    last_month = monthly[:, 0].astype(np.float64) if monthly.shape[1] else np.zeros(size)
    month_before = monthly[:, 1].astype(np.float64) if monthly.shape[1] > 1 else np.zeros(size)
    common, adamic, resource, activity = [], [], [], []
    for start in range(0, len(pairs), _CHUNK):
        chunk = pairs[start:start + _CHUNK]
        shared = sp.csr_matrix(adjacency[chunk[:, 0]].multiply(adjacency[chunk[:, 1]]))
        common.append(np.asarray(shared.sum(axis=1)).ravel())
        adamic.append(shared @ inverse_log)
        resource.append(shared @ inverse)
        activity.append(shared @ last_month)
    empty = np.zeros(0, dtype=np.float64)
    left, right = pairs[:, 0], pairs[:, 1]
    earlier = network.earlier_weights if network.earlier_weights is not None else sp.csr_matrix((size, size))
    new_degree = (degree - np.diff(earlier.indptr)).astype(np.float64)
    common_all = np.concatenate(common) if common else empty
    common_before = _common_counts((earlier > 0).astype(np.float64).tocsr(), pairs)
    first = network.first_seen if network.first_seen is not None else np.zeros(size, np.int64)
    age = np.where(first > 0, network.cutoff.toordinal() - first, 0).astype(np.float64)
    return PairFeatures(
        degree_left=degree[left], degree_right=degree[right],
        common=common_all,
        adamic_adar=np.concatenate(adamic) if adamic else empty,
        resource_allocation=np.concatenate(resource) if resource else empty,
        frequency_left=network.frequency[left], frequency_right=network.frequency[right],
        recent_left=network.recent_frequency[left], recent_right=network.recent_frequency[right],
        growth_left=growth[left], growth_right=growth[right], previous_left=previous[left],
        previous_right=previous[right], last_month_left=last_month[left], last_month_right=last_month[right],
        new_degree_left=new_degree[left], new_degree_right=new_degree[right],
        common_gained=np.maximum(common_all - common_before, 0.0), age_left=age[left], age_right=age[right],
        similarity=name_similarity(name_vectors, pairs),
        previous_month_left=month_before[left], previous_month_right=month_before[right],
        common_activity=np.concatenate(activity) if activity else empty,
    )
