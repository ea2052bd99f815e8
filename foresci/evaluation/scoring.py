"""Score one answer row: deterministic and offline metrics here, judged parts passed in from the judges."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from foresci.contracts import Answer, ForecastAnswer
from foresci.evaluation.config import EvaluationSettings
from foresci.evaluation.fact import judged_fact, offline_fact, public_texts
from foresci.evaluation.forecast import brier, brier_skill, numeric_scores
from foresci.evaluation.fta import TextEncoder, reference_guided_fta, split_sentences, target_slots
from foresci.evaluation.judges import JudgeClient, JudgeError
from foresci.evaluation.loading import ReleaseData
from foresci.evaluation.models import MetricResult, Score
from foresci.evaluation.pers import judged_pers, offline_pers
from foresci.evaluation.ranking import ranking_fta
from foresci.evaluation.trace import (
    PaperDates,
    citation_checks,
    citation_summary,
    judged_trace,
    offline_trace,
)
from foresci.tasks.families import get_family
from foresci.tasks.hidden import HiddenTarget, Resolution
from foresci.tasks.models import ForecastQuestion, Task
from foresci.tasks.options import parse_answer_ranking
from foresci.transcripts import Transcript, recording

FORECAST_FAMILY = "forecast"
SCORING_REVISION = 2
"""Part of the evaluation fingerprint: bump it when a metric is computed differently, so stored scores of
the old computation are not reused (2: contract-aware rankings and directions, restatement-aware
fact_offline, judge scores on the 0-10 scale)."""


def answer_text(answer: Answer) -> str:
    """The text that is scored: the rendered answer, or its payload as sentences when the text is empty.

    (Non-LLM baselines may return only a structured payload.) Ranking parsing reads the payload itself.
    """
    if answer.text.strip():
        return answer.text
    parts = []
    for key, value in answer.payload.items():
        if isinstance(value, str) and value.strip():
            parts.append(f"{key.replace('_', ' ').capitalize()}: {value.strip().rstrip('.')}.")
        elif isinstance(value, list) and value and all(isinstance(item, str) for item in value):
            parts.append(f"{key.replace('_', ' ').capitalize()}: {'; '.join(value)}.")
    return "\n".join(parts)


@dataclass
class JudgedParts:
    """What the LLM judges returned for one answer (each part a metric or an error)."""

    claims: list[str] | None = None
    claims_error: str | None = None
    claims_error_kind: str | None = None
    metrics: dict[str, MetricResult] = field(default_factory=dict)


def judge_failed(name: str, error: str | None, kind: str | None) -> MetricResult:
    """A metric left unavailable by a judge failure (recorded with its kind, never a zero)."""
    return MetricResult(
        name=name, value=None, available=False, reason="judge failed", error=error, error_kind=kind
    )


def run_judges(
    client: JudgeClient,
    answer: Answer,
    task: Task,
    hidden: HiddenTarget,
    settings: EvaluationSettings,
    kb_dates: PaperDates | None = None,
) -> JudgedParts:
    """Claim extraction, Fact verdicts, Trace and Pers through the judge (thread-safe: no embeddings)."""
    from foresci.evaluation.fact import extract_claims

    parts = JudgedParts()
    try:
        parts.claims = extract_claims(client, task, answer_text(answer), settings.max_claims)
    except JudgeError as error:
        parts.claims_error, parts.claims_error_kind = str(error), error.kind
    if not hidden.claims:
        parts.metrics["fact"] = MetricResult(
            name="fact", value=None, available=False, reason="the hidden target has no claim bank"
        )
    elif parts.claims is None:
        parts.metrics["fact"] = judge_failed("fact", parts.claims_error, parts.claims_error_kind)
    else:
        try:
            parts.metrics["fact"] = judged_fact(client, task, parts.claims, hidden.claims)
        except JudgeError as error:
            parts.metrics["fact"] = judge_failed("fact", str(error), error.kind)
    checks = citation_checks(answer, task.cutoff, kb_dates)
    parts.metrics["trace"] = judged_trace(
        client, task, answer_text(answer), answer, settings.judge_runs, checks
    )
    parts.metrics["pers"] = judged_pers(client, task, hidden, answer_text(answer), settings.judge_runs)
    return parts


def judge_recorded(
    client: JudgeClient,
    answer: Answer,
    release: ReleaseData,
    settings: EvaluationSettings,
    kb_dates: PaperDates | None = None,
) -> tuple[JudgedParts, Transcript]:
    """:func:`run_judges` on one answer of ``release``, with the transcript of its judge calls."""
    with recording() as transcript:
        parts = run_judges(client, answer, release.tasks[answer.task_id], release.hidden[answer.task_id],
                           settings, kb_dates)
    return parts, transcript


def ranking_metric(answer: Answer, task: Task, hidden: HiddenTarget) -> MetricResult:
    """FTA_rank of a ranking family's answer (planning, venue) against the hidden order."""
    gold: list[str] = getattr(hidden, "ranking", [])
    if not gold:
        return MetricResult(
            name="fta", value=None, available=False, reason="the hidden target has no ranking"
        )
    predicted, source = parse_answer_ranking(answer.payload, answer.text, task.candidates)
    score = ranking_fta(gold, predicted)
    return MetricResult(
        name="fta",
        value=score.f1,
        precision=score.precision,
        recall=score.recall,
        details={
            "kind": "rank",
            "predicted": predicted,
            "gold": gold,
            "parsed_from": source,
            "recall_checks": vars(score.recall_checks),
            "precision_checks": vars(score.precision_checks),
        },
    )


def slot_metric(
    name: str, claims: Sequence[str], task: Task, hidden: HiddenTarget, encoder: TextEncoder
) -> MetricResult:
    """FTA_RG of a direction/bottleneck answer from its claims (named ``name``)."""
    slots, source = target_slots(task, hidden)
    if not slots:
        return MetricResult(
            name=name, value=None, available=False, reason="the hidden target has no FTA slots"
        )
    alignment = reference_guided_fta(list(claims), slots, encoder)
    return MetricResult(
        name=name,
        value=alignment.value,
        details={
            "kind": "reference_guided",
            "slots_from": source,
            "claims": len(claims),
            "slots": [
                {"name": slot.name, "score": score, "best_claim": best}
                for slot, score, best in zip(slots, alignment.slot_scores, alignment.best_claims, strict=True)
            ],
        },
    )


def top_choice_metric(answer: Answer, task: Task, hidden: HiddenTarget) -> MetricResult | None:
    """``top_choice``: was the first pick right? The task's family decides
    (:meth:`foresci.tasks.families.TaskFamily.top_choice`: direction 1 primary / 0.5 acceptable; ranking
    families S_top); None where it does not apply."""
    top = get_family(task.family).top_choice(answer, task, hidden)
    return None if top is None else MetricResult(name="top_choice", value=top.value, details=top.details)


def score_task_answer(
    answer: Answer,
    task: Task,
    hidden: HiddenTarget,
    settings: EvaluationSettings,
    encoder: TextEncoder,
    judged: JudgedParts | None,
    kb_dates: PaperDates | None = None,
) -> Score:
    """All metrics of one task answer: deterministic + offline always, judged ones if ``judged``.

    ``kb_dates`` (announcement dates of the cited ids the KB holds) checks citations against the KB.
    """
    metrics: dict[str, MetricResult] = {}
    checks = citation_checks(answer, task.cutoff, kb_dates)
    family = get_family(task.family)
    if family.ranked:
        metrics["fta"] = ranking_metric(answer, task, hidden)
    elif judged is not None:
        if judged.claims is None:
            metrics["fta"] = judge_failed("fta", judged.claims_error, judged.claims_error_kind)
        else:
            metrics["fta"] = slot_metric("fta", judged.claims, task, hidden, encoder)
    if "fta_offline_claims" in family.metrics:
        sentences = split_sentences(answer_text(answer), limit=settings.max_claims)
        metrics["fta_offline_claims"] = slot_metric("fta_offline_claims", sentences, task, hidden, encoder)
    if hidden.claims:
        metrics["fact_offline"] = offline_fact(
            answer_text(answer),
            hidden.claims,
            encoder,
            settings.max_claims,
            settings.offline_supported_threshold,
            settings.offline_partial_threshold,
            public_texts(task),
        )
    metrics["trace_offline"] = offline_trace(answer_text(answer), answer.support, checks, encoder)
    top = top_choice_metric(answer, task, hidden)
    if top is not None:
        metrics["top_choice"] = top
    if judged is not None:
        metrics.update(judged.metrics)
    else:
        metrics["pers"] = offline_pers()
    return Score(
        task_id=answer.task_id,
        family=task.family,
        domain=task.domain,
        method=answer.method,
        model=answer.model,
        mode=answer.mode,
        metrics=metrics,
        contamination_risk=answer.contamination_risk,
        evaluation="judged" if judged is not None else "offline",
        contract=answer.contract,
        contract_notes=list(answer.contract_notes),
        evidence=answer.evidence,
        citations=citation_summary(checks),
    )


def score_forecast_answer(answer: Answer, question: ForecastQuestion, resolution: Resolution) -> Score:
    """Proper scores of one forecast answer: CRPS family for numeric, Brier family for binary."""
    forecast = ForecastAnswer.model_validate(answer.payload)
    metrics: dict[str, MetricResult] = {}
    outcome = resolution.outcome
    if question.kind == "numeric":
        if forecast.p10 is None or forecast.p50 is None or forecast.p90 is None:
            raise ValueError(f"forecast answer to {question.question_id} lacks p10/p50/p90")
        scores = numeric_scores(forecast.p10, forecast.p50, forecast.p90, outcome, question.baseline)
        for name in ("crps", "crps_skill"):
            value = scores[name]
            metrics[name] = MetricResult(
                name=name, value=None if value is None else float(value), available=value is not None
            )
        for name in ("cover_1", "cover_2", "cover_3", "within_x3", "within_x10"):
            metrics[name] = MetricResult(name=name, value=float(bool(scores[name])))
        metrics["crps"].details = {key: scores[key] for key in ("z", "mu", "sigma", "baseline_crps")} | {
            "outcome": outcome,
            "p10": forecast.p10,
            "p50": forecast.p50,
            "p90": forecast.p90,
        }
    else:
        if forecast.probability is None:
            raise ValueError(f"forecast answer to {question.question_id} lacks a probability")
        value = brier(forecast.probability, outcome)
        baseline_probability = question.baseline if question.baseline is not None else 0.5
        baseline = brier(min(max(baseline_probability, 0.0), 1.0), outcome)
        metrics["brier"] = MetricResult(
            name="brier",
            value=value,
            details={
                "probability": forecast.probability,
                "outcome": outcome,
                "baseline_probability": baseline_probability,
                "baseline_brier": baseline,
            },
        )
        skill = brier_skill(value, baseline)
        metrics["brier_skill"] = MetricResult(name="brier_skill", value=skill, available=skill is not None)
    return Score(
        task_id=answer.task_id,
        family=FORECAST_FAMILY,
        domain=question.domain,
        method=answer.method,
        model=answer.model,
        mode=answer.mode,
        metrics=metrics,
        contamination_risk=answer.contamination_risk,
        evaluation="offline",
    )
