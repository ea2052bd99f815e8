"""``brier`` and ``brier_skill``: the Brier score of a binary forecast and its skill over the question's
baseline probability."""

from __future__ import annotations

from foresci.evaluation.forecast import brier, brier_skill
from foresci.evaluation.metrics.base import FORECAST_FAMILY, Metric, register_metric
from foresci.evaluation.metrics.context import ScoringContext
from foresci.evaluation.models import MetricResult


def probability(context: ScoringContext) -> float:
    """The answer's probability (a ValueError when the binary forecast lacks one)."""
    value = context.forecast.probability
    if value is None:
        raise ValueError(f"forecast answer to {context.forecast_question.question_id} lacks a probability")
    return value


def baseline_probability(context: ScoringContext) -> float:
    """The question's baseline probability (0.5 when it has none)."""
    baseline = context.forecast_question.baseline
    return baseline if baseline is not None else 0.5


def baseline_brier(context: ScoringContext) -> float:
    """The Brier score of the baseline probability (clipped to [0, 1])."""
    return brier(min(max(baseline_probability(context), 0.0), 1.0), context.outcome)


@register_metric
class Brier(Metric):
    """(p - o)^2; its details hold the probability, the outcome and the baseline's Brier score."""

    name = "brier"
    label = "Brier"
    kind = "proper score"
    description = "(p - o)^2 of a binary forecast"
    higher_is_better = False
    families = (FORECAST_FAMILY,)

    def compute(self, context: ScoringContext) -> MetricResult | None:
        if context.forecast_question.kind == "numeric":
            return None
        chosen = probability(context)
        return MetricResult(
            name=self.name,
            value=brier(chosen, context.outcome),
            details={
                "probability": chosen,
                "outcome": context.outcome,
                "baseline_probability": baseline_probability(context),
                "baseline_brier": baseline_brier(context),
            },
        )


@register_metric
class BrierSkill(Metric):
    """Per row 1 - Brier / Brier of the baseline; the forecast section reports the skill of the mean."""

    name = "brier_skill"
    label = "Brier skill"
    kind = "proper score"
    description = "1 - Brier / Brier of the question's baseline"
    families = (FORECAST_FAMILY,)
    aggregate = None

    def compute(self, context: ScoringContext) -> MetricResult | None:
        if context.forecast_question.kind == "numeric":
            return None
        skill = brier_skill(brier(probability(context), context.outcome), baseline_brier(context))
        return MetricResult(name=self.name, value=skill, available=skill is not None)
