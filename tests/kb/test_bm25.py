"""The sparse BM25 equals rank-bm25 (the oracle) over every prefix, and appends without drift."""

from __future__ import annotations

import random

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from foresci.kb.bm25 import BM25Index, tokenize

VOCABULARY = [
    "agent",
    "tool",
    "planning",
    "memory",
    "retrieval",
    "graph",
    "diffusion",
    "image",
    "video",
    "token",
    "reward",
    "policy",
    "preference",
    "alignment",
    "dense",
    "sparse",
    "index",
    "chunk",
    "query",
    "model",
    "language",
    "vision",
    "benchmark",
]


def _corpus(size: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choices(VOCABULARY, k=rng.randint(3, 30))) + " the of" for _ in range(size)]


@pytest.mark.parametrize("prefix", [1, 7, 60, 300])
def test_scores_and_top10_match_rank_bm25_on_every_prefix(prefix: int) -> None:
    texts = _corpus(300, seed=prefix)
    index = BM25Index.empty().appended(texts[:120]).appended(texts[120:])
    oracle = BM25Okapi([tokenize(text) for text in texts[:prefix]])
    rng = random.Random(prefix)
    for _ in range(20):
        query = " ".join(rng.sample(VOCABULARY, rng.randint(1, 4)))
        expected = oracle.get_scores(tokenize(query))
        ours = index.scores(query, prefix)
        np.testing.assert_allclose(ours, expected, rtol=1e-9, atol=1e-9)
        expected_top = [row for row in np.argsort(-expected, kind="stable")[:10] if expected[row] > 0]
        ours_top = [row for row, _ in index.top(query, prefix, 10)]
        assert [round(expected[row], 9) for row in ours_top] == [
            round(expected[row], 9) for row in expected_top
        ]


def test_top_respects_mask_and_prefix() -> None:
    texts = _corpus(50, seed=3)
    index = BM25Index.empty().appended(texts)
    mask = np.zeros(50, dtype=bool)
    mask[::2] = True
    rows = [row for row, _ in index.top("agent tool", 30, 10, mask=mask)]
    assert rows and all(row < 30 and row % 2 == 0 for row in rows)


def test_save_and_load_round_trip(tmp_path) -> None:
    index = BM25Index.empty().appended(_corpus(40, seed=5))
    index.save(tmp_path)
    loaded = BM25Index.load(tmp_path)
    np.testing.assert_array_equal(loaded.scores("graph memory", 40), index.scores("graph memory", 40))
    assert loaded.vocabulary == index.vocabulary


def test_a_query_of_rare_terms_reads_only_their_postings(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh process's first query at a cutoff reads the postings of its own terms, not every term's
    document frequency; a term in over half of the documents (IDF floored at a share of the mean IDF)
    still needs them. Scores equal rank-bm25's either way."""
    texts = [f"{text} common" for text in _corpus(200, seed=11)]  # "common": in every document
    texts[5] += " zebra"
    texts[150] += " zebra okapi"
    postings = BM25Index.empty().appended(texts).postings
    calls: list[int] = []
    counted = postings.document_frequency
    monkeypatch.setattr(postings, "document_frequency", lambda n: calls.append(n) or counted(n))
    cases = (("zebra okapi", 180, False), ("zebra", 100, False), ("zebra common", 180, True))
    for query, prefix, full_pass in cases:
        calls.clear()
        expected = BM25Okapi([tokenize(text) for text in texts[:prefix]]).get_scores(tokenize(query))
        np.testing.assert_allclose(postings.scores(query, prefix), expected, rtol=1e-9, atol=1e-9)
        assert bool(calls) is full_pass
