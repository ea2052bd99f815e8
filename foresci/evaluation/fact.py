"""Prediction factuality (ForeSci eq. 3-5): judged claim-level F1, and its offline approximation."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from foresci.evaluation.fta import TextEncoder, clipped_cosine_matrix, split_sentences
from foresci.evaluation.judges import ExtractedClaims, FactVerdicts, JudgeClient, call_judge, public_task_json
from foresci.evaluation.models import MetricResult
from foresci.tasks.hidden import Claim
from foresci.tasks.models import Task

PHI = {"supported": 1.0, "partially_supported": 0.5, "unsupported": 0.0, "not_checkable": 0.0}
PSI = {"covered": 1.0, "partially_covered": 0.5, "not_covered": 0.0}


def claim_f1(phi: Sequence[float], psi: Sequence[float]) -> tuple[float, float, float]:
    """(F1, Prec, Rec) with Prec = mean(phi), Rec = mean(psi), F1 = 0 when both are 0 (empty lists give 0)."""
    precision = float(np.mean(phi)) if len(phi) else 0.0
    recall = float(np.mean(psi)) if len(psi) else 0.0
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return f1, precision, recall


def extract_claims(client: JudgeClient, task: Task, answer_text: str, max_claims: int) -> list[str]:
    """The judge's atomic claims of an answer (at most ``max_claims``, blanks dropped)."""
    result = call_judge(
        client,
        "claim_extraction",
        ExtractedClaims,
        task_json=public_task_json(task),
        answer=answer_text,
        max_claims=max_claims,
    )
    return [claim.strip() for claim in result.claims if claim.strip()][:max_claims]


def judged_fact(
    client: JudgeClient, task: Task, claims: Sequence[str], gold: Sequence[Claim]
) -> MetricResult:
    """Fact from the verifier's labels: phi per answer claim, psi per gold claim, then F1.

    Answer claims the verifier skipped count as unsupported and gold units it skipped as not covered;
    both are listed in the details.
    """
    gold_json = json.dumps(
        [{"gold_claim_id": claim.claim_id, "text": claim.text, "variants": claim.variants} for claim in gold],
        ensure_ascii=False,
    )
    claims_json = json.dumps(
        [{"index": index, "claim": claim} for index, claim in enumerate(claims)], ensure_ascii=False
    )
    verdicts = call_judge(
        client,
        "fact_verdicts",
        FactVerdicts,
        task_json=public_task_json(task),
        answer_claims_json=claims_json,
        gold_claims_json=gold_json,
    )
    labels: dict[int, str] = {}
    for verdict in verdicts.answer_claim_verdicts:
        if 0 <= verdict.claim_index < len(claims):
            labels.setdefault(verdict.claim_index, verdict.label)
    coverage: dict[str, str] = {}
    for item in verdicts.gold_claim_coverage:
        coverage.setdefault(item.gold_claim_id, item.label)
    phi = [PHI[labels[index]] if index in labels else 0.0 for index in range(len(claims))]
    psi = [PSI[coverage[claim.claim_id]] if claim.claim_id in coverage else 0.0 for claim in gold]
    f1, precision, recall = claim_f1(phi, psi)
    return MetricResult(
        name="fact",
        value=f1,
        precision=precision,
        recall=recall,
        details={
            "claims": list(claims),
            "claim_labels": [labels.get(index) for index in range(len(claims))],
            "gold_labels": {claim.claim_id: coverage.get(claim.claim_id) for claim in gold},
            "unlabelled_claims": [index for index in range(len(claims)) if index not in labels],
            "unlabelled_gold": [claim.claim_id for claim in gold if claim.claim_id not in coverage],
        },
    )


def public_texts(task: Task) -> list[str]:
    """What the task itself already says: title, question, candidate names and descriptions."""
    texts = [task.title, task.question]
    for candidate in task.candidates:
        texts.append(candidate.name)
        if candidate.description:
            texts.append(f"{candidate.name}: {candidate.description}")
    return [text for text in texts if text.strip()]


def offline_fact(
    answer_text: str,
    gold: Sequence[Claim],
    encoder: TextEncoder,
    max_claims: int,
    supported: float,
    partial: float,
    task_texts: Sequence[str] = (),
) -> MetricResult:
    """``fact_offline``: answer sentences as claims, embedding match against the claim bank.

    A sentence whose best clipped cosine to any gold text/variant is >= ``supported`` gets phi 1, >=
    ``partial`` 0.5, else 0; a gold claim gets psi the same way from its best sentence. A sentence at
    least as close to one of ``task_texts`` (what the task already says: candidate names, the question)
    as to every gold claim restates the task and claims nothing: phi 0 (not checkable), and it covers no
    gold claim. Not the judged Fact.
    """
    sentences = split_sentences(answer_text, limit=max_claims)
    texts = [text for claim in gold for text in [claim.text, *claim.variants]]
    owners = [index for index, claim in enumerate(gold) for _ in [claim.text, *claim.variants]]
    similarity = clipped_cosine_matrix(encoder, sentences, texts)
    per_gold = np.zeros((len(sentences), len(gold)), dtype=np.float32)
    for column, owner in enumerate(owners):
        per_gold[:, owner] = np.maximum(per_gold[:, owner], similarity[:, column])
    restating: list[int] = []
    if task_texts and sentences and len(gold):
        to_task = clipped_cosine_matrix(encoder, sentences, list(task_texts)).max(axis=1)
        restating = [index for index in range(len(sentences)) if to_task[index] >= per_gold[index].max()]
        per_gold[restating, :] = 0.0

    def grade(value: float) -> float:
        return 1.0 if value >= supported else 0.5 if value >= partial else 0.0

    phi = [grade(float(row.max())) for row in per_gold] if len(gold) else []
    psi = [grade(float(per_gold[:, index].max())) if len(sentences) else 0.0 for index in range(len(gold))]
    f1, precision, recall = claim_f1(phi, psi)
    return MetricResult(
        name="fact_offline",
        value=f1,
        precision=precision,
        recall=recall,
        details={
            "claims": sentences,
            "phi": phi,
            "psi": psi,
            "restating_task": restating,
            "thresholds": {"supported": supported, "partial": partial},
        },
    )
