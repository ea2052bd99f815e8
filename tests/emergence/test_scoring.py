"""AUC and precision@k with ties, and their bootstrap intervals."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import roc_auc_score

from foresci.emergence.scoring import RankedScores, auc_difference, score_pairs


def test_auc_matches_scikit_learn_with_ties() -> None:
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 6, 500).astype(float)  # many ties
    labels = rng.random(500) < 0.2 + 0.1 * scores
    ranked = RankedScores(scores, labels)
    assert abs(ranked.auc(np.ones(500)) - roc_auc_score(labels, scores)) < 1e-12


def test_weighted_auc_equals_auc_of_repeated_rows() -> None:
    rng = np.random.default_rng(4)
    scores = rng.normal(size=200)
    labels = rng.random(200) < 0.3
    weights = rng.integers(0, 3, 200)
    repeated = np.repeat(np.arange(200), weights)
    expected = roc_auc_score(labels[repeated], scores[repeated])
    assert abs(RankedScores(scores, labels).auc(weights.astype(float)) - expected) < 1e-12


def test_precision_at_k_takes_the_tied_group_at_its_positive_share() -> None:
    scores = np.array([5.0, 4.0, 3.0, 3.0, 3.0, 3.0, 1.0])
    labels = np.array([True, False, True, True, False, False, True])
    ranked = RankedScores(scores, labels)
    ones = np.ones(7)
    assert ranked.precision_at(2, ones) == 0.5
    assert ranked.precision_at(4, ones) == (1 + 0 + 2 * 0.5) / 4  # two of four tied slots, half positive
    assert ranked.precision_at(100, ones) == 4 / 7  # k above the pairs: all of them


def test_bootstrap_interval_brackets_the_point_and_separates_signal_from_noise() -> None:
    rng = np.random.default_rng(5)
    labels = rng.random(2000) < 0.1
    good = score_pairs(labels + rng.normal(0, 0.5, 2000), labels, [100], 100, 1)["auc"]
    assert good.low is not None and good.high is not None
    assert 0.8 < good.low <= good.value <= good.high
    positives, negatives = int(labels.sum()), int((~labels).sum())
    null_sd = np.sqrt((positives + negatives + 1) / (12 * positives * negatives))  # Mann–Whitney under H0
    widths = []
    for seed in range(10):
        bad = score_pairs(np.random.default_rng(seed).normal(size=2000), labels, [], 100, seed)["auc"]
        assert bad.low is not None and bad.high is not None
        widths.append((bad.high - bad.low) / 3.92)
    assert 0.8 * null_sd < float(np.mean(widths)) < 1.2 * null_sd


def test_paired_auc_difference() -> None:
    rng = np.random.default_rng(6)
    labels = rng.random(1000) < 0.2
    strong, weak = labels + rng.normal(0, 0.4, 1000), labels + rng.normal(0, 2.0, 1000)
    lift = auc_difference(strong, weak, labels, 100, 2)
    expected = roc_auc_score(labels, strong) - roc_auc_score(labels, weak)
    assert abs(lift.value - expected) < 1e-12
    assert lift.low is not None and lift.low > 0
    same = auc_difference(strong, strong, labels, 20, 2)
    assert same.value == same.low == same.high == 0.0


def test_concept_bootstrap_weighs_a_pair_by_its_concepts_draws() -> None:
    from foresci.emergence.scoring import resample_weights

    concepts = np.asarray([[0, 1], [0, 2], [1, 2], [3, 4]])
    weights = resample_weights(4, np.random.default_rng(5), concepts)
    drawn = np.bincount(np.random.default_rng(5).integers(0, 5, 5), minlength=5).astype(float)
    assert weights.tolist() == [drawn[a] * drawn[b] for a, b in concepts.tolist()]
    assert resample_weights(4, np.random.default_rng(5)).sum() == 4  # pairs: as many draws as pairs


def test_concept_bootstrap_is_wider_when_positives_cluster_on_concepts() -> None:
    """Positives that all hang on a few concepts: resampling concepts (which drops or doubles a hub and
    all its pairs) gives a wider AUC interval than resampling pairs, which treats them as independent."""
    from foresci.emergence.scoring import score_pairs

    rng = np.random.default_rng(3)
    pairs = np.asarray([(a, b) for a in range(60) for b in range(a + 1, 60)])
    lift = np.zeros(60)
    lift[:4] = [1.5, 1.0, 0.0, -0.5]  # a score ranks each hub's pairs well or badly: hubs decide the AUC
    hub = pairs[:, 0] < 4
    labels = hub & (rng.random(len(pairs)) < 0.6)
    scores = rng.random(len(pairs)) + lift[pairs[:, 0]] * labels
    by_pairs = score_pairs(scores, labels, [], 200, 1)["auc"]
    by_concepts = score_pairs(scores, labels, [], 200, 1, pairs)["auc"]
    assert by_pairs.value == by_concepts.value  # the point estimate does not depend on the resampling
    width = lambda interval: interval.high - interval.low  # noqa: E731
    assert width(by_concepts) > 1.5 * width(by_pairs)
