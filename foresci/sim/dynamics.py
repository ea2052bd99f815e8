"""Planted dynamics: expected monthly paper rates per trajectory label, the difficulty dial, shifts.

Month indices are positions in the world's month list; ``cutoff_index`` is the last month on or
before the cutoff. The rate of a direction is log-linear with a kink at the cutoff:

    rate(t) = r_c · exp(pre_slope · (t − c))    for t ≤ c
    rate(t) = r_c · exp(post_slope · (t − c))   for t > c

with ``r_c`` chosen so that the mean rate over the months up to the cutoff is ``base``: a direction's
pre-cutoff size is its drawn base, whatever its label. (Anchoring ``base`` at the cutoff instead made
every accelerating direction smaller before the cutoff than a cooling one of the same base, by
mean exp(±pre_slope·k) over the history: ×1.56 at difficulty 0.6, ×2.9 at 0. "Pick the largest" then
lost almost every direction task by construction, a planted anti-correlation no literature has.)

``post_slope`` comes from the label (accelerating +s, cooling −s, steady 0, fragmenting a mild
decline of the parent while children emerge), with each direction's own s drawn around the world's
nominal one. ``pre_slope = (1 − difficulty) · pre_share · nominal slope``:
at difficulty 0 the trend is already under way before the cutoff; at difficulty 1 every direction is
flat before it and the change happens only in the hidden window.
"""

from __future__ import annotations

import math
import random
from typing import Literal, get_args

from foresci.sim.truth import TrajectoryLabel

Counterfactual = Literal["reverse", "shuffle", "null"]
COUNTERFACTUALS: tuple[str, ...] = get_args(Counterfactual)
LABEL_CYCLE: tuple[TrajectoryLabel, ...] = ("accelerating", "cooling", "steady", "fragmenting")
PRE_SHARE = 0.5
FRAGMENTING_PARENT_SLOPE = -0.05
CHILD_SHARE = 0.45
CHILD_RAMP_MONTHS = 3


def assign_labels(count: int, rng: random.Random) -> list[TrajectoryLabel]:
    """Balanced labels for ``count`` directions (cycled, then shuffled): no label dominates."""
    labels = [LABEL_CYCLE[index % len(LABEL_CYCLE)] for index in range(count)]
    rng.shuffle(labels)
    return labels


def apply_counterfactual(
    labels: list[TrajectoryLabel], counterfactual: str | None, rng: random.Random
) -> list[TrajectoryLabel]:
    """Shift the dynamics, keeping vocabulary: 'reverse' swaps accelerating/cooling, 'shuffle' permutes
    labels, 'null' makes every direction steady."""
    if counterfactual is None:
        return list(labels)
    if counterfactual == "reverse":
        swap: dict[TrajectoryLabel, TrajectoryLabel] = {"accelerating": "cooling", "cooling": "accelerating"}
        return [swap.get(label, label) for label in labels]
    if counterfactual == "shuffle":
        shuffled = list(labels)
        rng.shuffle(shuffled)
        return shuffled
    if counterfactual == "null":
        return ["steady" for _ in labels]
    raise ValueError(f"counterfactual: unknown value {counterfactual!r}; expected one of {COUNTERFACTUALS}")


def post_slope(label: TrajectoryLabel, trend_strength: float) -> float:
    """Monthly log-slope of a direction's own papers after the cutoff."""
    return {
        "accelerating": trend_strength,
        "cooling": -trend_strength,
        "steady": 0.0,
        "fragmenting": FRAGMENTING_PARENT_SLOPE,
    }[label]


def pre_slope(label: TrajectoryLabel, trend_strength: float, difficulty: float) -> float:
    """Monthly log-slope before the cutoff: a share of the nominal post-cutoff slope that vanishes at
    difficulty 1 (``trend_strength`` here is the world's nominal one, not a direction's own)."""
    return (1.0 - difficulty) * PRE_SHARE * post_slope(label, trend_strength)


def parent_rates(
    base: float,
    label: TrajectoryLabel,
    months: int,
    cutoff_index: int,
    trend_strength: float,
    difficulty: float,
    window_strength: float | None = None,
) -> list[float]:
    """Expected monthly papers of a direction's own (non-child) papers, averaging ``base`` over the months
    up to the cutoff. ``window_strength`` (default: ``trend_strength``) is the direction's own pace after
    the cutoff, which the past does not reveal."""
    before = pre_slope(label, trend_strength, difficulty)
    after = post_slope(label, trend_strength if window_strength is None else window_strength)
    history = [math.exp(before * (month - cutoff_index)) for month in range(min(months, cutoff_index + 1))]
    at_cutoff = base * len(history) / sum(history) if history else base
    rates = []
    for month in range(months):
        offset = month - cutoff_index
        slope = before if offset <= 0 else after
        rates.append(at_cutoff * math.exp(slope * offset))
    return rates


def child_emergence(cutoff_index: int, difficulty: float, stagger: int) -> int:
    """Month index of a child's first papers: before the cutoff at low difficulty, after it at high."""
    lead = round((1.0 - difficulty) * CHILD_RAMP_MONTHS)
    return cutoff_index + 1 - lead + stagger


def child_rates(base: float, emerges: int, months: int) -> list[float]:
    """Expected monthly papers of an emergent child: zero, then a linear ramp to CHILD_SHARE · base."""
    rates = []
    for month in range(months):
        if month < emerges:
            rates.append(0.0)
        else:
            rates.append(base * CHILD_SHARE * min(1.0, (month - emerges + 1) / CHILD_RAMP_MONTHS))
    return rates


def poisson(rng: random.Random, mean: float) -> int:
    """A Poisson draw by sequential inversion (exact; fine for the small means used here)."""
    if mean <= 0:
        return 0
    if mean > 500:
        return max(0, round(rng.gauss(mean, math.sqrt(mean))))
    threshold = rng.random()
    probability = math.exp(-mean)
    cumulative = probability
    count = 0
    while cumulative < threshold and count < 10_000:
        count += 1
        probability *= mean / count
        cumulative += probability
    return count


def window_factor(rates: list[float], cutoff_index: int) -> float:
    """Mean rate over the months after the cutoff / mean rate over as many months up to the cutoff."""
    window = rates[cutoff_index + 1 :]
    before = rates[max(0, cutoff_index + 1 - len(window)) : cutoff_index + 1]
    if not window or not before or sum(before) == 0:
        return float("nan")
    return (sum(window) / len(window)) / (sum(before) / len(before))
