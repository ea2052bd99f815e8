"""bottleneck_opportunity's forecast question: how many window papers of the node will address one of
its pre-cutoff bottleneck signals (numeric, p10/p50/p90)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from foresci.tasks.families.questions import QuestionAsk, QuestionDraft
from foresci.tasks.text import content_tokens, core_phrase

if TYPE_CHECKING:
    from foresci.kb.models import Paper
    from foresci.tasks.evidence import DomainEvidence, NodeEvidence
    from foresci.tasks.models import ForecastQuestion, QuestionKind

MENTIONS = "bottleneck_mentions"
MENTION_SHARE = 0.6
RULES: tuple[tuple[str, QuestionKind], ...] = ((MENTIONS, "numeric"),)


def mentions(words: set[str], paper: Paper) -> bool:
    """Whether the paper's title+abstract holds at least MENTION_SHARE of ``words``."""
    return covers(words, frozenset(content_tokens(paper.text)))


def covers(words: set[str], paper_words: frozenset[str]) -> bool:
    """:func:`mentions` on a paper's content tokens (``DomainEvidence.token_set``: tokenised once per
    paper, not once per limitation and question)."""
    return bool(words) and len(words & paper_words) >= MENTION_SHARE * len(words)


def write(rule: str, ask: QuestionAsk) -> QuestionDraft | None:
    """The question about the node's most mentioned pre-cutoff bottleneck (None: it has none mentioned in
    the baseline period)."""
    item, evidence = ask.item, ask.evidence
    window = evidence.window
    signals = [signal for signal in item.node.signals if signal.kind == "bottleneck"
               and (signal.first_seen is None or signal.first_seen <= evidence.cutoff)]
    if not signals:
        return None
    recent = [evidence.token_set(paper_id) for paper_id in item.pre_ids
              if window.in_baseline(evidence.papers[paper_id].announced)]
    counted = []
    for signal in signals:
        words = set(content_tokens(core_phrase(signal.text)))
        counted.append((sum(1 for paper_words in recent if covers(words, paper_words)), signal.count,
                        core_phrase(signal.text)))
    found, _, phrase = max(counted)
    if found == 0:
        return None
    return QuestionDraft(
        text=(f"How many {ask.domain_name} papers on '{ask.node_name}' announced {ask.span} will address the "
              f"limitation '{phrase}'? Give p10, p50 and p90."),
        rule=(f"number of window papers routed to the node whose title+abstract hold >= {MENTION_SHARE:.0%} "
              "of the limitation's content words"),
        baseline=float(found), params={"phrase": phrase, "baseline_count": found})


def resolve(rule: str, question: ForecastQuestion, item: NodeEvidence,
            evidence: DomainEvidence) -> tuple[float, dict[str, Any]]:
    """The node's window papers that mention the question's limitation."""
    words = set(content_tokens(str(question.params["phrase"])))
    return float(sum(1 for paper_id in item.window_ids if covers(words, evidence.token_set(paper_id)))), {}
