"""``pers``: judged reviewer persuasiveness with family and generic rubric dimensions."""

from __future__ import annotations

from foresci.evaluation.metrics.base import Metric, register_metric
from foresci.evaluation.metrics.context import ScoringContext
from foresci.evaluation.models import MetricResult
from foresci.evaluation.pers import judged_pers, offline_pers


@register_metric
class Persuasiveness(Metric):
    """Judged ``judge_runs`` times; offline it is reported as unavailable, never approximated."""

    name = "pers"
    label = "Pers"
    kind = "judged"
    description = (
        "holistic reviewer persuasiveness with family and generic rubric "
        "dimensions, judged n times; unavailable offline"
    )
    phase = "judge"
    headline = True
    families = ()

    def compute(self, context: ScoringContext) -> MetricResult:
        if context.judge is None:
            raise ValueError(f"{context.answer.task_id}: pers is judged in the judge phase only")
        return judged_pers(
            context.judge, context.public_task, context.target, context.text, context.settings.judge_runs
        )

    def offline(self, context: ScoringContext) -> MetricResult:
        return offline_pers()
