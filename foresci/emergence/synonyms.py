"""Near-synonym phrase keys: two names of one concept ("llm reasoning" / "large language model reasoning",
"text to image model" / "text to image system") folded onto one canonical form before the vocabulary is
chosen, so that a candidate pair is never two names of one concept.

The canonical form of a key is its words with (a) an acronym expanded into the phrase it abbreviates and
(b) a generic head noun ("system", "method", ...) replaced by one head. Acronyms are learned from the
keys themselves (the papers up to the cutoff only): a word ("llm", "vlm", "rag") written in capitals
somewhere ("LLMs", "RAG") whose letters are the initials of a used phrase of two or more words ("large
language model") is that phrase; when several phrases share the initials the most used wins (ties by key).
Words and plurals are normalised as :mod:`foresci.tasks.option_similarity` does for option names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from foresci.core.name_words import name_words


def capital_words(surfaces: Iterable[str]) -> set[str]:
    """Lower-case forms of the words written in capitals (two letters or more, a plural ``s`` allowed:
    "LLMs" -> "llm") in some surface form."""
    found: set[str] = set()
    for surface in surfaces:
        for word in surface.replace("-", " ").split():
            stem = word[:-1] if word.endswith("s") else word
            if len(stem) >= 2 and stem.isalpha() and stem.isupper():
                found.add(stem.lower())
    return found


def learn_acronyms(frequency: Mapping[str, int], capitals: set[str], min_papers: int) -> dict[str, str]:
    """Acronym -> the most used key of 2-6 words (at least ``min_papers`` papers) whose initials spell it,
    for the acronyms in ``capitals`` (words written in capitals, see :func:`capital_words`)."""
    best: dict[str, tuple[int, str]] = {}
    for key, count in frequency.items():
        words = name_words(key)
        if count < min_papers or not 2 <= len(words) <= 6:
            continue
        initials = "".join(word[0] for word in words)
        if initials not in capitals:
            continue
        current = best.get(initials)
        if current is None or (-count, key) < (-current[0], current[1]):
            best[initials] = (count, key)
    return {acronym: " ".join(name_words(key)) for acronym, (_, key) in best.items()}


def canonical_key(key: str, acronyms: Mapping[str, str], heads: Iterable[str]) -> str:
    """The canonical form of a phrase key: words normalised, acronyms expanded, a generic head folded onto
    the first of ``heads`` (only when a modifier stays in front of it)."""
    words: list[str] = []
    for word in name_words(key):
        words.extend(acronyms.get(word, word).split())
    head_list = list(heads)
    if head_list and len(words) >= 2 and words[-1] in head_list:
        words[-1] = head_list[0]
    return " ".join(words)


def synonym_groups(keys: Iterable[str], acronyms: Mapping[str, str], heads: Iterable[str]) -> dict[str, str]:
    """Key -> canonical form, for every key (keys of one canonical form are one concept)."""
    head_list = list(heads)
    return {key: canonical_key(key, acronyms, head_list) for key in keys}
