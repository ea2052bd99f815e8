"""``fact``: judged prediction factuality, claim-level F1 against the hidden claim bank (ForeSci eq. 3-5)."""

from __future__ import annotations

from foresci.evaluation.fact import judged_fact
from foresci.evaluation.judges import JudgeError
from foresci.evaluation.metrics.base import Metric, register_metric
from foresci.evaluation.metrics.context import ScoringContext, judge_failed
from foresci.evaluation.models import MetricResult


@register_metric
class Fact(Metric):
    """Precision over the judge-extracted claims' verdicts, recall over the claim bank's coverage."""

    name = "fact"
    label = "Fact"
    kind = "judged"
    description = (
        "claim-level F1: judge-extracted claims, supported/partial verdicts "
        "(precision) and hidden claim-bank coverage (recall)"
    )
    phase = "judge"
    offline_stand_in = "fact_offline"
    headline = True
    families = ()

    def compute(self, context: ScoringContext) -> MetricResult:
        hidden = context.target
        if not hidden.claims:
            return MetricResult(
                name=self.name, value=None, available=False, reason="the hidden target has no claim bank"
            )
        claims, error, error_kind = context.claim_extraction
        if claims is None:
            return judge_failed(self.name, error, error_kind)
        if context.judge is None:
            raise ValueError(f"{context.answer.task_id}: fact is judged in the judge phase only")
        try:
            return judged_fact(context.judge, context.public_task, claims, hidden.claims)
        except JudgeError as failure:
            return judge_failed(self.name, str(failure), failure.kind)
