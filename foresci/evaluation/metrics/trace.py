"""``trace``: judged traceability, 0.50 evidence linkage + 0.25 support specificity + 0.25 internal trace."""

from __future__ import annotations

from foresci.evaluation.metrics.base import Metric, register_metric
from foresci.evaluation.metrics.context import ScoringContext
from foresci.evaluation.models import MetricResult
from foresci.evaluation.trace import citation_note, judged_trace, not_checked


@register_metric
class Trace(Metric):
    """Judged ``judge_runs`` times from the support artifact; not applicable without one."""

    name = "trace"
    label = "Trace"
    kind = "judged"
    description = (
        "0.50 evidence linkage + 0.25 support specificity + 0.25 internal "
        "trace, judged n times from the support artifact; '–' without one"
    )
    phase = "judge"
    offline_stand_in = "trace_offline"
    headline = True
    families = ()

    def compute(self, context: ScoringContext) -> MetricResult:
        if context.judge is None:
            raise ValueError(f"{context.answer.task_id}: trace is judged in the judge phase only")
        if context.answer.support is not None and context.kb_dates is None:
            return not_checked(self.name)  # no judge call: the checks it would read cannot be made
        return judged_trace(
            context.judge,
            context.public_task,
            context.text,
            context.answer,
            context.settings.judge_runs,
            context.citation_checks,
        )

    def note(self, result: MetricResult) -> str:
        citations = (result.details or {}).get("citations")
        return "" if citations is None else citation_note(citations)
