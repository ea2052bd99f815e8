"""The statsmodels two-way fixed-effects fit against an independent OLS-with-dummies computation (numpy)."""

from __future__ import annotations

import numpy as np
import pytest

from foresci.rounds.fixed_effects import adjusted_scores, bootstrap_intervals, method_effects


def _fixture() -> list[tuple[str, str, float]]:
    """Unbalanced (item, method, score) rows: not every method answered every item."""
    rng = np.random.default_rng(7)
    difficulty = {f"q{index}": rng.uniform(0.0, 0.5) for index in range(9)}
    skill = {"always-0.5": 0.0, "good": -0.08, "bad": 0.11, "sparse": -0.02}
    rows = []
    for item, hardness in difficulty.items():
        for method, effect in skill.items():
            if method == "sparse" and item in {"q1", "q4", "q7"}:
                continue
            if method == "bad" and item == "q8":
                continue
            rows.append((item, method, float(hardness + effect + rng.normal(0, 0.03))))
    return rows


def _ols_with_dummies(rows: list[tuple[str, str, float]], reference: str) -> dict[str, float]:
    """Intercept + item dummies (first item dropped) + method dummies (reference dropped), numpy lstsq."""
    items = sorted({item for item, _, _ in rows})
    methods = [reference] + sorted({method for _, method, _ in rows} - {reference})
    design = np.zeros((len(rows), 1 + len(items) - 1 + len(methods) - 1))
    target = np.array([score for _, _, score in rows])
    for row, (item, method, _) in enumerate(rows):
        design[row, 0] = 1.0
        if items.index(item) > 0:
            design[row, items.index(item)] = 1.0
        if methods.index(method) > 0:
            design[row, len(items) - 1 + methods.index(method)] = 1.0
    coefficients = np.linalg.lstsq(design, target, rcond=None)[0]
    return {
        method: 0.0 if index == 0 else float(coefficients[len(items) - 1 + index])
        for index, method in enumerate(methods)
    }


def test_method_effects_match_ols_with_dummies() -> None:
    rows = _fixture()
    ours = method_effects(rows, "always-0.5")
    independent = _ols_with_dummies(rows, "always-0.5")
    assert set(ours) == set(independent) == {"always-0.5", "good", "bad", "sparse"}
    for method, effect in independent.items():
        assert ours[method] == pytest.approx(effect, abs=1e-9)
    assert ours["good"] < 0 < ours["bad"]  # the planted skill order comes back


def test_rescaling_and_bootstrap() -> None:
    rows = _fixture()
    adjusted = adjusted_scores(rows, "always-0.5", 0.25)
    assert adjusted["always-0.5"] == 0.25
    assert adjusted["good"] - adjusted["bad"] == pytest.approx(
        method_effects(rows, "always-0.5")["good"] - method_effects(rows, "always-0.5")["bad"]
    )
    intervals = bootstrap_intervals(rows, "always-0.5", 0.25, resamples=60, seed=3)
    assert intervals == bootstrap_intervals(rows, "always-0.5", 0.25, resamples=60, seed=3)  # seeded
    for method in ("good", "bad", "sparse"):
        low, high = intervals[method]
        assert low < high and low - 0.05 <= adjusted[method] <= high + 0.05
    assert intervals["always-0.5"] == (0.25, 0.25)
    assert intervals["good"][1] < intervals["bad"][0]  # clearly separated methods stay separated
