"""Encoding on several cores: the same vectors as one worker, bit for bit, and the worker count rules."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from foresci.core.settings import Settings
from foresci.embedders.embedder import Embedder, embed_workers
from foresci.embedders.onnx_encoder import OnnxEncoder
from tests.embedders.texts import real_abstracts


def test_two_workers_give_the_one_worker_vectors_bit_for_bit() -> None:
    texts = real_abstracts(12) + ["", "x", "word " * 300]  # empty, one letter, truncated at 256 tokens
    one = Embedder(backend="onnx", onnx_batch_size=4, workers=1)
    two = Embedder(backend="onnx", onnx_batch_size=4, workers=2)
    done: list[int] = []
    vectors = two.encode_uncached(texts, on_encoded=done.append)
    assert np.array_equal(vectors, one.encode_uncached(texts))
    assert vectors.shape == (len(texts), one.dimension)
    assert sum(done) == len(texts) and len(done) == 4  # one call per batch of 4
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_batches_run_side_by_side_on_a_one_thread_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two batches are in the model at once (a barrier both must reach), on a session of one thread."""
    embedder = Embedder(backend="onnx", onnx_batch_size=2, workers=2)
    texts = [f"paper number {index}" for index in range(8)]
    embedder.encode_uncached(texts[:1])  # the single-batch session (runtime.threads)
    encoder = embedder._onnx_encoder(len(texts))
    assert encoder._session.get_session_options().intra_op_num_threads == 1
    barrier = threading.Barrier(2, timeout=20)
    real = OnnxEncoder._encode_batch
    running: set[str] = set()

    def meet(self: OnnxEncoder, token_ids: list[list[int]]) -> np.ndarray:
        running.add(threading.current_thread().name)
        barrier.wait()  # raises BrokenBarrierError if the batches ran one after the other
        return real(self, token_ids)

    monkeypatch.setattr(OnnxEncoder, "_encode_batch", meet)
    vectors = embedder.encode_uncached(texts)
    assert len(running) == 2 and vectors.shape[0] == len(texts)


def test_a_failing_batch_stops_the_call_and_the_batches_not_started(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = Embedder(backend="onnx", onnx_batch_size=1, workers=2)
    embedder.encode_uncached(["warm", "up", "the model"])
    calls: list[int] = []
    lock = threading.Lock()
    real = OnnxEncoder._encode_batch

    def fail_third(self: OnnxEncoder, token_ids: list[list[int]]) -> np.ndarray:
        with lock:
            calls.append(1)
            number = len(calls)
        if number == 3:
            raise RuntimeError("batch 3 failed")
        return real(self, token_ids)

    monkeypatch.setattr(OnnxEncoder, "_encode_batch", fail_third)
    with pytest.raises(RuntimeError, match="batch 3 failed"):
        embedder.encode_uncached([f"text {index}" for index in range(40)])
    assert len(calls) < 40


def test_encode_reports_cached_texts_at_once_and_encoded_ones_per_batch(tmp_path: Path) -> None:
    embedder = Embedder(backend="onnx", cache_dir=tmp_path, onnx_batch_size=2, workers=2)
    embedder.encode(["alpha", "beta"])
    done: list[int] = []
    embedder.encode(["alpha", "beta", "gamma", "delta", "epsilon"], on_encoded=done.append)
    assert done == [2, 2, 1]
    assert embedder.computed == 5


def test_worker_count_follows_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 6)
    assert embed_workers(Settings()) == 6  # unset: one per core
    assert embed_workers(Settings(runtime={"threads": 2})) == 2  # the thread count when chosen
    assert embed_workers(Settings(runtime={"threads": 0})) == 6
    assert embed_workers(Settings(runtime={"threads": 2, "embed_workers": 3})) == 3  # its own setting wins
    assert embed_workers(Settings(runtime={"embed_workers": 0})) == 6
    assert embed_workers(Settings(runtime={"embed_workers": 1})) == 1
    monkeypatch.setenv("FORESCI_RUNTIME__EMBED_WORKERS", "4")
    assert embed_workers(Settings()) == 4
