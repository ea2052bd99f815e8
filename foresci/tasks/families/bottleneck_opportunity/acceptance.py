"""What makes a bottleneck target one a researcher accepts: the root bottleneck rises, the opportunity is
specific.

- Rise: the share of the sub-direction's papers addressing the bottleneck must be higher in the window
  than before the cutoff, by a one-sided two-proportion z-test (pooled variance) at ``RISE_ALPHA``
  (:func:`rise_test`). "2 of 124 window papers against 7 of 241 before" is a fall, not the limitation
  the field turns to.
- Specificity: an opportunity must concentrate in the sub-direction, not be a phrase the whole domain
  writes ("visual context", "generative models", "practical deployment"). Learned from the corpus, not
  from a hand-written list: the phrase's rate among the node's window papers over its rate among the
  domain's other window papers (add-one), its lift, must reach ``MIN_SPECIFICITY_LIFT``
  (:func:`opportunity_lift`). Where the domain holds too few window papers outside the node to tell
  (``MIN_OTHER_PAPERS``), the lift is not computed and the phrase is kept.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from foresci.tasks.evidence import DomainEvidence

RISE_ALPHA = 0.1
MIN_SPECIFICITY_LIFT = 2.0
MIN_OTHER_PAPERS = 20


def rise_test(before: int, pre_total: int, after: int, window_total: int) -> dict[str, float]:
    """One-sided two-proportion z-test that ``after / window_total`` exceeds ``before / pre_total``:
    the two shares, z and the p-value (p = 1 when a total is zero)."""
    if pre_total <= 0 or window_total <= 0:
        return {"pre_share": 0.0, "window_share": 0.0, "z": 0.0, "p": 1.0}
    first, second = before / pre_total, after / window_total
    pooled = (before + after) / (pre_total + window_total)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / pre_total + 1 / window_total))
    z = (second - first) / spread if spread > 0 else 0.0
    p = 0.5 * math.erfc(z / math.sqrt(2))
    return {"pre_share": round(first, 4), "window_share": round(second, 4), "z": round(z, 3),
            "p": round(p, 4)}


def rises(test: Mapping[str, float], alpha: float = RISE_ALPHA) -> bool:
    """Whether a :func:`rise_test` shows a rise at level ``alpha``."""
    return test["window_share"] > test["pre_share"] and test["p"] <= alpha


_WINDOW_PHRASES: dict[int, tuple[DomainEvidence, dict[str, frozenset[str]]]] = {}


def window_phrase_sets(domain: DomainEvidence,
                       phrases_of: Callable[[str], Mapping[str, object]]) -> dict[str, frozenset[str]]:
    """Paper id -> phrase keys, for every paper of the domain announced in its window (memoised per
    domain object)."""
    cached = _WINDOW_PHRASES.get(id(domain))
    if cached is not None and cached[0] is domain:
        return cached[1]
    window = domain.window
    sets = {paper_id: frozenset(phrases_of(paper.text)) for paper_id, paper in domain.papers.items()
            if window.start <= paper.announced <= window.end}
    _WINDOW_PHRASES.clear()  # one domain at a time: the builder reads domains in turn
    _WINDOW_PHRASES[id(domain)] = (domain, sets)
    return sets


def opportunity_lift(key: str, node_window: Sequence[str],
                     domain_sets: Mapping[str, frozenset[str]]) -> float | None:
    """The phrase's rate among ``node_window`` papers over its add-one rate among the domain's other
    window papers; None when fewer than ``MIN_OTHER_PAPERS`` other papers exist."""
    members = set(node_window)
    inside = sum(1 for paper_id in node_window if key in domain_sets.get(paper_id, frozenset()))
    others = [phrases for paper_id, phrases in domain_sets.items() if paper_id not in members]
    if len(others) < MIN_OTHER_PAPERS or not node_window:
        return None
    outside = sum(1 for phrases in others if key in phrases)
    return (inside / len(node_window)) / ((outside + 1) / (len(others) + 1))
