"""Coverage indicators of a numeric forecast: ``cover_k`` (|z| < k, k = 1, 2, 3) and ``within_xk`` (the
median within a factor k of the outcome, k = 3, 10). The forecast section reduces them to observed
coverage beside the nominal 68.3 / 95.4 / 99.7 % and to hit rates; they are not leaderboard columns."""

from __future__ import annotations

from foresci.evaluation.metrics.base import FORECAST_FAMILY, Metric, register_metric
from foresci.evaluation.metrics.context import ScoringContext
from foresci.evaluation.metrics.crps import is_numeric
from foresci.evaluation.models import MetricResult


class NumericIndicator(Metric):
    """1.0 when the numeric forecast's indicator ``name`` (from ``forecast.numeric_scores``) holds."""

    kind = "proper score"
    families = (FORECAST_FAMILY,)
    aggregate = None
    legend = False

    def compute(self, context: ScoringContext) -> MetricResult | None:
        if not is_numeric(context):
            return None
        return MetricResult(name=self.name, value=float(bool(context.numeric_scores[self.name])))


@register_metric
class Cover1(NumericIndicator):
    name, label = "cover_1", "cover |z|<1"
    description = "1 when the outcome lies within one sigma of the log-space forecast (nominal 68.3 %)"


@register_metric
class Cover2(NumericIndicator):
    name, label = "cover_2", "cover |z|<2"
    description = "1 when the outcome lies within two sigma of the log-space forecast (nominal 95.4 %)"


@register_metric
class Cover3(NumericIndicator):
    name, label = "cover_3", "cover |z|<3"
    description = "1 when the outcome lies within three sigma of the log-space forecast (nominal 99.7 %)"


@register_metric
class WithinX3(NumericIndicator):
    name, label = "within_x3", "within x3"
    description = "1 when the forecast median is within a factor 3 of the outcome (in log10(y+1))"


@register_metric
class WithinX10(NumericIndicator):
    name, label = "within_x10", "within x10"
    description = "1 when the forecast median is within a factor 10 of the outcome (in log10(y+1))"
