"""``top_choice``: was the first pick right? direction: 1 primary / 0.5 acceptable; planning/venue: S_top."""

from __future__ import annotations

from foresci.evaluation.metrics.base import Metric, register_metric
from foresci.evaluation.metrics.context import ScoringContext
from foresci.evaluation.metrics.fta import RANKING_FAMILIES
from foresci.evaluation.models import MetricResult
from foresci.evaluation.ranking import parse_answer_ranking
from foresci.tasks.options import resolve_option


@register_metric
class TopChoice(Metric):
    """A payload direction is what the model chose: one naming no option scores 0 (the text is read only
    when the payload has no direction at all). Absent where the family has no single right first pick."""

    name = "top_choice"
    label = "Top-1"
    description = "first pick right: primary direction 1, acceptable neighbour 0.5; planning/venue S_top"
    row_position = 50

    def compute(self, context: ScoringContext) -> MetricResult | None:
        answer, task, hidden = context.answer, context.public_task, context.target
        if task.family == "direction_forecasting" and hidden.primary_direction:
            label = answer.payload.get("direction")
            chosen = resolve_option(label, task.candidates)
            if label is None:
                predicted, _ = parse_answer_ranking({}, answer.text, task.candidates)
                chosen = predicted[0] if predicted else None
            value = (
                1.0
                if chosen == hidden.primary_direction
                else 0.5
                if chosen in hidden.acceptable_directions
                else 0.0
            )
            trajectory = answer.payload.get("trajectory")
            return MetricResult(
                name=self.name,
                value=value,
                details={
                    "chosen": chosen,
                    "answered": label,
                    "gold": hidden.primary_direction,
                    "trajectory": trajectory,
                    "trajectory_correct": None
                    if hidden.trajectory is None
                    else trajectory == hidden.trajectory,
                },
            )
        if task.family in RANKING_FAMILIES and hidden.ranking:
            predicted, _ = parse_answer_ranking(answer.payload, answer.text, task.candidates)
            value = 1.0 if predicted and predicted[0] == hidden.ranking[0] else 0.0
            return MetricResult(
                name=self.name, value=value, details={"chosen": predicted[:1], "gold": hidden.ranking[0]}
            )
        return None
