"""AUC and precision@k of pair scores, with percentile bootstrap intervals.

Ties are scored by their expectation under a random order: AUC counts a tied positive–negative pair as
one half, and precision@k takes from the group tied at the k-th place its share of positives. A resample
is a vector of pair weights, so one sort of the scores serves every resample.

What is resampled (``concepts``): pairs that share a concept are not independent (a concept that takes off
makes many of its pairs positive at once), so resampling pairs with replacement gives intervals that are
too narrow. Given each pair's two concept ids, a resample draws the *concepts* with replacement instead
and weighs a pair by the product of its two concepts' multiplicities (the pigeonhole bootstrap for dyadic
data, Owen 2007): a concept drawn twice brings all its pairs twice, one not drawn removes them all.
Without concept ids (``concepts=None``) the pairs are resampled, as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Interval:
    """A point estimate with its 95 % bootstrap interval (``low``/``high`` None without resamples)."""

    value: float
    low: float | None
    high: float | None

    def as_dict(self) -> dict[str, float | None]:
        """{value, low, high} rounded to 4 decimals."""
        return {name: None if number is None else round(float(number), 4)
                for name, number in (("value", self.value), ("low", self.low), ("high", self.high))}


class RankedScores:
    """Scores grouped by value, best first: group g holds the pairs with the g-th highest score."""

    def __init__(self, scores: np.ndarray, labels: np.ndarray) -> None:
        values, inverse = np.unique(-np.asarray(scores, dtype=np.float64), return_inverse=True)
        self.group = inverse.reshape(-1)
        self.groups = len(values)
        self.labels = np.asarray(labels, dtype=bool)

    def _totals(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        positive = np.bincount(self.group, weights=weights * self.labels, minlength=self.groups)
        negative = np.bincount(self.group, weights=weights * ~self.labels, minlength=self.groups)
        return positive, negative

    def auc(self, weights: np.ndarray) -> float:
        """Weighted AUC: P(positive scored above negative) + half P(tie); NaN without both classes."""
        positive, negative = self._totals(weights)
        total_positive, total_negative = positive.sum(), negative.sum()
        if total_positive == 0 or total_negative == 0:
            return float("nan")
        below = total_negative - np.cumsum(negative)  # negatives in lower groups (groups go best first)
        wins = float(np.sum(positive * (below + 0.5 * negative)))
        return wins / float(total_positive * total_negative)

    def precision_at(self, k: int, weights: np.ndarray) -> float:
        """Expected share of positives among the k best-scored pairs (ties taken in random order)."""
        positive, negative = self._totals(weights)
        size = positive + negative
        reach = np.cumsum(size)
        available = float(reach[-1]) if len(reach) else 0.0
        k_eff = min(float(k), available)
        if k_eff <= 0:
            return float("nan")
        boundary = int(np.searchsorted(reach, k_eff, side="left"))
        above = float(positive[:boundary].sum())
        taken = k_eff - (float(reach[boundary - 1]) if boundary else 0.0)
        share = float(positive[boundary] / size[boundary]) if size[boundary] else 0.0
        return (above + taken * share) / k_eff


def _interval(point: float, samples: list[float]) -> Interval:
    finite = [value for value in samples if np.isfinite(value)]
    if not finite:
        return Interval(point, None, None)
    low, high = np.percentile(finite, [2.5, 97.5])
    return Interval(point, float(low), float(high))


def resample_weights(size: int, rng: np.random.Generator, concepts: np.ndarray | None = None) -> np.ndarray:
    """(size,) weights of one bootstrap resample: pairs drawn with replacement, or (``concepts``: (size, 2)
    concept ids of each pair) concepts drawn with replacement, a pair weighing the product of its two
    concepts' draws."""
    if concepts is None:
        return np.bincount(rng.integers(0, size, size), minlength=size).astype(float)
    return ConceptResampler(concepts).weights(rng)


class ConceptResampler:
    """:func:`resample_weights` over concepts with the concepts numbered once (the same draws, faster)."""

    def __init__(self, concepts: np.ndarray) -> None:
        units, inverse = np.unique(np.asarray(concepts).reshape(-1), return_inverse=True)
        self.units = len(units)
        self.pairs = inverse.reshape(-1, 2)

    def weights(self, rng: np.random.Generator) -> np.ndarray:
        """One resample's pair weights."""
        drawn = np.bincount(rng.integers(0, self.units, self.units), minlength=self.units).astype(float)
        return drawn[self.pairs[:, 0]] * drawn[self.pairs[:, 1]]


def _resampler(size: int, concepts: np.ndarray | None) -> Callable[[np.random.Generator], np.ndarray]:
    """A function drawing one resample's weights (as :func:`resample_weights`)."""
    if concepts is None:
        return lambda rng: resample_weights(size, rng)
    return ConceptResampler(concepts).weights


def score_pairs(scores: np.ndarray, labels: np.ndarray, precision_at: list[int], resamples: int,
                seed: int, concepts: np.ndarray | None = None) -> dict[str, Interval]:
    """{"auc": ..., "precision@k": ...} of ``scores`` against ``labels`` with bootstrap intervals
    (``concepts``: each pair's two concept ids, to resample concepts rather than pairs)."""
    ranked = RankedScores(scores, labels)
    ones = np.ones(len(labels))
    points = {"auc": ranked.auc(ones),
              **{f"precision@{k}": ranked.precision_at(k, ones) for k in precision_at}}
    samples: dict[str, list[float]] = {name: [] for name in points}
    rng = np.random.default_rng(seed)
    draw = _resampler(len(labels), concepts)
    for _ in range(resamples if len(labels) else 0):
        weights = draw(rng)
        samples["auc"].append(ranked.auc(weights))
        for k in precision_at:
            samples[f"precision@{k}"].append(ranked.precision_at(k, weights))
    return {name: _interval(point, samples[name]) for name, point in points.items()}


def auc_difference(first: np.ndarray, second: np.ndarray, labels: np.ndarray, resamples: int,
                   seed: int, concepts: np.ndarray | None = None) -> Interval:
    """AUC of ``first`` minus AUC of ``second`` on the same pairs, with a paired bootstrap interval
    (``concepts``: as in :func:`score_pairs`)."""
    one, two = RankedScores(first, labels), RankedScores(second, labels)
    ones = np.ones(len(labels))
    point = one.auc(ones) - two.auc(ones)
    rng = np.random.default_rng(seed)
    draw = _resampler(len(labels), concepts)
    samples = []
    for _ in range(resamples if len(labels) else 0):
        weights = draw(rng)
        samples.append(one.auc(weights) - two.auc(weights))
    return _interval(point, samples)


def degree_strata(size_scores: np.ndarray, strata: int) -> np.ndarray:
    """(n,) stratum of each pair: quantile strata of ``size_scores`` (e.g. d_i * d_j; ties share one)."""
    values = np.asarray(size_scores, dtype=np.float64)
    if len(values) == 0 or strata <= 1:
        return np.zeros(len(values), dtype=np.int64)
    edges = np.unique(np.quantile(values, np.linspace(0, 1, strata + 1)[1:-1]))
    return np.searchsorted(edges, values, side="right").astype(np.int64)


class _Stratified:
    """AUC within each stratum, averaged with weights (positives x negatives of the stratum)."""

    def __init__(self, scores: np.ndarray, labels: np.ndarray, strata: np.ndarray) -> None:
        self.parts = [(np.flatnonzero(strata == stratum), RankedScores(scores[strata == stratum],
                                                                       labels[strata == stratum]))
                      for stratum in np.unique(strata)]
        self.labels = np.asarray(labels, dtype=bool)

    def auc(self, weights: np.ndarray) -> float:
        total, weighted = 0.0, 0.0
        for rows, ranked in self.parts:
            part = weights[rows]
            pairs = float((part * ranked.labels).sum() * (part * ~ranked.labels).sum())
            if pairs > 0:
                total += pairs
                weighted += pairs * ranked.auc(part)
        return weighted / total if total > 0 else float("nan")


def stratified_aucs(methods: dict[str, np.ndarray], labels: np.ndarray, strata: np.ndarray, resamples: int,
                    seed: int, concepts: np.ndarray | None = None,
                    differences: tuple[tuple[str, str], ...] = ()) -> dict[str, Interval]:
    """Degree-stratified AUC of each method (AUC within each stratum, weighted by the stratum's positive x
    negative pairs) and of each ``(first, second)`` difference (key ``first-second``), with bootstrap
    intervals drawn as in :func:`score_pairs` (one resample shared by every method)."""
    labels = np.asarray(labels, dtype=bool)
    scorers = {name: _Stratified(np.asarray(values, dtype=np.float64), labels, strata)
               for name, values in methods.items()}
    ones = np.ones(len(labels))
    points = {name: scorer.auc(ones) for name, scorer in scorers.items()}
    points.update({f"{a}-{b}": points[a] - points[b] for a, b in differences})
    samples: dict[str, list[float]] = {name: [] for name in points}
    rng = np.random.default_rng(seed)
    draw = _resampler(len(labels), concepts)
    for _ in range(resamples if len(labels) else 0):
        weights = draw(rng)
        drawn = {name: scorer.auc(weights) for name, scorer in scorers.items()}
        for name, value in drawn.items():
            samples[name].append(value)
        for a, b in differences:
            samples[f"{a}-{b}"].append(drawn[a] - drawn[b])
    return {name: _interval(point, samples[name]) for name, point in points.items()}
