"""Difficulty-adjusted scores: the two-way fixed-effects fit ``score ~ item + method``, its bootstrap and its
split-half reliability, all by one weighted least-squares solver (numpy, vectorised over resamples).

ForecastBench's adjustment: every (item, method) score is modelled as item effect + method effect; the
method effect compares methods as if all had answered the same items. The item effects are eliminated
exactly (within each item the scores are centred on the item's mean), which leaves a system of one row per
method: ``(sum_i w_i A_i) b = sum_i w_i A_i y_i`` with ``A_i = diag(1_S) - 1_S 1_S' / n_i`` over the
methods ``S`` that scored item ``i``. The reference method's effect is 0. This is the same least-squares
solution as OLS on item and method dummies (the independent numpy ``lstsq`` in the tests recomputes it),
without the items x rows design matrix, so a bootstrap of thousands of resamples is a batch of small solves:
a resample is a vector of item weights ``w`` (how often each item, or each whole round, was drawn).

A method's adjusted score is ``reference_value + b_method`` (the reference reads ``reference_value``). When
the reference value is not fixed by the scale (``None``: the reference's own mean score, as on the CRPS
and family boards), each resample recomputes it, so the reference's own uncertainty is in every interval
(its own interval is that of its mean); on the Brier board the always-0.5 forecaster reads exactly 0.25
in every resample, which is a property of the chance forecaster, not an omission.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

ScoreRow = tuple[str, str, float]  # (item, method, score)
CHUNK = 256  # resamples solved per batch (bounds memory at resamples x items)


@dataclass
class Design:
    """The rows of one board in the form the solver reads: per item the centred scores of the methods
    that scored it, grouped by the set of methods present (its pattern)."""

    items: list[str]
    methods: list[str]
    reference: int
    centred: np.ndarray  # items x methods: y - item mean over present methods (0 where absent)
    present: np.ndarray  # items x methods: 1 where the method scored the item
    pattern: np.ndarray  # items: index of the item's pattern
    blocks: np.ndarray  # patterns x methods x methods: A_p
    reference_scores: np.ndarray  # items: the reference's score (0 where absent)


def design(rows: Sequence[ScoreRow], reference: str) -> Design:
    """Index ``rows`` (one score per item and method; a repeated pair keeps its mean) for the solver."""
    items = sorted({item for item, _, _ in rows})
    methods = sorted({method for _, method, _ in rows})
    if reference not in methods:
        raise ValueError(f"reference method {reference!r} has no score")
    item_index = {item: index for index, item in enumerate(items)}
    method_index = {method: index for index, method in enumerate(methods)}
    total = np.zeros((len(items), len(methods)))
    count = np.zeros((len(items), len(methods)))
    for item, method, score in rows:
        total[item_index[item], method_index[method]] += score
        count[item_index[item], method_index[method]] += 1
    present = (count > 0).astype(float)
    scores = np.divide(total, count, out=np.zeros_like(total), where=count > 0)
    sizes = present.sum(axis=1)
    means = (scores * present).sum(axis=1) / np.maximum(sizes, 1)
    centred = (scores - means[:, None]) * present
    keys: dict[bytes, int] = {}
    pattern = np.empty(len(items), dtype=int)
    blocks: list[np.ndarray] = []
    for index in range(len(items)):
        key = present[index].tobytes()
        if key not in keys:
            keys[key] = len(blocks)
            mask = present[index]
            blocks.append(np.diag(mask) - np.outer(mask, mask) / max(mask.sum(), 1))
        pattern[index] = keys[key]
    reference_at = method_index[reference]
    return Design(
        items=items,
        methods=methods,
        reference=reference_at,
        centred=centred,
        present=present,
        pattern=pattern,
        blocks=np.array(blocks) if blocks else np.zeros((0, len(methods), len(methods))),
        reference_scores=scores[:, reference_at] * present[:, reference_at],
    )


def solve(fit: Design, weights: np.ndarray, reference_value: float | None) -> np.ndarray:
    """Adjusted scores (resamples x methods) under item ``weights`` (resamples x items); NaN for a method
    (or a whole resample, when the reference is absent) that no drawn item identifies."""
    weights = np.atleast_2d(weights)
    patterns = np.zeros((weights.shape[0], len(fit.blocks)))
    for index in range(len(fit.blocks)):
        patterns[:, index] = weights[:, fit.pattern == index].sum(axis=1)
    matrices = np.einsum("bp,pmn->bmn", patterns, fit.blocks)
    vectors = weights @ fit.centred
    keep = [index for index in range(len(fit.methods)) if index != fit.reference]
    effects = np.zeros((weights.shape[0], len(fit.methods)))
    if keep:
        reduced = matrices[:, keep][:, :, keep]
        effects[:, keep] = np.einsum("bmn,bn->bm", np.linalg.pinv(reduced, hermitian=True), vectors[:, keep])
    weight_of = weights @ fit.present
    if reference_value is None:
        base = (weights @ fit.reference_scores) / np.where(weight_of[:, fit.reference] > 0,
                                                         weight_of[:, fit.reference], np.nan)
    else:
        base = np.full(weights.shape[0], float(reference_value))
    adjusted = base[:, None] + effects
    adjusted[weight_of <= 0] = np.nan
    adjusted[weight_of[:, fit.reference] <= 0] = np.nan
    return adjusted


def method_effects(rows: Sequence[ScoreRow], reference: str) -> dict[str, float]:
    """Each method's effect relative to ``reference`` (0 for the reference) from the two-way FE fit."""
    fit = design(rows, reference)
    adjusted = solve(fit, np.ones(len(fit.items)), 0.0)[0]
    return {method: float(adjusted[index]) for index, method in enumerate(fit.methods)}


def adjusted_scores(
    rows: Sequence[ScoreRow], reference: str, reference_value: float | None
) -> dict[str, float]:
    """Difficulty-adjusted score per method, rescaled so ``reference`` reads ``reference_value`` (None: the
    reference's own mean score)."""
    fit = design(rows, reference)
    adjusted = solve(fit, np.ones(len(fit.items)), reference_value)[0]
    return {method: float(adjusted[index]) for index, method in enumerate(fit.methods)}


def resample_weights(
    count: int,
    resamples: int,
    rng: np.random.Generator,
    clusters: Sequence[int] | None = None,
    nodes: Sequence[int] | None = None,
) -> np.ndarray:
    """Bootstrap weights (resamples x ``count`` items): items drawn with replacement, or, with ``clusters``
    (a cluster index per item), whole clusters drawn with replacement (each item weighs its cluster's
    draws). With ``nodes`` (a node index per item; an item of no node is its own) the nodes are drawn as
    well: alone (items sharing a node resampled together), or with ``clusters`` two-way, each item
    weighing its round's draws times its node's (the pigeonhole bootstrap of crossed random effects,
    Owen 2007: both factors' variance is carried, neither is counted twice)."""
    if nodes is not None:
        node_index = np.asarray(nodes)
        node_size = int(node_index.max()) + 1
        node_draws = rng.multinomial(node_size, np.full(node_size, 1 / node_size), size=resamples)
        weights = node_draws.astype(float)[:, node_index]
        if clusters is None:
            return weights
        return weights * resample_weights(count, resamples, rng, clusters)
    if clusters is None:
        return rng.multinomial(count, np.full(count, 1 / count), size=resamples).astype(float)
    index = np.asarray(clusters)
    size = int(index.max()) + 1
    drawn = rng.multinomial(size, np.full(size, 1 / size), size=resamples).astype(float)
    return drawn[:, index]


def _numbered(items: Sequence[str], keys: Mapping[str, str]) -> list[int]:
    """A cluster number per item from ``keys`` (item -> cluster name; an item without one is its own)."""
    names = sorted({keys.get(item, f"item:{item}") for item in items})
    position = {name: index for index, name in enumerate(names)}
    return [position[keys.get(item, f"item:{item}")] for item in items]


def bootstrap_draws(
    rows: Sequence[ScoreRow],
    reference: str,
    reference_value: float | None,
    resamples: int,
    seed: int,
    clusters: Mapping[str, str] | None = None,
    nodes: Mapping[str, str] | None = None,
) -> tuple[list[str], np.ndarray]:
    """(methods, resamples x methods adjusted scores) over a seeded bootstrap of items (or of the clusters
    ``clusters`` names per item: whole rounds; with ``nodes``, item -> taxonomy node, the nodes too, alone
    or crossed with the rounds: :func:`resample_weights`)."""
    fit = design(rows, reference)
    rng = np.random.default_rng(seed)
    cluster_index = None if clusters is None else _numbered(fit.items, clusters)
    node_index = None if nodes is None else _numbered(fit.items, nodes)
    parts = []
    for start in range(0, resamples, CHUNK):
        weights = resample_weights(len(fit.items), min(CHUNK, resamples - start), rng, cluster_index,
                                   node_index)
        parts.append(solve(fit, weights, reference_value))
    return fit.methods, np.vstack(parts) if parts else np.zeros((0, len(fit.methods)))


def bootstrap_intervals(
    rows: Sequence[ScoreRow],
    reference: str,
    reference_value: float | None,
    resamples: int,
    seed: int,
    level: float = 0.95,
    clusters: Mapping[str, str] | None = None,
) -> dict[str, tuple[float, float]]:
    """Percentile intervals of the adjusted scores over ``resamples`` bootstraps (seeded)."""
    methods, draws = bootstrap_draws(rows, reference, reference_value, resamples, seed, clusters)
    tail = (1 - level) / 2 * 100
    return {
        method: (float(np.nanpercentile(draws[:, index], tail)),
                 float(np.nanpercentile(draws[:, index], 100 - tail)))
        for index, method in enumerate(methods)
        if np.isfinite(draws[:, index]).any()
    }


def split_half_reliability(
    rows: Sequence[ScoreRow],
    reference: str,
    seed: int,
    strata: Mapping[str, str] | None = None,
    splits: int = 200,
) -> float | None:
    """Split-half reliability of the method effects, Spearman-Brown corrected: the items are split at
    random into two halves (within each stratum, e.g. round), the effects fitted on each half, and the
    Pearson correlation of the two halves' effects across methods averaged over ``splits`` splits;
    reliability = 2 r / (1 + r). None with fewer than 3 methods or 4 items."""
    fit = design(rows, reference)
    if len(fit.methods) < 3 or len(fit.items) < 4:
        return None
    rng = np.random.default_rng(seed)
    groups: dict[str, list[int]] = {}
    for index, item in enumerate(fit.items):
        groups.setdefault(strata[item] if strata else "", []).append(index)
    halves = np.zeros((splits, len(fit.items)))
    for members in groups.values():
        order = np.argsort(rng.random((splits, len(members))), axis=1)
        chosen = order < (len(members) + rng.integers(0, 2, size=(splits, 1))) // 2
        halves[:, members] = chosen
    first = solve(fit, halves, 0.0)
    second = solve(fit, 1 - halves, 0.0)
    correlations = []
    for left, right in zip(first, second, strict=True):
        usable = np.isfinite(left) & np.isfinite(right)
        if usable.sum() < 3 or np.std(left[usable]) == 0 or np.std(right[usable]) == 0:
            continue
        correlations.append(float(np.corrcoef(left[usable], right[usable])[0, 1]))
    if not correlations:
        return None
    mean = float(np.mean(correlations))
    return 2 * mean / (1 + mean) if mean > -1 else None
