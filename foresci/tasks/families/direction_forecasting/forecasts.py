"""direction_forecasting's forecast questions: will the node's share of the domain grow >= 10 % (window vs
the same-length period before the cutoff; a release's rule), will it fall to 1/1.10 of it or below (a
round's supply: the mirror question, so a round asks both directions and a domain-wide shift in the
shares moves its growth and decline items in opposite ways), and will it have more window papers than
then (a round's supply)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from foresci.tasks.families.questions import (
    COUNT_GROWTH_RATE,
    GROWTH_THRESHOLD,
    SHARE_DECLINE_RATE,
    SHARE_GROWTH_RATE,
    QuestionAsk,
    QuestionDraft,
)

if TYPE_CHECKING:
    from foresci.tasks.evidence import DomainEvidence, NodeEvidence
    from foresci.tasks.models import ForecastQuestion, QuestionKind

SHARE_GROWTH, COUNT_GROWTH, SHARE_DECLINE = "share_growth", "count_growth", "share_decline"
RULES: tuple[tuple[str, QuestionKind], ...] = ((SHARE_GROWTH, "binary"), (COUNT_GROWTH, "binary"),
                                               (SHARE_DECLINE, "binary"))
DECLINE = "decline"
"""``params.direction`` of a share-decline question (its ``threshold`` is 1/1.10: the outcome is 1 when the
window share is at or below threshold x baseline share)."""


def write(rule: str, ask: QuestionAsk) -> QuestionDraft | None:
    """The question ``rule`` writes about ``ask``'s node."""
    item = ask.item
    if rule == SHARE_GROWTH:
        return QuestionDraft(
            text=(f"Will the share of new {ask.domain_name} papers in '{ask.node_name}' announced {ask.span} "
                  f"be at least 10 % higher than its share in the same-length period before the cutoff "
                  f"({item.baseline_share:.2%})?"),
            rule=("1 if (window papers routed to the node / window papers of the domain) >= 1.10 x baseline "
                  "share, else 0; papers routed with the frozen snapshot"),
            baseline=ask.rates[SHARE_GROWTH_RATE], params={"threshold": GROWTH_THRESHOLD})
    if rule == SHARE_DECLINE:
        return QuestionDraft(
            text=(f"Will the share of new {ask.domain_name} papers in '{ask.node_name}' announced {ask.span} "
                  f"be at least 10 % lower (1/1.10 or less) than its share in the same-length period before "
                  f"the cutoff ({item.baseline_share:.2%})?"),
            rule=("1 if (window papers routed to the node / window papers of the domain) <= baseline share / "
                  "1.10, else 0; papers routed with the frozen snapshot"),
            baseline=ask.rates.get(SHARE_DECLINE_RATE, 0.5),
            params={"threshold": round(1 / GROWTH_THRESHOLD, 6), "direction": DECLINE})
    return QuestionDraft(
        text=(f"Will more new {ask.domain_name} papers on '{ask.node_name}' be announced {ask.span} than in "
              f"the same-length period before the cutoff ({item.baseline})?"),
        rule=("1 if the window papers routed to the node's subtree outnumber its baseline count, else 0; "
              "papers routed with the frozen snapshot"),
        baseline=ask.rates[COUNT_GROWTH_RATE],
        params={"threshold": 1.0})  # what the share-reading baselines compare their projection with


def resolve(rule: str, question: ForecastQuestion, item: NodeEvidence,
            evidence: DomainEvidence) -> tuple[float, dict[str, Any]]:
    """The outcome of a question of ``rule`` from the window's evidence."""
    if rule == COUNT_GROWTH:
        return float(item.window > int(question.params["baseline_count"])), {}
    baseline_share = float(question.params["baseline_share"])
    if rule == SHARE_DECLINE:
        fell = item.window_share * GROWTH_THRESHOLD <= baseline_share
        return float(fell), {"window_share": round(item.window_share, 6)}
    outcome = float(item.window_share >= float(question.params["threshold"]) * baseline_share
                    and item.window > 0)
    return outcome, {"window_share": round(item.window_share, 6)}
