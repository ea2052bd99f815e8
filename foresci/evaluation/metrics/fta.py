"""``fta``: future-target alignment (ForeSci eq. 6-11): ranking-aware for planning/venue (deterministic),
reference-guided over the judge-extracted claims for direction/bottleneck (judged evaluations only)."""

from __future__ import annotations

from collections.abc import Sequence

from foresci.evaluation.fta import reference_guided_fta, target_slots
from foresci.evaluation.metrics.base import Metric, register_metric
from foresci.evaluation.metrics.context import ScoringContext, judge_failed
from foresci.evaluation.models import MetricResult
from foresci.evaluation.ranking import ranking_fta
from foresci.tasks.families import get_family
from foresci.tasks.options import parse_answer_ranking


def ranking_result(name: str, context: ScoringContext) -> MetricResult:
    """FTA_rank of a ranking family's answer (planning, venue) against the hidden order (named ``name``)."""
    task, answer = context.public_task, context.answer
    gold: list[str] = getattr(context.target, "ranking", [])
    if not gold:
        return MetricResult(
            name=name, value=None, available=False, reason="the hidden target has no ranking"
        )
    predicted, source = parse_answer_ranking(answer.payload, answer.text, task.candidates)
    score = ranking_fta(gold, predicted)
    return MetricResult(
        name=name,
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


def slot_result(name: str, claims: Sequence[str], context: ScoringContext) -> MetricResult:
    """FTA_RG of a direction/bottleneck answer from ``claims`` (named ``name``)."""
    slots, source = target_slots(context.public_task, context.target)
    if not slots:
        return MetricResult(
            name=name, value=None, available=False, reason="the hidden target has no FTA slots"
        )
    alignment = reference_guided_fta(list(claims), slots, context.embedder)
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


def alignment_note(result: MetricResult) -> str:
    """The drill-down note of an FTA result: the parsed ranking vs gold, or each slot's score."""
    details = result.details or {}
    if details.get("kind") == "rank":
        source, predicted, gold = details.get("parsed_from"), details.get("predicted"), details.get("gold")
        return f"parsed from {source}: {predicted} vs gold {gold}"
    if details.get("kind") == "reference_guided":
        slots = ", ".join(f"{slot['name']} {slot['score']:.2f}" for slot in details.get("slots", []))
        return f"slots ({details.get('slots_from')}): {slots}"
    return ""


@register_metric
class FutureTargetAlignment(Metric):
    """Ranking FTA where the family ranks options (``TaskFamily.ranked``); slot FTA over the judge's
    claims elsewhere."""

    name = "fta"
    label = "FTA"
    kind = "deterministic"
    description = (
        "future-target alignment: ranking-aware F1 for planning/venue "
        "(deterministic); reference-guided slot-max-mean cosine over judge-extracted claims for "
        "direction/bottleneck (judged mode only)"
    )
    families = ()
    offline_stand_in = "fta_offline_claims"
    headline = True

    def compute(self, context: ScoringContext) -> MetricResult | None:
        if get_family(context.family).ranked:
            return ranking_result(self.name, context)
        if not context.judging:
            return None
        claims, error, error_kind = context.claim_extraction
        if claims is None:
            return judge_failed(self.name, error, error_kind)
        return slot_result(self.name, claims, context)

    def note(self, result: MetricResult) -> str:
        return alignment_note(result)
