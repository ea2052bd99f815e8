"""The coverage threshold behind width expansion means the same for any embedding model.

Papers of the seeded directions must count as covered and papers of a direction nobody seeded as poorly
covered, whether the model spreads its vectors over the sphere (isotropic) or packs them into a narrow
cone (anisotropic, as sentence-transformer models do: every cosine high).
"""

from __future__ import annotations

import numpy as np
import pytest

from foresci.taxonomy.config import TaxonomySettings
from foresci.taxonomy.grow import calibrated_coverage


def _cone(vectors: np.ndarray, common: np.ndarray, weight: float) -> np.ndarray:
    """Add a shared component to every vector (anisotropy) and renormalise."""
    packed = vectors + weight * common
    return packed / np.linalg.norm(packed, axis=1, keepdims=True)


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.mark.parametrize("anisotropy", [0.0, 3.0])
def test_threshold_separates_new_directions_from_members_of_seeded_ones(anisotropy: float) -> None:
    rng = np.random.default_rng(5)
    dimension, per_topic = 64, 80
    centres = rng.normal(size=(4, dimension))
    common = rng.normal(size=dimension)

    def sample(topic: int, count: int) -> np.ndarray:
        return _unit(centres[topic] + rng.normal(size=(count, dimension)) * 0.9)

    seed_vectors = np.vstack([sample(topic, per_topic) for topic in range(3)])
    later_members = np.vstack([sample(topic, 40) for topic in range(3)])
    newcomers = sample(3, 40)
    everything = _cone(np.vstack([seed_vectors, later_members, newcomers]), common, anisotropy)
    groups = [list(range(topic * per_topic, (topic + 1) * per_topic)) for topic in range(3)]
    threshold = calibrated_coverage(everything, groups, margin=TaxonomySettings().coverage_margin)

    seeded = everything[: 3 * per_topic]
    centroids = _unit(np.stack([seeded[group].sum(axis=0) for group in groups]))
    best = (everything @ centroids.T).max(axis=1)
    members_best = best[3 * per_topic: 3 * per_topic + 120]
    newcomers_best = best[3 * per_topic + 120:]
    assert np.mean(members_best < threshold) <= 0.01  # ordinary papers are not "poorly covered"
    assert np.all(newcomers_best < threshold)  # a direction nobody seeded is
