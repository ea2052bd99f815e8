"""Okapi BM25 on a sparse term-count matrix, exact over any prefix of the documents.

The matrix rows are documents in internal-id (announcement) order, so a cutoff is a row prefix.
Statistics (N, document frequencies, average length) are computed over the prefix only, so the
ranking at a cutoff never depends on later papers. Scores equal rank-bm25's ``BM25Okapi`` on the
same tokens (same IDF, including its epsilon floor for negative IDF), which a test checks.
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp

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


class BM25Index:
    """Term counts of all documents (CSR for appends, CSC for scoring) and the vocabulary."""

    def __init__(self, vocabulary: dict[str, int], counts: sp.csr_matrix) -> None:
        self.vocabulary = vocabulary
        self.counts = counts.tocsr()
        self._csc: sp.csc_matrix | None = None
        self.lengths = np.asarray(self.counts.sum(axis=1)).ravel().astype(np.float64)
        self._cumulative_lengths = np.concatenate([[0.0], np.cumsum(self.lengths)])
        self._idf_cache: dict[tuple[int, float], np.ndarray] = {}

    @property
    def size(self) -> int:
        """Number of documents."""
        return int(self.counts.shape[0])

    @property
    def csc(self) -> sp.csc_matrix:
        """Column-major view (sorted row indices), built once."""
        if self._csc is None:
            self._csc = self.counts.tocsc()
            self._csc.sort_indices()
        return self._csc

    @classmethod
    def empty(cls) -> BM25Index:
        """An index of no documents."""
        return cls({}, sp.csr_matrix((0, 0), dtype=np.int32))

    def appended(self, texts: Sequence[str]) -> BM25Index:
        """A new index with ``texts`` appended as the next rows (vocabulary extended)."""
        vocabulary = dict(self.vocabulary)
        indptr = array("q", [0])
        indices = array("i")
        data = array("i")
        for text in texts:
            row: dict[int, int] = {}
            for token in tokenize(text):
                column = vocabulary.setdefault(token, len(vocabulary))
                row[column] = row.get(column, 0) + 1
            indices.extend(row)
            data.extend(row.values())
            indptr.append(len(indices))
        width = len(vocabulary)
        new_rows = sp.csr_matrix(
            (
                np.frombuffer(data, dtype=np.int32) if data else np.zeros(0, dtype=np.int32),
                np.frombuffer(indices, dtype=np.int32) if indices else np.zeros(0, dtype=np.int32),
                np.frombuffer(indptr, dtype=np.int64),
            ),
            shape=(len(texts), width),
        )
        old = self.counts
        old = sp.csr_matrix((old.data, old.indices, old.indptr), shape=(old.shape[0], width))
        return BM25Index(vocabulary, sp.vstack([old, new_rows], format="csr"))

    def idf(self, prefix: int, epsilon: float = 0.25) -> np.ndarray:
        """IDF of every term over the first ``prefix`` documents (rank-bm25's BM25Okapi formula)."""
        key = (prefix, epsilon)
        cached = self._idf_cache.get(key)
        if cached is not None:
            return cached
        end = int(self.counts.indptr[prefix])
        document_frequency = np.bincount(self.counts.indices[:end], minlength=len(self.vocabulary))
        present = document_frequency > 0
        idf = np.log((prefix - document_frequency + 0.5) / (document_frequency + 0.5))
        average = float(idf[present].mean()) if present.any() else 0.0
        idf = np.where(idf < 0, epsilon * average, idf)
        idf[~present] = 0.0
        if len(self._idf_cache) > 16:
            self._idf_cache.clear()
        self._idf_cache[key] = idf
        return idf

    def scores(self, query: str, prefix: int, k1: float = 1.5, b: float = 0.75) -> np.ndarray:
        """BM25 score of every one of the first ``prefix`` documents for ``query``."""
        result = np.zeros(prefix, dtype=np.float64)
        if prefix == 0:
            return result
        idf = self.idf(prefix)
        average_length = self._cumulative_lengths[prefix] / prefix
        csc = self.csc
        for token in tokenize(query):
            column = self.vocabulary.get(token)
            if column is None:
                continue
            start, stop = csc.indptr[column], csc.indptr[column + 1]
            rows = csc.indices[start:stop]
            stop = start + int(np.searchsorted(rows, prefix))
            rows = csc.indices[start:stop]
            if len(rows) == 0:
                continue
            frequency = csc.data[start:stop].astype(np.float64)
            norm = k1 * (1 - b + b * self.lengths[rows] / average_length)
            result[rows] += idf[column] * frequency * (k1 + 1) / (frequency + norm)
        return result

    def top(
        self,
        query: str,
        prefix: int,
        k: int,
        mask: np.ndarray | None = None,
        k1: float = 1.5,
        b: float = 0.75,
    ) -> list[tuple[int, float]]:
        """Best ``k`` (row, score) pairs with a positive score among the first ``prefix`` rows.

        ``mask`` (bool, length >= prefix) restricts the rows considered, e.g. to a domain.
        """
        scores = self.scores(query, prefix, k1, b)
        if mask is not None:
            scores = np.where(mask[:prefix], scores, 0.0)
        candidates = np.flatnonzero(scores > 0)
        if len(candidates) > k:
            candidates = candidates[np.argpartition(-scores[candidates], k - 1)[:k]]
        order = sorted(candidates.tolist(), key=lambda row: (-scores[row], row))
        return [(row, float(scores[row])) for row in order]

    def save(self, folder: Path) -> None:
        """Write ``bm25_counts.npz`` (no pickle) and ``bm25_vocabulary.json`` into ``folder``."""
        np.savez(
            folder / "bm25_counts.npz",
            data=self.counts.data,
            indices=self.counts.indices,
            indptr=self.counts.indptr,
            shape=np.asarray(self.counts.shape, dtype=np.int64),
        )
        terms = [""] * len(self.vocabulary)
        for term, column in self.vocabulary.items():
            terms[column] = term
        (folder / "bm25_vocabulary.json").write_text(json.dumps(terms), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        """Read an index written by :meth:`save`."""
        with np.load(folder / "bm25_counts.npz", allow_pickle=False) as arrays:
            shape = tuple(int(value) for value in arrays["shape"])
            counts = sp.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]), shape=shape)
        terms = json.loads((folder / "bm25_vocabulary.json").read_text(encoding="utf-8"))
        return cls({term: column for column, term in enumerate(terms)}, counts)
