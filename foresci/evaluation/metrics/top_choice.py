"""``top_choice``: was the first pick right? The task's family decides
(:meth:`foresci.tasks.families.TaskFamily.top_choice`: direction 1 primary / 0.5 acceptable; ranking
families S_top)."""

from __future__ import annotations

from foresci.evaluation.metrics.base import Metric, register_metric
from foresci.evaluation.metrics.context import ScoringContext
from foresci.evaluation.models import MetricResult
from foresci.tasks.families import get_family


@register_metric
class TopChoice(Metric):
    """Applies where a family lists it; absent from a row whose family finds no single right pick."""

    name = "top_choice"
    label = "Top-1"
    description = "first pick right: primary direction 1, acceptable neighbour 0.5; planning/venue S_top"
    families = ()

    def compute(self, context: ScoringContext) -> MetricResult | None:
        top = get_family(context.family).top_choice(context.answer, context.public_task, context.target)
        return None if top is None else MetricResult(name=self.name, value=top.value, details=top.details)

    def note(self, result: MetricResult) -> str:
        details = result.details or {}
        return f"chosen {details.get('chosen')} vs gold {details.get('gold')}"
