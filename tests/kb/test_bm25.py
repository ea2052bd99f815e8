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
