"""One option resolver: a label a model wrote ("A", "A: name", "Option A", "(a)", a name, a near-miss name)
-> the option id of exactly one candidate, or None.

Agents (contract checks) and evaluation (scoring) both use :func:`resolve_option`, so a label is read
the same way when it is answered and when it is scored. A label that fits two candidates (an id of one
and the name of another, a fragment shared by two names) is ambiguous and resolves to nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import Any

from foresci.tasks.models import Candidate

NEAR_MISS_RATIO = 0.8
"""Least similarity (difflib ratio of normalised texts) for a near-miss name, e.g. 'graph memories'."""
NEAR_MISS_MARGIN = 0.08
"""How much the best near-miss must beat the second best (else the label is ambiguous)."""

_WRAPPERS = "\"'`*_ \t\r\n"
_OPTION_WORD = re.compile(r"^(?:option|choice|candidate|venue|direction)\s*[:#]?\s*", re.IGNORECASE)
_BRACKETED = re.compile(r"^[(\[{<]\s*([^()\[\]{}<>]+?)\s*[)\]}>]\s*(.*)$", re.DOTALL)
_LEADING_ID = re.compile(r"^([A-Za-z0-9][\w-]*?)\s*(?:[:.)\]]|\s[-–—]|-\s|$)\s*(.*)$", re.DOTALL)
_TRAILING_ID = re.compile(r"^(.*?)\s*[(\[]\s*(?:option\s+)?([\w-]+)\s*[)\]]$", re.IGNORECASE | re.DOTALL)


def normalise_label(text: str) -> str:
    """Lower case, every run of non-alphanumerics one space, trimmed ('Tool-use  benchmarks!' -> 'tool use
    benchmarks')."""
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _strip(text: str) -> str:
    return text.strip().strip(_WRAPPERS).strip().rstrip(".,;!?").strip(_WRAPPERS).strip()


def _by_id(token: str, candidates: Sequence[Candidate]) -> Candidate | None:
    exact = [candidate for candidate in candidates if candidate.option_id == token]
    if exact:
        return exact[0]
    folded = [candidate for candidate in candidates if candidate.option_id.lower() == token.lower()]
    return folded[0] if len(folded) == 1 else None


def _one(found: Sequence[Candidate]) -> Candidate | None | bool:
    """The single candidate, False when several (ambiguous), None when none."""
    unique = {candidate.option_id: candidate for candidate in found}
    if len(unique) == 1:
        return next(iter(unique.values()))
    return False if unique else None


def _by_name(text: str, candidates: Sequence[Candidate]) -> Candidate | None | bool:
    """Name match in tiers: equal, one contains the other, near miss. False = ambiguous."""
    wanted = normalise_label(text)
    if not wanted:
        return None
    names = [(candidate, normalise_label(candidate.name)) for candidate in candidates]
    names = [(candidate, name) for candidate, name in names if name]
    equal = _one([candidate for candidate, name in names if name == wanted])
    if equal is not None:
        return equal
    padded = f" {wanted} "
    contained = _one(
        [
            candidate
            for candidate, name in names
            if f" {name} " in padded or (len(wanted) >= 4 and f" {wanted} " in f" {name} ")
        ]
    )
    if contained is not None:
        return contained
    ratios = sorted(((SequenceMatcher(None, wanted, name).ratio(), candidate) for candidate, name in names),
                    key=lambda pair: -pair[0])
    if ratios and ratios[0][0] >= NEAR_MISS_RATIO:
        if len(ratios) == 1 or ratios[0][0] - ratios[1][0] >= NEAR_MISS_MARGIN:
            return ratios[0][1]
        return False
    return None


def _id_with_rest(candidate: Candidate, rest: str, candidates: Sequence[Candidate]) -> str | None:
    """An id followed by more text ('A: graph memory'): the id, unless the text names another option."""
    rest = _strip(rest)
    if not normalise_label(rest):
        return candidate.option_id
    named = _by_name(rest, candidates)
    if named is None or (isinstance(named, Candidate) and named.option_id == candidate.option_id):
        return candidate.option_id
    return None


def resolve_option(label: object, candidates: Sequence[Candidate]) -> str | None:
    """The option id ``label`` names among ``candidates``, or None (unknown, empty or ambiguous).

    Accepted shapes: the id ('A', 'a', ' A. '), a wrapped id ('(A)', '[A]', '**A**', 'Option A'), an id
    with the name ('A: graph memory', 'A) graph memory', 'A - graph memory', 'graph memory (A)'), the
    name in any case or punctuation, a name contained in the label or a label contained in one name
    only, and a near-miss name (difflib ratio >= ``NEAR_MISS_RATIO``, clearly ahead of the runner-up).
    """
    if not isinstance(label, str) or not candidates:
        return None
    text = _strip(label)
    if not text:
        return None
    if (direct := _by_id(text, candidates)) is not None:
        return direct.option_id
    text = _strip(_OPTION_WORD.sub("", text, count=1))
    if (bracketed := _BRACKETED.match(text)) and (inner := _by_id(bracketed.group(1), candidates)):
        return _id_with_rest(inner, bracketed.group(2), candidates)
    if (leading := _LEADING_ID.match(text)) and (head := _by_id(leading.group(1), candidates)):
        return _id_with_rest(head, leading.group(2), candidates)
    if (trailing := _TRAILING_ID.match(text)) and (tail := _by_id(trailing.group(2), candidates)):
        return _id_with_rest(tail, trailing.group(1), candidates)
    named = _by_name(text, candidates)
    return named.option_id if isinstance(named, Candidate) else None


def option_ids(candidates: Sequence[Candidate]) -> list[str]:
    """The option ids of ``candidates`` in task order."""
    return [candidate.option_id for candidate in candidates]


def _dedupe(items: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    ordered: list[str] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            ordered.append(item)
    return ordered


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
