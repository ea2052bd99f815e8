"""Resampling statistics over tasks: bootstrap confidence intervals and paired bootstrap p-values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MeanWithInterval:
    """A mean and its percentile-bootstrap 95 % interval over tasks."""

    mean: float
    low: float
    high: float
    n: int


def bootstrap_mean(
    values: Sequence[float], samples: int = 2000, seed: int = 11, level: float = 0.95
) -> MeanWithInterval:
    """Mean of ``values`` with a percentile-bootstrap interval (resampling tasks with replacement)."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("bootstrap_mean needs at least one value")
    mean = float(data.mean())
    if data.size == 1 or samples <= 0:
        return MeanWithInterval(mean=mean, low=mean, high=mean, n=int(data.size))
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, data.size, size=(samples, data.size))
    means = data[picks].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return MeanWithInterval(mean=mean, low=float(low), high=float(high), n=int(data.size))


def cluster_bootstrap_mean(
    clusters: Sequence[Sequence[float]], samples: int = 2000, seed: int = 11, level: float = 0.95,
    equal_weights: bool = False,
) -> MeanWithInterval:
    """Mean over every value with a percentile-bootstrap interval that resamples whole clusters.

    Tasks of one cluster (e.g. one synthetic world, whose direction tasks reuse the same few nodes and
    the same forecast of them) are not independent draws: resampling them one by one understates the
    uncertainty. Each resample draws as many clusters as there are, with replacement, and takes the mean
    over all their values (a ratio estimator, so a cluster weighs by its number of values).

    ``equal_weights``: the mean of the clusters' own means instead, every cluster counting once (when a
    cluster is one replicate and its number of values says nothing about how much it tells, e.g. how
    many option sets of one world passed the task gates); ``n`` still counts values.
    """
    kept = [np.asarray(values, dtype=float) for values in clusters if len(values)]
    if not kept:
        raise ValueError("cluster_bootstrap_mean needs at least one value")
    if equal_weights:
        means = bootstrap_mean([float(values.mean()) for values in kept], samples, seed, level)
        return MeanWithInterval(mean=means.mean, low=means.low, high=means.high,
                                n=sum(values.size for values in kept))
    sums = np.asarray([values.sum() for values in kept])
    counts = np.asarray([values.size for values in kept], dtype=float)
    mean = float(sums.sum() / counts.sum())
    total = int(counts.sum())
    if len(kept) == 1 or samples <= 0:
        return MeanWithInterval(mean=mean, low=mean, high=mean, n=total)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(kept), size=(samples, len(kept)))
    means = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return MeanWithInterval(mean=mean, low=float(low), high=float(high), n=total)


def paired_bootstrap_pvalue(
    leader: Sequence[float],
    other: Sequence[float],
    samples: int = 2000,
    seed: int = 11,
    higher_is_better: bool = True,
) -> float:
    """One-sided p-value that ``leader`` is not better than ``other`` on the same tasks (paired resampling).

    p = (1 + #{resamples where the leader's mean advantage <= 0}) / (1 + samples).
    """
    first = np.asarray(leader, dtype=float)
    second = np.asarray(other, dtype=float)
    if first.shape != second.shape or first.size == 0:
        raise ValueError("paired bootstrap needs two equally long, non-empty score lists")
    difference = first - second if higher_is_better else second - first
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, difference.size, size=(samples, difference.size))
    advantage = difference[picks].mean(axis=1)
    return float((1 + np.sum(advantage <= 0)) / (1 + samples))


def low_score_weights(values: Sequence[float], fraction: float = 0.2) -> np.ndarray:
    """Membership of each row in the rank-selected bottom ``fraction`` (k = ceil(fraction * n) rows).

    Rows below the k-th lowest value weigh 1; rows tied with it share the remaining slots equally, so
    the result does not depend on row order (many tied zeros would otherwise be picked arbitrarily).
    The weights sum to k.
    """
    data = np.asarray(values, dtype=float)
    count = int(np.ceil(fraction * data.size))
    weights = np.zeros(data.size, dtype=float)
    if count == 0:
        return weights
    boundary = np.sort(data)[count - 1]
    below = data < boundary
    tied = data == boundary
    weights[below] = 1.0
    weights[tied] = (count - int(below.sum())) / int(tied.sum())
    return weights


def delta_norm(values: Sequence[float], severities: Sequence[int]) -> float | None:
    """(E[m | s=0] - E[m | s>=2]) / SD(m) (ForeSci App. F); None when a group is empty or SD is 0."""
    data = np.asarray(values, dtype=float)
    severity = np.asarray(severities)
    aligned, drifted = data[severity == 0], data[severity >= 2]
    spread = float(data.std(ddof=1)) if data.size > 1 else 0.0
    if aligned.size == 0 or drifted.size == 0 or spread == 0:
        return None
    return float((aligned.mean() - drifted.mean()) / spread)
