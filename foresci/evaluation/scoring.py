"""Score one answer row by looping over the metric registry with its :class:`ScoringContext`.

Two phases: the judge phase (:func:`run_judges`, thread-safe, may run on Ray workers) extracts the
answer's claims and computes the judge-phase metrics with the LLM judge; the score phase
(:func:`score_task_answer`) computes every other metric where the embedder is and takes the judge-phase
results from the context (or each judge-phase metric's offline result in an offline evaluation).
Forecast rows (:func:`score_forecast_answer`) are scored by the metrics of the ``forecast`` family.
"""

from __future__ import annotations

from foresci.core.transcripts import Transcript, recording
from foresci.evaluation.metrics import (
    FORECAST_FAMILY,
    JudgedParts,
    ScoringContext,
    judge_failed,
    metrics_for,
)
from foresci.evaluation.models import MetricResult, Score
from foresci.evaluation.trace import citation_summary

__all__ = [
    "FORECAST_FAMILY",
    "JudgedParts",
    "judge_failed",
    "judge_recorded",
    "run_judges",
    "score_forecast_answer",
    "score_task_answer",
]


def run_judges(context: ScoringContext) -> JudgedParts:
    """Claim extraction, then every judge-phase metric of the row's family (thread-safe: no embeddings)."""
    claims, error, error_kind = context.claim_extraction
    parts = JudgedParts(claims=claims, claims_error=error, claims_error_kind=error_kind)
    for metric in metrics_for(context.family, phase="judge"):
        result = metric.compute(context)
        if result is not None:
            parts.metrics[metric.name] = result
    return parts


def judge_recorded(context: ScoringContext) -> tuple[JudgedParts, Transcript]:
    """:func:`run_judges` on the context's answer, with the transcript of its judge calls."""
    with recording() as transcript:
        parts = run_judges(context)
    return parts, transcript


def _row_metrics(context: ScoringContext) -> dict[str, MetricResult]:
    metrics: dict[str, MetricResult] = {}
    for metric in metrics_for(context.family):
        if metric.phase == "judge":
            judged = context.judged
            result = judged.metrics.get(metric.name) if judged is not None else metric.offline(context)
        else:
            result = metric.compute(context)
        if result is not None:
            metrics[metric.name] = result
    return metrics


def score_task_answer(context: ScoringContext) -> Score:
    """All metrics of one task answer: score-phase ones computed here, judge-phase ones from
    ``context.judged`` (their offline results when it is None)."""
    answer, task = context.answer, context.public_task
    metrics = _row_metrics(context)
    return Score(
        task_id=answer.task_id,
        family=task.family,
        domain=task.domain,
        method=answer.method,
        model=answer.model,
        mode=answer.mode,
        metrics=metrics,
        contamination_risk=answer.contamination_risk,
        evaluation="judged" if context.judged is not None else "offline",
        contract=answer.contract,
        contract_notes=list(answer.contract_notes),
        evidence=answer.evidence,
        citations=citation_summary(context.citation_checks) if context.kb_dates is not None else None,
    )


def score_forecast_answer(context: ScoringContext) -> Score:
    """Proper scores of one forecast answer (the ``forecast`` family's metrics); a ValueError when the
    answer is no valid forecast (unordered quantiles, a missing probability)."""
    answer = context.answer
    context.forecast  # noqa: B018 - an invalid payload fails before any metric
    metrics = _row_metrics(context)
    return Score(
        task_id=answer.task_id,
        family=FORECAST_FAMILY,
        domain=context.forecast_question.domain,
        method=answer.method,
        model=answer.model,
        mode=answer.mode,
        metrics=metrics,
        contamination_risk=answer.contamination_risk,
        evaluation="offline",
    )
