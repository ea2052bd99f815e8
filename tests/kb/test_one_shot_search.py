"""A KB opened for one search (``foresci kb search``): numpy query encoder and numpy exact dense scan give
the vectors and rows of the usual backends, and the process imports neither FAISS nor ONNX Runtime."""

from __future__ import annotations

import math
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from foresci.core.settings import DEFAULT_EMBEDDING_MODEL
from foresci.embedders.embedder import Embedder
from foresci.embedders.numpy_encoder import _erf, numpy_encoder_for
from foresci.kb.dense import DenseIndex, exact_search, numpy_exact_search
from foresci.kb.retrieve import KBView
from foresci.kb.store import KnowledgeBase
from tests.kb.test_dense_encoder import _modules_loaded_by_search, _real_titles


def test_erf_approximation_is_within_float32_noise() -> None:
    points = np.linspace(-6.0, 6.0, 4001)
    expected = np.asarray([math.erf(value) for value in points])
    assert np.max(np.abs(_erf(points) - expected)) < 2e-7


def test_numpy_encoder_matches_onnx_runtime_on_real_titles() -> None:
    titles = _real_titles(48) + ["", "x", "Über naïve café — 日本語 test!!", "word " * 400]
    encoder = numpy_encoder_for(DEFAULT_EMBEDDING_MODEL)
    assert encoder is not None
    vectors = encoder.encode(titles)
    reference = Embedder(backend="onnx").encode(titles)
    assert vectors.shape == reference.shape
    assert np.max(np.abs(vectors - reference)) < 1e-5
    assert np.min(np.sum(vectors * reference, axis=1)) > 0.99999


def test_numpy_encoder_declines_models_it_cannot_run(tmp_path: Path) -> None:
    assert numpy_encoder_for("some-org/hub-only-model") is None
    assert numpy_encoder_for(str(tmp_path)) is None  # no modules.json


def test_numpy_exact_search_finds_the_rows_of_the_flat_search() -> None:
    generator = np.random.default_rng(3)
    vectors = generator.standard_normal((3000, 32)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for seed in range(5):
        query = vectors[seed * 7] + 0.1 * generator.standard_normal(32).astype(np.float32)
        assert numpy_exact_search(vectors, query, 50, 2500) == exact_search(vectors[:2500], query, 50)
        rows = np.flatnonzero(generator.random(2500) < 0.3)
        assert numpy_exact_search(vectors, query, 40, 2500, rows) == exact_search(vectors, query, 40, rows)
    assert numpy_exact_search(vectors, vectors[0], 10, 4) == exact_search(vectors[:4], vectors[0], 10)
    assert numpy_exact_search(vectors, vectors[0], 10, 0) == []


def test_a_one_shot_index_never_takes_the_graph() -> None:
    vectors = np.random.default_rng(5).standard_normal((30_000, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)

    def no_graph() -> None:
        raise AssertionError("a one-shot search read the graph")

    one_shot = DenseIndex(vectors, hnsw=no_graph, graph_above=1, one_shot=True)
    usual = DenseIndex(vectors, hnsw=no_graph, graph_above=1)
    assert usual.path(30_000) == "hnsw"  # the cost model takes the graph with the whole KB visible
    assert one_shot.path(30_000) == "exact"
    assert one_shot.search(vectors[3], 30_000, 5) == usual._exact(vectors[3], 30_000, None, 30_000, 5)


def test_one_shot_view_searches_like_the_exact_view(built_kb: KnowledgeBase, kb_cache: Path) -> None:
    cutoff = built_kb.max_date
    one_shot = KBView(KnowledgeBase.open(built_kb.path, built_kb.settings, one_shot=True), cutoff)
    usual = KBView(KnowledgeBase.open(built_kb.path, built_kb.settings), cutoff)
    for query in ("tool-using language agents", "protein structure from sequence", "graph networks"):
        fresh = f"{query} one-shot {date.today().isoformat()} {np.random.default_rng().integers(1 << 30)}"
        vector = one_shot.query_vector(fresh)
        assert np.max(np.abs(vector - Embedder(backend="onnx").encode([fresh])[0])) < 1e-5
        assert [(hit.paper.paper_id, hit.bm25_rank, hit.dense_rank) for hit in one_shot.search(query)] == [
            (hit.paper.paper_id, hit.bm25_rank, hit.dense_rank) for hit in usual.search(query)
        ]


@pytest.mark.parametrize("query", ["never seen one-shot query about tool agents"])
def test_fresh_process_search_imports_neither_faiss_nor_onnxruntime(
    built_kb: KnowledgeBase, kb_cache: Path, query: str
) -> None:
    heavy = ("faiss", "onnxruntime", "torch", "yaml")
    fresh = f"{query} {np.random.default_rng().integers(1 << 30)}"
    loaded = _modules_loaded_by_search(built_kb, kb_cache, fresh, heavy)
    assert loaded == []
