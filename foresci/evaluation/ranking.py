"""Ranking-aware FTA (ForeSci eq. 8-11). Reading an answer's ranking from payload or text is
:func:`foresci.tasks.options.parse_answer_ranking` (families read it for top-choice too)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class RankingChecks:
    """The three checks of one direction (recall: over pi*, precision: over pi-hat)."""

    top: float
    position: float
    pairwise: float | None

    @property
    def mean(self) -> float:
        """Mean of the checks; the pairwise check is dropped when a list has fewer than two items."""
        parts = [self.top, self.position] + ([self.pairwise] if self.pairwise is not None else [])
        return sum(parts) / len(parts)


@dataclass(frozen=True)
class RankingScore:
    """FTA_rank with its precision and recall parts."""

    f1: float
    precision: float
    recall: float
    recall_checks: RankingChecks
    precision_checks: RankingChecks


def _dedupe(items: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    ordered: list[str] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            ordered.append(item)
    return ordered


def ranking_checks(reference: Sequence[str], other: Sequence[str]) -> RankingChecks:
    """Top, position and pairwise checks of the items of ``reference`` against the order ``other``.

    ``s_k`` is 1 when ``reference[k]`` sits at position k of ``other``, 0.5 elsewhere in it, 0 when
    missing; a pair (i<j) counts when both are in ``other`` and keep their order.
    """
    reference = _dedupe(reference)
    other = _dedupe(other)
    size = len(reference)
    if size == 0:
        return RankingChecks(top=0.0, position=0.0, pairwise=None)
    where = {item: index for index, item in enumerate(other)}
    top = 1.0 if other and other[0] == reference[0] else 0.0
    position_total = 0.0
    for index, item in enumerate(reference):
        if item in where:
            position_total += 1.0 if where[item] == index else 0.5
    pairwise: float | None = None
    if size >= 2:
        kept = sum(
            1
            for i in range(size)
            for j in range(i + 1, size)
            if reference[i] in where and reference[j] in where and where[reference[i]] < where[reference[j]]
        )
        pairwise = 2.0 * kept / (size * (size - 1))
    return RankingChecks(top=top, position=position_total / size, pairwise=pairwise)


def ranking_fta(gold: Sequence[str], predicted: Sequence[str]) -> RankingScore:
    """FTA_rank = 2PR/(P+R): R checks pi* against pi-hat, P checks pi-hat's items against pi*."""
    recall_checks = ranking_checks(gold, predicted)
    precision_checks = ranking_checks(predicted, gold)
    recall = recall_checks.mean if gold else 0.0
    precision = precision_checks.mean if predicted else 0.0
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return RankingScore(
        f1=f1,
        precision=precision,
        recall=recall,
        recall_checks=recall_checks,
        precision_checks=precision_checks,
    )
