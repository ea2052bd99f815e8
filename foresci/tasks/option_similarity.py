"""Near-duplicate options: two options of one task that name the same direction.

"LLM reasoning" beside "large language model reasoning", or "reasoning in LLMs": different strings, one
direction. Two names are near-duplicates when their normalised content words (plural folded, an acronym
expanded where the other name spells it out) mostly coincide (:func:`names_near_duplicate`); two nodes are
when their names are, or when their centroids (unit-length mean embeddings) are closer than a cosine
threshold (:func:`nodes_near_duplicate`). Builders keep such pairs out of one option set; the audit counts
tasks whose public option names still are.
"""

from __future__ import annotations

from collections.abc import Sequence

from foresci.core.name_words import name_words, one_word_added


def _acronyms(words: Sequence[str], raw: Sequence[str]) -> dict[str, tuple[int, int]]:
    """Acronym -> (start, end) of every run of 2..6 consecutive words (initials of ``raw``, the words with
    stopwords kept out), e.g. large language model -> llm."""
    found: dict[str, tuple[int, int]] = {}
    for start in range(len(raw)):
        for end in range(start + 2, min(len(raw), start + 6) + 1):
            found.setdefault("".join(word[0] for word in raw[start:end]), (start, end))
    return found


def expand_acronyms(left: list[str], right: list[str]) -> tuple[list[str], list[str]]:
    """Both word lists with a word of one that is the acronym of a run of words in the other replaced by
    that run's words (so "llm reasoning" and "large language model reasoning" share every word)."""
    def expand(words: list[str], other: list[str]) -> list[str]:
        runs = _acronyms(other, other)
        out: list[str] = []
        for word in words:
            span = runs.get(word)
            out.extend(other[span[0]:span[1]] if span and word not in other else [word])
        return out

    return expand(left, right), expand(right, left)


def name_overlap(left: str, right: str) -> float:
    """Share of the shorter name's normalised words (acronyms expanded) that the other name holds."""
    first, second = expand_acronyms(name_words(left), name_words(right))
    one, two = set(first), set(second)
    if not one or not two:
        return 0.0
    return len(one & two) / min(len(one), len(two))


def names_near_duplicate(left: str, right: str) -> bool:
    """Whether two option names name the same direction: their normalised words (acronyms expanded) are
    equal, or one name's words (at least two) all occur in the other, which adds a single word ("LLM
    reasoning" / "LLM reasoning methods"). Names that differ in a content word each way ("diffusion
    models for video" / "... for images") stay distinct."""
    first, second = expand_acronyms(name_words(left), name_words(right))
    one, two = set(first), set(second)
    if not one or not two:
        return False
    return one == two or one_word_added(one, two)


def cosine(left: Sequence[float] | None, right: Sequence[float] | None) -> float | None:
    """Cosine of two vectors (None when either is missing or zero)."""
    if not left or not right or len(left) != len(right):
        return None
    dot = sum(a * b for a, b in zip(left, right, strict=True))
    norm = (sum(a * a for a in left) ** 0.5) * (sum(b * b for b in right) ** 0.5)
    return dot / norm if norm else None


def near_duplicate_pairs(names: Sequence[str]) -> list[tuple[int, int]]:
    """Index pairs of near-duplicate names in one option list."""
    return [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))
            if names_near_duplicate(names[i], names[j])]
