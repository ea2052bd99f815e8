"""Ranking-aware FTA (ForeSci eq. 8-11) and the parsing of an answer's ranking from payload or text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from foresci.tasks.models import Candidate
from foresci.tasks.options import resolve_option


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


def _payload_labels(payload: dict[str, Any]) -> list[str]:
    labels: list[str] = []
    for entry in payload.get("ranking") or []:
        if isinstance(entry, str):
            labels.append(entry)
        elif isinstance(entry, dict):
            value = entry.get("option_id") or entry.get("id") or entry.get("name") or entry.get("venue")
            if isinstance(value, str):
                labels.append(value)
    return labels


def _mention_pattern(candidate: Candidate) -> re.Pattern[str]:
    option = re.escape(candidate.option_id)
    parts = []
    if len(candidate.option_id) <= 2:
        parts.append(rf"(?:option|choice)\s+{option}\b|\({option}\)|\[{option}\]|(?<![\w-]){option}(?=[:.)])")
    else:
        parts.append(rf"(?<![\w-]){option}(?![\w-])")
    if candidate.name.strip():
        parts.append(re.escape(candidate.name.strip()))
    return re.compile("|".join(parts), re.IGNORECASE)


def _first_mention(text: str, candidates: Sequence[Candidate]) -> list[tuple[int, str]]:
    found = []
    for candidate in candidates:
        match = _mention_pattern(candidate).search(text)
        if match:
            found.append((match.start(), candidate.option_id))
    return sorted(found)


_NUMBERED_LINE = re.compile(r"^\s*(?:#+\s*)?(?:rank\s*)?(\d+)[.):]\s+(.+)$", re.IGNORECASE | re.MULTILINE)


def parse_ranking_text(text: str, candidates: Sequence[Candidate]) -> list[str]:
    """Parse an order of option ids from free text: numbered lines first, else order of first mention."""
    numbered = sorted(
        (int(match.group(1)), match.start(), match.group(2)) for match in _NUMBERED_LINE.finditer(text)
    )
    order: list[str] = []
    for _, _, line in numbered:
        mentions = _first_mention(line, candidates)
        if mentions:
            order.append(mentions[0][1])
    order = _dedupe(order)
    if len(order) >= 2:
        return order
    return _dedupe([option for _, option in _first_mention(text, candidates)])


def parse_answer_ranking(
    payload: dict[str, Any], text: str, candidates: Sequence[Candidate]
) -> tuple[list[str], str]:
    """Return (ranking of option ids, source) from payload["ranking"] or, when the payload has none, the text.

    A payload ranking is what the model answered and is final: an empty one scores as empty (the text is
    not mined for option names instead). Labels go through the shared resolver
    (:func:`foresci.tasks.options.resolve_option`); labels that match no candidate are kept as they are:
    an invented option is an extra item that lowers precision, never silently dropped.
    """
    if isinstance(payload.get("ranking"), list):
        labels = _payload_labels(payload)
        resolved = [resolve_option(label, candidates) or label for label in labels]
        return _dedupe(resolved), "payload"
    if candidates and text.strip():
        ranking = parse_ranking_text(text, candidates)
        if ranking:
            return ranking, "text"
    return [], "none"
