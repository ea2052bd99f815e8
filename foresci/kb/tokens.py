"""The BM25 tokenizer: lower-case alphanumeric tokens without common English stop words."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "their",
        "this",
        "to",
        "was",
        "were",
        "which",
        "with",
        "we",
        "our",
        "these",
        "those",
        "can",
        "also",
        "than",
        "then",
        "there",
        "such",
    ]
)


def tokenize(text: str) -> list[str]:
    """Lower-case alphanumeric tokens without common English stop words."""
    return [token for token in _TOKEN.findall(text.lower()) if token not in STOPWORDS]
