"""Okapi BM25 on a sparse term-count matrix, exact over any prefix of the documents.

The matrix rows are documents in internal-id (announcement) order, so a cutoff is a row prefix.
Statistics (N, document frequencies, average length) are computed over the prefix only, so the
ranking at a cutoff never depends on later papers. Scores equal rank-bm25's ``BM25Okapi`` on the
same tokens (same IDF, including its epsilon floor for negative IDF), which a test checks.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from foresci.kb.postings import BM25Postings
from foresci.kb.tokens import STOPWORDS, tokenize

__all__ = ["STOPWORDS", "BM25Index", "tokenize"]


class BM25Index:
    """Term counts of all documents (CSR for appends, CSC for scoring) and the vocabulary."""

    def __init__(self, vocabulary: dict[str, int], counts: sp.csr_matrix) -> None:
        self.vocabulary = vocabulary
        self.counts = counts.tocsr()
        self._csc: sp.csc_matrix | None = None
        self.lengths = np.asarray(self.counts.sum(axis=1)).ravel().astype(np.float64)
        self._postings: BM25Postings | None = None

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

    @property
    def postings(self) -> BM25Postings:
        """The term-major postings that score queries (built once from the counts)."""
        if self._postings is None:
            csc = self.csc
            rows = self.counts
            self._postings = BM25Postings.single(
                self.vocabulary, csc.indptr, csc.indices, csc.data, self.lengths, rows.indptr, rows.indices
            )
        return self._postings

    def idf(self, prefix: int, epsilon: float = 0.25) -> np.ndarray:
        """IDF of every term over the first ``prefix`` documents (rank-bm25's BM25Okapi formula)."""
        return self.postings.idf(prefix, epsilon)

    def scores(self, query: str, prefix: int, k1: float = 1.5, b: float = 0.75) -> np.ndarray:
        """BM25 score of every one of the first ``prefix`` documents for ``query``."""
        return self.postings.scores(query, prefix, k1, b)

    def top(
        self,
        query: str,
        prefix: int,
        k: int,
        mask: np.ndarray | None = None,
        k1: float = 1.5,
        b: float = 0.75,
    ) -> list[tuple[int, float]]:
        """Best ``k`` (row, score) pairs with a positive score among the first ``prefix`` rows."""
        return self.postings.top(query, prefix, k, mask, k1, b)

    def save(self, folder: Path) -> None:
        """Write ``bm25_counts.npz`` (no pickle), ``bm25_vocabulary.json`` and ``bm25_terms.bin`` into
        ``folder``."""
        np.savez(
            folder / "bm25_counts.npz",
            data=self.counts.data,
            indices=self.counts.indices,
            indptr=self.counts.indptr,
            shape=np.asarray(self.counts.shape, dtype=np.int64),
        )
        self.save_vocabulary(folder)

    def save_vocabulary(self, folder: Path) -> None:
        """Write ``bm25_vocabulary.json`` (the terms by column) and the same vocabulary as a sorted term
        table searches map instead of parsing (``bm25_terms.bin``, :mod:`foresci.kb.vocabulary`)."""
        from foresci.kb.vocabulary import TERMS_FILE, write_terms

        terms = [""] * len(self.vocabulary)
        for term, column in self.vocabulary.items():
            terms[column] = term
        (folder / "bm25_vocabulary.json").write_text(json.dumps(terms), encoding="utf-8")
        write_terms(folder / TERMS_FILE, self.vocabulary)

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        """Read an index written by :meth:`save`."""
        with np.load(folder / "bm25_counts.npz", allow_pickle=False) as arrays:
            shape = tuple(int(value) for value in arrays["shape"])
            counts = sp.csr_matrix((arrays["data"], arrays["indices"], arrays["indptr"]), shape=shape)
        terms = json.loads((folder / "bm25_vocabulary.json").read_text(encoding="utf-8"))
        return cls({term: column for column, term in enumerate(terms)}, counts)
