"""``trace_offline``: the Trace weights over citation validity and evidence-to-answer similarity."""

from __future__ import annotations

from foresci.evaluation.metrics.base import Metric, register_metric
from foresci.evaluation.metrics.context import ScoringContext
from foresci.evaluation.models import MetricResult
from foresci.evaluation.trace import citation_note, not_checked, offline_trace


@register_metric
class OfflineTrace(Metric):
    """The offline stand-in of ``trace`` (not the judged Trace)."""

    name = "trace_offline"
    label = "Trace~off"
    kind = "offline approximation"
    description = (
        "Trace weights over citation validity and evidence-to-answer similarity (not the judged Trace)"
    )
    families = ()

    def compute(self, context: ScoringContext) -> MetricResult:
        if context.answer.support is not None and context.kb_dates is None:
            return not_checked(self.name)
        return offline_trace(context.text, context.answer.support, context.citation_checks, context.embedder)

    def note(self, result: MetricResult) -> str:
        citations = (result.details or {}).get("citations")
        return "" if citations is None else citation_note(citations)
