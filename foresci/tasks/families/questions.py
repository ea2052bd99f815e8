"""What a family's forecast-question hooks receive and return (:meth:`TaskFamily.forecast_question`,
:meth:`TaskFamily.resolve_forecast`): the node asked about with its domain's pre-cutoff facts, and the
question a rule writes of it. :mod:`foresci.tasks.forecast` finishes, freezes and resolves the questions.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from foresci.tasks.evidence import DomainEvidence, NodeEvidence

SHARE_GROWTH_RATE, COUNT_GROWTH_RATE = "share_growth", "count_growth"
"""Keys of :attr:`QuestionAsk.rates`: the share of the domain's nodes whose share (count) grew one window
earlier, smoothed (a naive prior every binary growth question of the domain may use)."""
SHARE_DECLINE_RATE = "share_decline"
"""Key of :attr:`QuestionAsk.rates`: the share of the domain's nodes whose share fell by the growth
threshold's reciprocal one window earlier, smoothed (the naive prior of a share-decline question)."""
GROWTH_THRESHOLD = 1.10
"""Share growth (window over baseline share) that counts as growing."""


def share_grew(log_growth: float) -> bool:
    """Whether a node's log share growth reaches :data:`GROWTH_THRESHOLD`."""
    return log_growth >= math.log(GROWTH_THRESHOLD)


def share_fell(log_growth: float) -> bool:
    """Whether a node's share fell to 1 / :data:`GROWTH_THRESHOLD` of its baseline or below (the mirror of
    :func:`share_grew`: a share-decline question)."""
    return log_growth <= -math.log(GROWTH_THRESHOLD)


@dataclass(frozen=True)
class QuestionAsk:
    """One node a rule may ask about: its evidence at the cutoff (pre-cutoff facts only), the domain's
    display name, the domain's naive rates, the freeze's seeded random stream and the node one window
    earlier (None when it had no node then)."""

    item: NodeEvidence
    evidence: DomainEvidence
    domain_name: str
    rates: Mapping[str, float]
    rng: random.Random
    earlier: NodeEvidence | None = None

    @property
    def node_name(self) -> str:
        """The node's display name (what question texts quote)."""
        from foresci.taxonomy.naming import display_name

        return display_name(self.item.node)

    @property
    def span(self) -> str:
        """"between <window start> and <window end>" (ISO dates)."""
        window = self.evidence.window
        return f"between {window.start.isoformat()} and {window.end.isoformat()}"


@dataclass(frozen=True)
class QuestionDraft:
    """A question a rule writes: its text, its resolution rule in words, its naive answer (a probability
    for a binary question, a count for a numeric one) and the parameters its resolution reads (added to
    the common ones: family, node, domain, baseline period and counts; a key given here replaces one)."""

    text: str
    rule: str
    baseline: float
    params: dict[str, Any] = field(default_factory=dict)
