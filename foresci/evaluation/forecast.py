"""Proper scores for resolvable forecast questions (SPEC §6): CRPS in log space, coverage, Brier."""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import norm

QUANTILE_SPAN = 2.5631  # z(0.9) - z(0.1) of the standard normal
NOMINAL_COVERAGE = {1: 0.683, 2: 0.954, 3: 0.997}
MIN_SIGMA = 1e-6


def log_space(value: float) -> float:
    """The forecast space of counts: log10(y + 1) (negative counts are clipped to 0)."""
    return math.log10(max(value, 0.0) + 1.0)


@dataclass(frozen=True)
class GaussianForecast:
    """A Gaussian in log10(y+1) space fitted to (p10, p50, p90)."""

    mu: float
    sigma: float

    @classmethod
    def from_quantiles(cls, p10: float, p50: float, p90: float) -> GaussianForecast:
        """mu = log10(p50+1); sigma = (log10(p90+1) - log10(p10+1)) / 2.5631 (floored at 1e-6)."""
        sigma = (log_space(p90) - log_space(p10)) / QUANTILE_SPAN
        return cls(mu=log_space(p50), sigma=max(sigma, MIN_SIGMA))


def crps_gaussian(mu: float, sigma: float, observed: float) -> float:
    """CRPS of N(mu, sigma^2) at ``observed``: sigma [z(2 Phi(z) - 1) + 2 phi(z) - 1/sqrt(pi)]."""
    z = (observed - mu) / sigma
    return float(sigma * (z * (2 * norm.cdf(z) - 1) + 2 * norm.pdf(z) - 1 / math.sqrt(math.pi)))


def numeric_scores(
    p10: float, p50: float, p90: float, outcome: float, baseline: float | None = None
) -> dict[str, float | bool | None]:
    """CRPS (log space), z, coverage hits |z|<1,2,3, median within x3/x10, CRPS skill vs a point baseline.

    "Within xk" means |log10(p50+1) - log10(y+1)| <= log10(k). The baseline's CRPS is that of a point
    forecast, |log10(b+1) - log10(y+1)|; skill = 1 - CRPS / CRPS_baseline (None when the baseline is exact).
    """
    if not p10 <= p50 <= p90:
        raise ValueError(f"quantiles must satisfy p10 <= p50 <= p90, got {p10}, {p50}, {p90}")
    forecast = GaussianForecast.from_quantiles(p10, p50, p90)
    observed = log_space(outcome)
    z = (observed - forecast.mu) / forecast.sigma
    crps = crps_gaussian(forecast.mu, forecast.sigma, observed)
    gap = abs(forecast.mu - observed)
    scores: dict[str, float | bool | None] = {
        "crps": crps,
        "z": z,
        "mu": forecast.mu,
        "sigma": forecast.sigma,
        "cover_1": abs(z) < 1,
        "cover_2": abs(z) < 2,
        "cover_3": abs(z) < 3,
        "within_x3": gap <= math.log10(3) + 1e-12,
        "within_x10": gap <= 1.0 + 1e-12,
        "baseline_crps": None,
        "crps_skill": None,
    }
    if baseline is not None:
        baseline_crps = abs(log_space(baseline) - observed)
        scores["baseline_crps"] = baseline_crps
        scores["crps_skill"] = None if baseline_crps == 0 else 1 - crps / baseline_crps
    return scores


def brier(probability: float, outcome: float) -> float:
    """Brier score (p - o)^2 of one binary forecast."""
    if not 0.0 <= probability <= 1.0:
        raise ValueError(f"probability must lie in [0, 1], got {probability}")
    return (probability - outcome) ** 2


def brier_skill(method_brier: float, baseline_brier: float) -> float | None:
    """Brier skill score 1 - B/B_ref (None when the reference is perfect)."""
    if baseline_brier == 0:
        return None
    return 1 - method_brier / baseline_brier


def paired_skill(method: dict[str, float], reference: dict[str, float]) -> tuple[float | None, int]:
    """Skill 1 - mean(method) / mean(reference) of a lower-is-better score over the questions both answered.

    ``method`` and ``reference`` map question id -> score (CRPS or Brier). Returns (skill, questions
    paired); skill is None when no question is shared or the reference is perfect on them.
    """
    shared = sorted(set(method) & set(reference))
    if not shared:
        return None, 0
    reference_mean = sum(reference[question] for question in shared) / len(shared)
    if reference_mean == 0:
        return None, len(shared)
    return 1 - sum(method[question] for question in shared) / len(shared) / reference_mean, len(shared)


def reliability_bins(
    probabilities: list[float], outcomes: list[float], bins: int = 10
) -> list[dict[str, float]]:
    """Equal-width probability bins: mean forecast, observed frequency and count per non-empty bin."""
    grouped: dict[int, list[tuple[float, float]]] = {}
    for probability, outcome in zip(probabilities, outcomes, strict=True):
        index = min(int(probability * bins), bins - 1)
        grouped.setdefault(index, []).append((probability, outcome))
    rows = []
    for index in sorted(grouped):
        members = grouped[index]
        rows.append(
            {
                "bin": index,
                "forecast": sum(p for p, _ in members) / len(members),
                "observed": sum(o for _, o in members) / len(members),
                "count": float(len(members)),
            }
        )
    return rows


def difficulty_adjusted(rows: list[tuple[str, str, float]]) -> dict[str, float]:
    """Method scores adjusted for question difficulty: fit score_ij = a_i + b_j + u_ij by least squares.

    ``rows`` are (question, method, score). Returns, per method j, the fitted score of j on the average
    question, mean_i(a_i) + b_j, so methods that answered different (harder or easier) questions become
    comparable (ForecastBench's difficulty adjustment). Needs at least two methods.
    """
    questions = sorted({question for question, _, _ in rows})
    methods = sorted({method for _, method, _ in rows})
    if len(methods) < 2 or not questions:
        return {}
    import numpy as np

    design = np.zeros((len(rows), len(questions) + len(methods) - 1))
    target = np.zeros(len(rows))
    q_index = {question: index for index, question in enumerate(questions)}
    m_index = {method: index for index, method in enumerate(methods)}
    for row, (question, method, score) in enumerate(rows):
        design[row, q_index[question]] = 1.0
        if m_index[method] > 0:  # the first method is the reference level (b = 0)
            design[row, len(questions) + m_index[method] - 1] = 1.0
        target[row] = score
    coefficients = np.linalg.lstsq(design, target, rcond=None)[0]
    question_mean = float(coefficients[: len(questions)].mean())
    effects = [0.0, *coefficients[len(questions) :].tolist()]
    return {method: question_mean + effects[m_index[method]] for method in methods}
