"""``crps`` and ``crps_skill``: the CRPS of a numeric forecast in log10(y+1), and its skill over the
question's persistence point forecast."""

from __future__ import annotations

from foresci.evaluation.metrics.base import FORECAST_FAMILY, Metric, register_metric
from foresci.evaluation.metrics.context import ScoringContext
from foresci.evaluation.models import MetricResult


def is_numeric(context: ScoringContext) -> bool:
    """True for a numeric forecast question (p10/p50/p90 answers)."""
    return context.forecast_question.kind == "numeric"


@register_metric
class CRPS(Metric):
    """CRPS of the Gaussian fitted to the answer's quantiles; its details hold the fit and the inputs."""

    name = "crps"
    label = "CRPS"
    kind = "proper score"
    description = "CRPS of the Gaussian fitted to p10/p50/p90 in log10(y+1)"
    higher_is_better = False
    families = (FORECAST_FAMILY,)

    def compute(self, context: ScoringContext) -> MetricResult | None:
        if not is_numeric(context):
            return None
        scores, forecast = context.numeric_scores, context.forecast
        value = scores["crps"]
        result = MetricResult(
            name=self.name, value=None if value is None else float(value), available=value is not None
        )
        result.details = {key: scores[key] for key in ("z", "mu", "sigma", "baseline_crps")} | {
            "outcome": context.outcome,
            "p10": forecast.p10,
            "p50": forecast.p50,
            "p90": forecast.p90,
        }
        return result


@register_metric
class CRPSSkill(Metric):
    """Per row 1 - CRPS / CRPS of the persistence point forecast; the forecast section reports the skill
    of the mean CRPS instead of a mean of skills."""

    name = "crps_skill"
    label = "CRPS skill"
    kind = "proper score"
    description = "1 - CRPS / CRPS of the persistence point forecast"
    families = (FORECAST_FAMILY,)
    aggregate = None

    def compute(self, context: ScoringContext) -> MetricResult | None:
        if not is_numeric(context):
            return None
        value = context.numeric_scores["crps_skill"]
        return MetricResult(
            name=self.name, value=None if value is None else float(value), available=value is not None
        )
