"""Evidence traceability (ForeSci eq. 12): judged rubric, deterministic citation checks, offline proxy."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from foresci.agents.models import SupportArtifact
from foresci.evaluation.fta import TextEncoder, clipped_cosine_matrix, split_sentences
from foresci.evaluation.judges import JudgeClient, TraceJudgement, public_task_json
from foresci.evaluation.models import MetricResult
from foresci.evaluation.rubric import judged_rubric_metric
from foresci.tasks.models import Task

WEIGHTS = {"evidence_linkage": 0.50, "support_specificity": 0.25, "answer_internal_trace": 0.25}


def trace_score(linkage: float, specificity: float, internal: float) -> float:
    """Trace = 0.50 e + 0.25 s + 0.25 t."""
    return (
        WEIGHTS["evidence_linkage"] * linkage
        + WEIGHTS["support_specificity"] * specificity
        + WEIGHTS["answer_internal_trace"] * internal
    )


def not_applicable(name: str) -> MetricResult:
    """Trace of an answer without a support artifact: '–', excluded from aggregates."""
    return MetricResult(name=name, value=None, available=False, reason="no support artifact (not applicable)")


def citation_checks(support: SupportArtifact, cutoff: date) -> dict[str, Any]:
    """Which cited ids exist among the retrieved items and are dated on or before the cutoff."""
    announced = {item.paper_id: item.announced for item in support.retrieved}
    cited = list(dict.fromkeys(paper_id for evidence in support.evidence for paper_id in evidence.paper_ids))
    unknown = [paper_id for paper_id in cited if paper_id not in announced]
    late = [paper_id for paper_id in cited if paper_id in announced and announced[paper_id] > cutoff]
    valid = [paper_id for paper_id in cited if paper_id not in unknown and paper_id not in late]
    linked = [
        evidence for evidence in support.evidence if any(paper_id in valid for paper_id in evidence.paper_ids)
    ]
    return {
        "cited": len(cited),
        "valid": len(valid),
        "unknown_ids": unknown,
        "after_cutoff_ids": late,
        "retrieved": len(announced),
        "retrieved_after_cutoff": sorted(pid for pid, day in announced.items() if day > cutoff),
        "valid_share": len(valid) / len(cited) if cited else 0.0,
        "linked_claim_share": len(linked) / len(support.evidence) if support.evidence else 0.0,
    }


def support_brief(support: SupportArtifact, checks: dict[str, Any], limit: int = 40) -> str:
    """The evidence-content brief shown to the trace judge (JSON; long lists truncated)."""
    brief = {
        "queries": support.queries[:limit],
        "retrieved": [
            {"paper_id": item.paper_id, "title": item.title, "announced": item.announced.isoformat()}
            for item in support.retrieved[:limit]
        ],
        "evidence": [
            {"claim": evidence.claim, "paper_ids": evidence.paper_ids}
            for evidence in support.evidence[:limit]
        ],
        "notes": support.notes[:limit],
        "citation_checks": {
            key: checks[key] for key in ("cited", "valid", "unknown_ids", "after_cutoff_ids")
        },
    }
    return json.dumps(brief, ensure_ascii=False)


def judged_trace(
    client: JudgeClient, task: Task, answer_text: str, support: SupportArtifact | None, runs: int
) -> MetricResult:
    """Trace judged ``runs`` times from the rubric dimensions; value = mean, variance across runs."""
    if support is None:
        return not_applicable("trace")
    checks = citation_checks(support, task.cutoff)
    brief = support_brief(support, checks)

    def score(scores: dict[str, float]) -> tuple[float, dict[str, float]]:
        value = trace_score(
            scores["evidence_linkage"], scores["support_specificity"], scores["answer_internal_trace"]
        )
        return value, {key: scores[key] for key in WEIGHTS}

    def details(passes: list[dict[str, float]] | None) -> dict[str, Any]:
        return {"citations": checks} if passes is None else {"citations": checks, "dimensions": passes}

    return judged_rubric_metric(
        "trace",
        client,
        "trace",
        TraceJudgement,
        runs,
        score,
        details,
        task_json=public_task_json(task),
        answer=answer_text,
        support_json=brief,
    )


def offline_trace(
    answer_text: str, support: SupportArtifact | None, cutoff: date, encoder: TextEncoder
) -> MetricResult:
    """``trace_offline``: the same weights over deterministic proxies (not the judged Trace).

    e = share of evidence claims with at least one valid citation; s = share of cited ids that are valid
    (retrieved and dated <= cutoff); t = mean over evidence claims of their best clipped cosine to an
    answer sentence (is the evidence actually used in the answer?).
    """
    if support is None:
        return not_applicable("trace_offline")
    checks = citation_checks(support, cutoff)
    claims = [evidence.claim for evidence in support.evidence if evidence.claim.strip()]
    sentences = split_sentences(answer_text)
    similarity = clipped_cosine_matrix(encoder, claims, sentences)
    internal = float(similarity.max(axis=1).mean()) if similarity.size else 0.0
    linkage, specificity = checks["linked_claim_share"], checks["valid_share"]
    return MetricResult(
        name="trace_offline",
        value=trace_score(linkage, specificity, internal),
        details={
            "citations": checks,
            "dimensions": {
                "evidence_linkage": linkage,
                "support_specificity": specificity,
                "answer_internal_trace": internal,
            },
        },
    )
