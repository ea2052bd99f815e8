"""``plan_outcome``: a plan's milestones and go/no-go criterion scored against the window
(:mod:`foresci.evaluation.plan_outcome`); applies where a family lists it (the planning family)."""

from __future__ import annotations

from foresci.evaluation.metrics.base import Metric, register_metric
from foresci.evaluation.metrics.context import ScoringContext
from foresci.evaluation.models import MetricResult
from foresci.evaluation.plan_outcome import plan_outcome
from foresci.tasks.options import parse_answer_ranking


@register_metric
class PlanOutcome(Metric):
    """Absent where the target records no window outcome for the answer's top option."""

    name = "plan_outcome"
    label = "Plan"
    description = ("milestones credited when a window paper of the top option matches them, and the "
                   "go/no-go criterion's verdict on the window against whether going was right (mean)")
    families = ()

    def compute(self, context: ScoringContext) -> MetricResult | None:
        task, hidden, payload = context.public_task, context.target, context.answer.payload
        predicted, _ = parse_answer_ranking(payload, context.answer.text, task.candidates)
        milestones = payload.get("milestones") or []
        scored = plan_outcome(predicted[0] if predicted else None,
                              [str(item) for item in milestones] if isinstance(milestones, list) else [],
                              str(payload.get("go_no_go") or ""), list(getattr(hidden, "ranking", []) or []),
                              hidden.stats)
        if scored is None:
            return None
        return MetricResult(name=self.name, value=float(scored["value"]),
                            details={key: value for key, value in scored.items() if key != "value"})

    def note(self, result: MetricResult) -> str:
        details = result.details or {}
        return (f"milestones {details.get('milestones', 'not scored')}, go/no-go {details.get('go_no_go')} "
                f"({details.get('criterion')})")
