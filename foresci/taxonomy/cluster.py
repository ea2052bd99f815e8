"""Seeded k-means on unit-length embeddings (cosine geometry), numpy only.

Deterministic: the same vectors, k and seed give the same clusters, whatever the machine.
"""

from __future__ import annotations

import numpy as np


def normalise_rows(vectors: np.ndarray) -> np.ndarray:
    """Return the rows scaled to unit length (zero rows stay zero)."""
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def _plus_plus_init(vectors: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ seeding with cosine distance."""
    count = vectors.shape[0]
    centres = [int(rng.integers(count))]
    distance = 1.0 - vectors @ vectors[centres[0]]
    for _ in range(1, k):
        weights = np.clip(distance, 0.0, None).astype(np.float64)
        total = float(weights.sum())
        chosen = int(rng.integers(count)) if total <= 0 else int(rng.choice(count, p=weights / total))
        centres.append(chosen)
        distance = np.minimum(distance, 1.0 - vectors @ vectors[chosen])
    return vectors[centres].copy()


def spherical_kmeans(vectors: np.ndarray, k: int, seed: int, iterations: int = 40) -> np.ndarray:
    """Cluster unit-length rows into ``k`` groups; return one label per row (labels 0..k-1, by size)."""
    count = vectors.shape[0]
    if k <= 1 or count <= k:
        return np.zeros(count, dtype=np.int64) if k <= 1 else np.arange(count, dtype=np.int64)
    rng = np.random.default_rng(seed)
    centres = _plus_plus_init(vectors, k, rng)
    labels = np.full(count, -1, dtype=np.int64)
    for _ in range(iterations):
        new_labels = np.argmax(vectors @ centres.T, axis=1)
        if np.array_equal(new_labels, labels):
            break
        labels = new_labels
        for cluster in range(k):
            members = vectors[labels == cluster]
            if len(members) == 0:
                similarity = np.max(vectors @ centres.T, axis=1)
                centres[cluster] = vectors[int(np.argmin(similarity))]
                continue
            centre = members.sum(axis=0)
            norm = float(np.linalg.norm(centre))
            centres[cluster] = centre / norm if norm > 0 else centre
    sizes = np.bincount(labels, minlength=k)
    order = sorted(range(k), key=lambda cluster: (-int(sizes[cluster]), cluster))
    remap = np.empty(k, dtype=np.int64)
    for rank, cluster in enumerate(order):
        remap[cluster] = rank
    return remap[labels]


def silhouette(vectors: np.ndarray, labels: np.ndarray) -> float:
    """Mean silhouette coefficient under cosine distance (0 when fewer than two clusters)."""
    clusters = np.unique(labels)
    if len(clusters) < 2:
        return 0.0
    distance = 1.0 - vectors @ vectors.T
    onehot = (labels[:, None] == clusters[None, :]).astype(np.float32)
    sizes = onehot.sum(axis=0)
    sums = distance @ onehot
    own = np.searchsorted(clusters, labels)
    rows = np.arange(len(labels))
    own_size = sizes[own]
    within = np.where(own_size > 1, sums[rows, own] / np.maximum(own_size - 1, 1), 0.0)
    means = sums / sizes[None, :]
    means[rows, own] = np.inf
    nearest = means.min(axis=1)
    score = np.where(own_size > 1, (nearest - within) / np.maximum(np.maximum(nearest, within), 1e-9), 0.0)
    return float(score.mean())


def choose_k(vectors: np.ndarray, low: int, high: int, seed: int, iterations: int = 40,
             sample: int = 2000) -> tuple[int, np.ndarray]:
    """The k in [low, high] with the best silhouette (on a seeded sample of <= ``sample`` rows), labels."""
    best_k, best_labels, best_score = low, spherical_kmeans(vectors, low, seed, iterations), -np.inf
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(len(vectors), size=min(sample, len(vectors)), replace=False))
    for k in range(low, high + 1):
        labels = best_labels if k == low else spherical_kmeans(vectors, k, seed, iterations)
        score = silhouette(vectors[rows], labels[rows])
        if score > best_score + 1e-9:
            best_k, best_labels, best_score = k, labels, score
    return best_k, best_labels
