"""direction_forecasting's forecast questions: will the node's share of the domain grow >= 10 % (window vs
the same-length period before the cutoff; a release's rule), and will it have more window papers than
then (a round's supply)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from foresci.tasks.families.questions import (
    COUNT_GROWTH_RATE,
    GROWTH_THRESHOLD,
    SHARE_GROWTH_RATE,
    QuestionAsk,
    QuestionDraft,
)

if TYPE_CHECKING:
    from foresci.tasks.evidence import DomainEvidence, NodeEvidence
    from foresci.tasks.models import ForecastQuestion, QuestionKind

SHARE_GROWTH, COUNT_GROWTH = "share_growth", "count_growth"
RULES: tuple[tuple[str, QuestionKind], ...] = ((SHARE_GROWTH, "binary"), (COUNT_GROWTH, "binary"))


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
    outcome = float(item.window_share >= float(question.params["threshold"]) * baseline_share
                    and item.window > 0)
    return outcome, {"window_share": round(item.window_share, 6)}
