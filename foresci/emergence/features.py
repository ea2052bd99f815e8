"""Network features of candidate pairs at a cutoff: the link-prediction baselines and the learned model's
inputs. Everything here reads one :class:`ConceptNetwork` (papers up to its cutoff) and nothing else."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.stats import rankdata

from foresci.emergence.network import ConceptNetwork

BASELINES: tuple[str, ...] = ("preferential_attachment", "common_neighbours", "adamic_adar", "jaccard",
                              "resource_allocation")
FEATURE_NAMES: tuple[str, ...] = (
    "log_preferential_attachment", "log_common_neighbours", "adamic_adar", "jaccard", "resource_allocation",
    "log_min_degree", "log_max_degree", "log_min_frequency", "log_max_frequency", "min_recent_share",
    "max_recent_share",
)
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
        share_left = self.recent_left / np.maximum(self.frequency_left, 1)
        share_right = self.recent_right / np.maximum(self.frequency_right, 1)
        columns = [
            np.log1p(self.baseline("preferential_attachment")), np.log1p(self.common), self.adamic_adar,
            self.baseline("jaccard"), self.resource_allocation, np.log1p(low_degree), np.log1p(high_degree),
            np.log1p(np.minimum(self.frequency_left, self.frequency_right)),
            np.log1p(np.maximum(self.frequency_left, self.frequency_right)),
            np.minimum(share_left, share_right), np.maximum(share_left, share_right),
        ]
        raw = np.stack([np.asarray(column, dtype=np.float64) for column in columns], axis=1)
        if len(raw) == 0:
            return raw
        return rankdata(raw, axis=0) / len(raw)  # percentiles among this cutoff's candidates

    def digest(self) -> str:
        """SHA-256 of the feature matrix (what the leakage test compares)."""
        return hashlib.sha256(np.ascontiguousarray(self.matrix()).tobytes()).hexdigest()


def pair_features(network: ConceptNetwork, pairs: np.ndarray) -> PairFeatures:
    """Degrees, common neighbours, Adamic–Adar and resource allocation of ``pairs`` in ``network``."""
    adjacency = (network.weights > 0).astype(np.float64).tocsr()
    degree = network.degree
    safe = np.maximum(degree, 2).astype(np.float64)  # a common neighbour has degree >= 2
    inverse_log = 1.0 / np.log(safe)
    inverse = 1.0 / safe
    common, adamic, resource = [], [], []
    for start in range(0, len(pairs), _CHUNK):
        chunk = pairs[start:start + _CHUNK]
        shared = sp.csr_matrix(adjacency[chunk[:, 0]].multiply(adjacency[chunk[:, 1]]))
        common.append(np.asarray(shared.sum(axis=1)).ravel())
        adamic.append(shared @ inverse_log)
        resource.append(shared @ inverse)
    empty = np.zeros(0, dtype=np.float64)
    left, right = pairs[:, 0], pairs[:, 1]
    return PairFeatures(
        degree_left=degree[left], degree_right=degree[right],
        common=np.concatenate(common) if common else empty,
        adamic_adar=np.concatenate(adamic) if adamic else empty,
        resource_allocation=np.concatenate(resource) if resource else empty,
        frequency_left=network.frequency[left], frequency_right=network.frequency[right],
        recent_left=network.recent_frequency[left], recent_right=network.recent_frequency[right],
    )
