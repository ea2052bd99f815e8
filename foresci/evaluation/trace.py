"""Evidence traceability (ForeSci eq. 12): judged rubric, deterministic citation checks, offline proxy.

Citation checks cover every id-like citation of an answer — in its text, its payload and its evidence
links — against the KB at the task cutoff: ids the KB does not hold, ids announced after the cutoff and
ids never retrieved are counted, lower ``trace_offline`` and are shown to the Trace judge. The KB is the
one the run recorded or ``eval --kb``, never the method's own list of what it retrieved (an agent may
date a paper as it likes): where no KB can be read, Trace and Trace~off are not computed
(:data:`~foresci.evaluation.models.NO_KB`). A citation that fails the checks never raises a score: a
claim of the support artifact counts towards the internal-trace term only when it cites a valid paper,
and the judge sees each claim's valid citations only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from foresci.contracts import Answer, Evidence, SupportArtifact
from foresci.evaluation.fta import TextEncoder, clipped_cosine_matrix, split_sentences
from foresci.evaluation.judges import JudgeClient, TraceJudgement, public_task_json
from foresci.evaluation.models import NO_KB, MetricResult
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


def not_checked(name: str) -> MetricResult:
    """Trace of an answer whose citations cannot be checked against a KB: '–', excluded from aggregates."""
    return MetricResult(name=name, value=None, available=False, reason=NO_KB)


def invalid_ids(checks: dict[str, Any]) -> set[str]:
    """The cited ids that failed the checks: unknown, after the cutoff or never retrieved."""
    return {*checks["unknown_ids"], *checks["after_cutoff_ids"], *checks["not_retrieved_ids"]}


def validly_cited(evidence: Evidence, invalid: set[str]) -> bool:
    """Whether a claim of the support artifact cites at least one paper that passed the checks."""
    return any(pid not in invalid for pid in evidence.paper_ids)


# new-style (2501.01234, 2501.1234v2) and old-style (cs/0501001, math.GT/0309136) arXiv ids
CITATION_ID = re.compile(r"(?<![\w./-])(\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?(?![\w/])")
PaperDates = Mapping[str, date]  # paper id -> first announcement, for the cited ids the KB holds


def cited_ids(answer: Answer) -> list[str]:
    """Every id the answer cites: evidence links first, then id-like strings of its text and payload."""
    linked = [
        pid for evidence in (answer.support.evidence if answer.support else []) for pid in evidence.paper_ids
    ]
    written = CITATION_ID.findall(answer.text + "\n" + json.dumps(answer.payload, ensure_ascii=False))
    return list(dict.fromkeys([*linked, *written]))


def citation_checks(answer: Answer, cutoff: date, kb_dates: PaperDates | None = None) -> dict[str, Any]:
    """Which cited ids exist, are dated on or before the cutoff and were retrieved by the method.

    ``kb_dates`` (the KB's announcement dates of the cited ids it holds) makes the check against the KB;
    without it an id counts as known only when the method retrieved it.
    """
    support = answer.support
    retrieved = {item.paper_id: item.announced for item in support.retrieved} if support else {}
    announced: Mapping[str, date] = kb_dates if kb_dates is not None else retrieved
    cited = cited_ids(answer)
    unknown = [pid for pid in cited if pid not in announced]
    late = [pid for pid in cited if pid in announced and announced[pid] > cutoff]
    unretrieved = [
        pid
        for pid in cited
        if support is not None and pid in announced and pid not in late and pid not in retrieved
    ]
    invalid = set(unknown) | set(late) | set(unretrieved)
    valid = [pid for pid in cited if pid not in invalid]
    evidence = support.evidence if support else []
    linked = [item for item in evidence if any(pid in valid for pid in item.paper_ids)]
    return {
        "checked_against": "kb" if kb_dates is not None else "retrieved",
        "cited": len(cited),
        "valid": len(valid),
        "unknown_ids": unknown,
        "after_cutoff_ids": late,
        "not_retrieved_ids": unretrieved,
        "retrieved": len(retrieved),
        "retrieved_after_cutoff": sorted(pid for pid, day in retrieved.items() if day > cutoff),
        "valid_share": len(valid) / len(cited) if cited else 0.0,
        "linked_claim_share": len(linked) / len(evidence) if evidence else 0.0,
    }


CITATION_SUMMARY = (
    "checked_against",
    "cited",
    "valid",
    "unknown_ids",
    "after_cutoff_ids",
    "not_retrieved_ids",
)


def citation_summary(checks: dict[str, Any]) -> dict[str, Any]:
    """The part of :func:`citation_checks` shown to the Trace judge and stored on the score row."""
    return {key: checks[key] for key in CITATION_SUMMARY}


def support_brief(support: SupportArtifact, checks: dict[str, Any], limit: int = 40) -> str:
    """The evidence-content brief shown to the trace judge (JSON; long lists truncated)."""
    invalid = invalid_ids(checks)
    brief = {
        "queries": support.queries[:limit],
        "retrieved": [
            {"paper_id": item.paper_id, "title": item.title, "announced": item.announced.isoformat()}
            for item in support.retrieved[:limit]
        ],
        "evidence": [  # only the citations that passed the checks: a failed one cannot raise the score
            {"claim": evidence.claim, "paper_ids": [pid for pid in evidence.paper_ids if pid not in invalid]}
            for evidence in support.evidence[:limit]
        ],
        "notes": support.notes[:limit],
        "citation_checks": citation_summary(checks),
    }
    return json.dumps(brief, ensure_ascii=False)


def judged_trace(
    client: JudgeClient, task: Task, answer_text: str, answer: Answer, runs: int, checks: dict[str, Any]
) -> MetricResult:
    """Trace judged ``runs`` times from the rubric dimensions; value = mean, variance across runs.

    ``checks`` (from :func:`citation_checks`) reach the judge inside the support brief.
    """
    support = answer.support
    if support is None:
        return not_applicable("trace")
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
    answer_text: str, support: SupportArtifact | None, checks: dict[str, Any], encoder: TextEncoder
) -> MetricResult:
    """``trace_offline``: the same weights over deterministic proxies (not the judged Trace).

    e = share of evidence claims with at least one valid citation; s = share of all cited ids (evidence,
    text and payload) that are valid (known, dated <= cutoff, retrieved); t = mean over evidence claims
    of their best clipped cosine to an answer sentence (is the evidence actually used in the answer?),
    a claim without a valid citation counting 0 (it is no evidence: citing the future never adds).
    """
    if support is None:
        return not_applicable("trace_offline")
    invalid = invalid_ids(checks)
    kept = [evidence for evidence in support.evidence if evidence.claim.strip()]
    claims = [evidence.claim for evidence in kept]
    sentences = split_sentences(answer_text)
    similarity = clipped_cosine_matrix(encoder, claims, sentences)
    if similarity.size:
        valid = [validly_cited(evidence, invalid) for evidence in kept]
        best = similarity.max(axis=1)
        internal = float(sum(value for value, ok in zip(best, valid, strict=True) if ok) / len(kept))
    else:
        internal = 0.0
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


def citation_note(checks: dict[str, Any]) -> str:
    """One line on an answer's citations: valid share, unknown and after-cutoff ids."""
    note = (
        f"citations valid {checks.get('valid', 0)}/{checks.get('cited', 0)}, "
        f"unknown {len(checks.get('unknown_ids', []))}, "
        f"after cutoff {len(checks.get('after_cutoff_ids', []))}"
    )
    flagged = [*checks.get("unknown_ids", []), *checks.get("after_cutoff_ids", [])][:8]
    return note + (f" ({', '.join(flagged)})" if flagged else "")
