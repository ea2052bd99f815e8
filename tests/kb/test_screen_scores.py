"""Screening precision/recall per domain against labelled papers (benchmarks/quality.py uses it)."""

from __future__ import annotations

from foresci.kb.models import ScreenDecision
from foresci.kb.screen import screening_scores


def _decision(paper_id: str, domain: str, status: str) -> ScreenDecision:
    return ScreenDecision(paper_id=paper_id, domain=domain, status=status, reason="test",  # type: ignore[arg-type]
                          similarity=0.5)


def test_scores_count_cross_domain_core_as_false_positive() -> None:
    labels = {"p1": {"rag"}, "p2": {"rag", "agents"}, "p3": {"agents"}, "p4": {"agents"}}
    decisions = [_decision("p1", "rag", "core"), _decision("p2", "rag", "support"),
                 _decision("p3", "rag", "core"), _decision("p4", "rag", "excluded"),
                 _decision("p2", "agents", "core"), _decision("p3", "agents", "core"),
                 _decision("p4", "agents", "support")]
    scores = screening_scores(decisions, labels, ["rag", "agents"])
    assert scores["rag"] == {"labelled": 2, "screened_core": 2, "true_core": 1, "precision": 0.5,
                             "recall": 0.5, "recall_core_or_support": 1.0}
    assert scores["agents"]["precision"] == 1.0 and scores["agents"]["recall"] == round(2 / 3, 4)
    assert scores["agents"]["recall_core_or_support"] == 1.0
