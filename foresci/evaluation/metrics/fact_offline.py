"""``fact_offline``: answer sentences as claims, graded by embedding similarity to the claim bank."""

from __future__ import annotations

from foresci.evaluation.fact import offline_fact, public_texts
from foresci.evaluation.metrics.base import Metric, register_metric
from foresci.evaluation.metrics.context import ScoringContext
from foresci.evaluation.models import MetricResult


@register_metric
class OfflineFact(Metric):
    """The offline stand-in of ``fact`` (not the judged Fact); absent when the target has no claim bank."""

    name = "fact_offline"
    label = "Fact~off"
    kind = "offline approximation"
    description = (
        "answer sentences as claims, graded by "
        "embedding similarity to the claim bank (not the judged Fact)"
    )
    families = ()

    def compute(self, context: ScoringContext) -> MetricResult | None:
        hidden, settings = context.target, context.settings
        if not hidden.claims:
            return None
        return offline_fact(
            context.text,
            hidden.claims,
            context.embedder,
            settings.max_claims,
            settings.offline_supported_threshold,
            settings.offline_partial_threshold,
            public_texts(context.public_task),
        )
