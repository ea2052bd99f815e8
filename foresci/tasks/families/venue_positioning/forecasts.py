"""venue_positioning's forecast questions: will a venue family lead the node's venue-tagged window papers
(binary; a release's rule), and how many window papers will name an accepted venue (numeric; a round's
supply)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from foresci.tasks.families.questions import QuestionAsk, QuestionDraft

if TYPE_CHECKING:
    from foresci.tasks.evidence import DomainEvidence, NodeEvidence
    from foresci.tasks.models import ForecastQuestion, QuestionKind

VENUE_LEAD, VENUE_COUNT = "venue_lead", "venue_count"
RULES: tuple[tuple[str, QuestionKind], ...] = ((VENUE_LEAD, "binary"), (VENUE_COUNT, "numeric"))


def write(rule: str, ask: QuestionAsk) -> QuestionDraft | None:
    """The question ``rule`` writes about ``ask``'s node (None: it has no pre-cutoff venue paper)."""
    item = ask.item
    if rule == VENUE_COUNT:
        earlier_count = sum(ask.earlier.window_venues.values()) if ask.earlier is not None else 0
        if not item.pre_venues:
            return None
        return QuestionDraft(
            text=(f"How many {ask.domain_name} papers on '{ask.node_name}' announced {ask.span} will name an "
                  "accepted venue in their arXiv comment? Give p10, p50 and p90."),
            rule=("number of window papers routed to the node's subtree whose arXiv comment names an "
                  "accepted venue (any of the five venue families)"),
            baseline=float(earlier_count), params={"baseline_count": earlier_count})
    if not item.pre_venues:
        return None
    venue = max(sorted(item.pre_venues), key=lambda family_name: item.pre_venues[family_name])
    if ask.rng.random() < 0.5 and len(item.pre_venues) > 1:
        venue = sorted(item.pre_venues, key=lambda family_name: -item.pre_venues[family_name])[1]
    share = item.pre_venues[venue] / sum(item.pre_venues.values())
    return QuestionDraft(
        text=(f"Among {ask.domain_name} papers on '{ask.node_name}' announced {ask.span} whose arXiv comment "
              f"names a venue, will {venue} be the most frequent venue family?"),
        rule=("1 if the venue family has the strictly largest count among the node's venue-tagged window "
              "papers"),
        baseline=round(share, 4), params={"venue_family": venue})


def resolve(rule: str, question: ForecastQuestion, item: NodeEvidence,
            evidence: DomainEvidence) -> tuple[float, dict[str, Any]]:
    """The outcome of a question of ``rule`` from the window's evidence."""
    counts = item.window_venues
    if rule == VENUE_COUNT:
        return float(sum(counts.values())), {"window_venues": dict(counts)}
    venue = str(question.params["venue_family"])
    top = max(counts.values(), default=0)
    outcome = float(counts[venue] == top and top > 0 and list(counts.values()).count(top) == 1)
    return outcome, {"window_venues": dict(counts)}
