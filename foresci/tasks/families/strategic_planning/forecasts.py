"""strategic_planning's forecast question: how many domain papers will be routed to the node during the
window (numeric, p10/p50/p90)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from foresci.tasks.families.questions import QuestionAsk, QuestionDraft

if TYPE_CHECKING:
    from foresci.tasks.evidence import DomainEvidence, NodeEvidence
    from foresci.tasks.models import ForecastQuestion, QuestionKind

NODE_COUNT = "node_count"
RULES: tuple[tuple[str, QuestionKind], ...] = ((NODE_COUNT, "numeric"),)


def write(rule: str, ask: QuestionAsk) -> QuestionDraft | None:
    """The node-count question about ``ask``'s node (naive answer: its baseline count)."""
    return QuestionDraft(
        text=(f"How many {ask.domain_name} papers on '{ask.node_name}' will be announced {ask.span}? Give "
              "p10, p50 and p90."),
        rule="number of domain papers announced in the window and routed to the node's subtree",
        baseline=float(ask.item.baseline))


def resolve(rule: str, question: ForecastQuestion, item: NodeEvidence,
            evidence: DomainEvidence) -> tuple[float, dict[str, Any]]:
    """The node's window papers."""
    return float(item.window), {}
