"""Difficulty-adjusted scores: a two-way fixed-effects fit ``score ~ 1 | item + method`` (statsmodels OLS).

ForecastBench's adjustment: every (item, method) score is modelled as item effect + method effect; the
method effect compares methods as if all had answered the same items. The fit is statsmodels' OLS on item
dummies (all items, no intercept) and method dummies (the reference method left out, so its effect is 0).
A method's adjusted score is then rescaled against a stated reference: ``reference_value + b_method -
b_reference`` (the reference method reads exactly ``reference_value``; ForecastBench: always-0.5 reads 0.25
on the Brier board). Intervals: percentile bootstrap over items (items drawn with replacement, each draw
a new item, refit).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

ScoreRow = tuple[str, str, float]  # (item, method, score)


def method_effects(rows: Sequence[ScoreRow], reference: str) -> dict[str, float]:
    """Each method's effect relative to ``reference`` (0 for the reference) from the two-way FE fit.

    Methods that share no item with the rest still get an effect only if the design identifies it; rows
    must include the reference method.
    """
    import statsmodels.api as sm

    items = sorted({item for item, _, _ in rows})
    methods = sorted({method for _, method, _ in rows})
    if reference not in methods:
        raise ValueError(f"reference method {reference!r} has no score")
    others = [method for method in methods if method != reference]
    item_index = {item: index for index, item in enumerate(items)}
    method_index = {method: len(items) + index for index, method in enumerate(others)}
    design = np.zeros((len(rows), len(items) + len(others)))
    target = np.empty(len(rows))
    for row, (item, method, score) in enumerate(rows):
        design[row, item_index[item]] = 1.0
        if method != reference:
            design[row, method_index[method]] = 1.0
        target[row] = score
    fitted = sm.OLS(target, design).fit()
    effects = {reference: 0.0}
    for method in others:
        effects[method] = float(fitted.params[method_index[method]])
    return effects


def adjusted_scores(rows: Sequence[ScoreRow], reference: str, reference_value: float) -> dict[str, float]:
    """Difficulty-adjusted score per method, rescaled so ``reference`` reads ``reference_value``."""
    return {method: reference_value + effect for method, effect in method_effects(rows, reference).items()}


def bootstrap_intervals(
    rows: Sequence[ScoreRow],
    reference: str,
    reference_value: float,
    resamples: int,
    seed: int,
    level: float = 0.95,
) -> dict[str, tuple[float, float]]:
    """Percentile intervals of the adjusted scores over ``resamples`` item bootstraps (seeded)."""
    by_item: dict[str, list[ScoreRow]] = {}
    for row in rows:
        by_item.setdefault(row[0], []).append(row)
    items = sorted(by_item)
    rng = np.random.default_rng(seed)
    draws: dict[str, list[float]] = {}
    for _ in range(resamples):
        picked = rng.integers(0, len(items), size=len(items))
        sample = [
            (f"{draw}:{item}", method, score)
            for draw, index in enumerate(picked)
            for item, method, score in by_item[items[index]]
        ]
        if not any(method == reference for _, method, _ in sample):
            continue
        for method, value in adjusted_scores(sample, reference, reference_value).items():
            draws.setdefault(method, []).append(value)
    tail = (1 - level) / 2 * 100
    return {
        method: (float(np.percentile(values, tail)), float(np.percentile(values, 100 - tail)))
        for method, values in draws.items()
    }
