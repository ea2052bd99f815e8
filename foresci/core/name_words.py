"""Words of a name, normalised for comparing names: lowercase letters and digits, function words dropped,
plural ``s`` folded. Read by option de-duplication (:mod:`foresci.tasks.option_similarity`) and concept
synonym merging (:mod:`foresci.emergence.synonyms`) and concept-pair questions
(:mod:`foresci.emergence.questions`), so every layer compares names the same way."""

from __future__ import annotations

import re

WORD = re.compile(r"[a-z0-9]+")

FUNCTION_WORDS = frozenset(["a", "an", "the", "in", "of", "for", "to", "on", "with", "by", "and", "or", "at",
                            "from", "via", "using", "based", "towards", "toward", "into"])


def fold(token: str) -> str:
    """A token with a plural ``s`` removed (``llms`` -> ``llm``, ``models`` -> ``model``)."""
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        return token[:-1]
    return token


def name_words(name: str) -> list[str]:
    """Words of a name (letters and digits, single characters kept: "venue A" is not "venue B"), lowercase,
    function words dropped, plurals folded, in order (generic words such as
    "large" and "model" kept: they spell acronyms out)."""
    return [fold(token) for token in WORD.findall(name.lower()) if token not in FUNCTION_WORDS]


def one_word_added(one: set[str], two: set[str]) -> bool:
    """Whether one set of name words (at least two of them) is the other with a single word added
    ("synthetic data" / "synthetic data generation"): one thing named twice."""
    small, large = (one, two) if len(one) <= len(two) else (two, one)
    return len(small) >= 2 and small < large and len(large - small) <= 1
