"""KBView: the only way agents touch the knowledge base; nothing after its cutoff is reachable.

Papers have internal ids in announcement order, so a cutoff is the id prefix ``[0, prefix)``:
BM25 scores only those rows (with statistics over those rows only), FAISS searches them through
an ``IDSelectorRange``, and every paper-returning method checks the prefix again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from datetime import date
from typing import Any

import numpy as np

from foresci.core.threads import ensure_threads
from foresci.kb.models import Paper, SearchHit
from foresci.kb.store import KnowledgeBase


class CutoffError(KeyError):
    """A request for a paper announced after the view's cutoff."""


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int = 60) -> list[tuple[int, float]]:
    """Fuse ranked lists of ids: score(id) = sum over lists of 1 / (k + rank), best first (ties: id)."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))


class KBView:
    """A cutoff-bounded, read-only view of a KnowledgeBase."""

    def __init__(self, kb: KnowledgeBase, cutoff: date) -> None:
        if not isinstance(cutoff, date):
            raise TypeError(f"cutoff must be a datetime.date, got {type(cutoff).__name__}")
        ensure_threads(kb.settings)
        self.kb = kb
        self._cutoff = cutoff
        self._prefix = kb.prefix(cutoff)
        settings = kb.settings
        self._rrf_k = settings.kb.rrf_k if settings else 60
        self._depth = settings.kb.candidates_per_retriever if settings else 100
        self._k1 = settings.kb.bm25_k1 if settings else 1.5
        self._b = settings.kb.bm25_b if settings else 0.75
        self._query_vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._embedder: Any = None
        self._lock = threading.Lock()  # agents may share a view across threads
        prefetch = getattr(kb, "prefetch_for_search", None)  # a stand-in KB may not have it
        if prefetch is not None:
            prefetch(self._prefix)  # so the first searches find the KB's files in the page cache

    @property
    def cutoff(self) -> date:
        """The last announcement date this view can see."""
        return self._cutoff

    @property
    def size(self) -> int:
        """Number of papers visible (announced on or before the cutoff)."""
        return self._prefix

    def _visible(self, row: int | None) -> bool:
        return row is not None and 0 <= row < self._prefix

    def get(self, paper_id: str) -> Paper | None:
        """The paper with this arXiv id, or None if absent or announced after the cutoff."""
        row = self.kb.row_of(paper_id)
        if row is None or not self._visible(row):
            return None
        return self._checked(self.kb.paper_at(row))

    def papers(
        self, domain: str | None = None, statuses: tuple[str, ...] = ("core", "support")
    ) -> list[Paper]:
        """Visible papers in announcement order (with ``domain``: those screened into ``statuses``)."""
        return self.kb.papers(until=self._cutoff, domain=domain, statuses=statuses)

    def monthly_counts(self, domain: str | None = None) -> dict[str, int]:
        """'YYYY-MM' -> number of visible papers (in ``domain`` if given), months in order."""
        mask = self.kb.domain_mask(domain) if domain is not None else None
        return self.kb.month_counts(self._prefix, mask)

    def embeddings(self, paper_ids: Sequence[str]) -> np.ndarray:
        """(n, d) embeddings of visible papers; raises CutoffError for a paper after the cutoff."""
        for paper_id in paper_ids:
            row = self.kb.row_of(paper_id)
            if row is not None and not self._visible(row):
                raise CutoffError(
                    f"paper {paper_id} is announced after the cutoff {self._cutoff.isoformat()}"
                )
        return self.kb.embeddings(paper_ids)

    def query_vector(self, query: str) -> np.ndarray:
        """Normalised embedding of a query with the KB's model (cached in memory and on disk)."""
        with self._lock:
            return self._query_vector_locked(query)

    def _query_vector_locked(self, query: str) -> np.ndarray:
        vector = self._query_vectors.get(query)
        if vector is None:
            if self._embedder is None:
                from pathlib import Path

                from foresci.core.settings import DEFAULT_EMBEDDING_MODEL
                from foresci.embedders.embedder import Embedder

                settings = self.kb.settings
                ensure_threads(settings)
                self._embedder = Embedder(  # the KB's own model, whatever the settings name now
                    model=self.kb.meta.get("embed_model", DEFAULT_EMBEDDING_MODEL),
                    cache_dir=Path(settings.cache_dir) if settings else None,
                    device=settings.embed.device if settings else "cpu",
                    backend=settings.runtime.encoder if settings else "auto",
                    onnx_dir=settings.runtime.onnx_dir if settings else None,
                )
            vector = self._encode_query(query)
            self._query_vectors[query] = vector
            if len(self._query_vectors) > 512:
                self._query_vectors.popitem(last=False)
        return vector

    def _encode_query(self, query: str) -> np.ndarray:
        """The query's vector from the vector cache, else the encoder's. A KB opened for one search
        (``one_shot``) with the encoder setting 'auto' on the CPU encodes it in numpy when the model allows
        (:mod:`foresci.embedders.numpy_encoder`: no ONNX Runtime start-up; the same vector up to float
        rounding)."""
        embedder = self._embedder
        light = (getattr(self.kb, "one_shot", False) and embedder.requested_backend == "auto"
                 and embedder.device == "cpu")
        if not light:
            return np.asarray(embedder.encode([query])[0])
        from foresci.embedders.numpy_encoder import numpy_encoder_for

        plan = embedder.plan([query])
        if not plan.missing:
            return np.asarray(embedder.complete(plan, None)[0])
        encoder = numpy_encoder_for(embedder.model_name)
        if encoder is None:
            return np.asarray(embedder.encode([query])[0])
        return np.asarray(embedder.complete(plan, encoder.encode(plan.missing_texts))[0])

    def bm25_ranking(self, query: str, depth: int, mask: np.ndarray | None = None) -> list[int]:
        """Rows of the best BM25 matches among visible papers."""
        hits = self.kb.bm25_postings.top(query, self._prefix, depth, mask=mask, k1=self._k1, b=self._b)
        return [row for row, _ in hits]

    def dense_ranking(self, vector: np.ndarray, depth: int, mask: np.ndarray | None = None) -> list[int]:
        """Rows of the nearest visible papers by inner product (in ``mask`` when given).

        Exact FAISS search of the id prefix in place; for large KBs, the IVF index through a
        selector of the visible rows (see :mod:`foresci.kb.dense`). Never a row after the cutoff.
        """
        return self.kb.dense_index.search(vector, self._prefix, depth, mask)

    def search(self, query: str, k: int = 10, domain: str | None = None) -> list[SearchHit]:
        """Hybrid search (BM25 + dense, reciprocal rank fusion) over visible papers, best first."""
        if k <= 0 or self._prefix == 0 or not query.strip():
            return []
        mask = self.kb.domain_mask(domain) if domain is not None else None
        depth = max(self._depth, k)
        vector = self.query_vector(query)  # first: loading the encoder gives the prefetch of the KB time
        lexical = self.bm25_ranking(query, depth, mask)
        dense = self.dense_ranking(vector, depth, mask)
        lexical_rank = {row: rank for rank, row in enumerate(lexical, start=1)}
        dense_rank = {row: rank for rank, row in enumerate(dense, start=1)}
        hits = []
        for rank, (row, score) in enumerate(
            reciprocal_rank_fusion([lexical, dense], self._rrf_k)[:k], start=1
        ):
            paper = self._checked(self.kb.paper_at(row))
            hits.append(
                SearchHit(
                    paper=paper,
                    score=score,
                    rank=rank,
                    bm25_rank=lexical_rank.get(row),
                    dense_rank=dense_rank.get(row),
                )
            )
        return hits

    def _checked(self, paper: Paper) -> Paper:
        if paper.announced > self._cutoff:
            raise CutoffError(
                f"internal error: paper {paper.paper_id} ({paper.announced}) is after the cutoff"
            )
        return paper.as_of(self._cutoff)
