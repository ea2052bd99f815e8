"""``fta_offline_claims``: reference-guided FTA with answer sentences instead of judge-extracted claims."""

from __future__ import annotations

from foresci.evaluation.metrics.base import Metric, register_metric
from foresci.evaluation.metrics.context import ScoringContext
from foresci.evaluation.metrics.fta import alignment_note, slot_result
from foresci.evaluation.models import MetricResult


@register_metric
class OfflineSlotAlignment(Metric):
    """The offline stand-in of ``fta`` for the families that list it (direction and bottleneck)."""

    name = "fta_offline_claims"
    label = "FTA~off"
    kind = "offline approximation"
    description = (
        "reference-guided FTA with answer "
        "sentences instead of judge-extracted claims (direction/bottleneck)"
    )
    families = ()

    def compute(self, context: ScoringContext) -> MetricResult:
        return slot_result(self.name, context.claim_sentences, context)

    def note(self, result: MetricResult) -> str:
        return alignment_note(result)
