"""Query-side BM25: term-major (CSC) postings as plain numpy arrays, memory-mapped from ``.npy`` files.

:class:`BM25Postings` scores exactly as :class:`foresci.kb.bm25.BM25Index` (which builds and appends;
its scoring is this class's), but needs neither scipy nor the term-count matrix at query time. A KB
stores them once per segment (:mod:`foresci.kb.segments`), derived from the segment's
``bm25_counts.npz``, in a folder named by that file's manifest hash (under the cache folder), so a fresh
process opens them in milliseconds instead of rebuilding them, and an update derives only its new rows'.
Scores do not depend on how the rows are split in parts: every row's score is the same sequence of
float operations on the same numbers (statistics over the whole prefix), so they agree bit for bit.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from foresci.kb.tokens import tokenize

ARRAYS = ("indptr", "indices", "data", "lengths", "row_indptr", "row_terms")


class PostingsPart:
    """The postings of one segment's rows: per term (columns of the vocabulary when it was written), the
    rows holding it (local, ascending) and its count there; per row, its terms and length."""

    def __init__(
        self,
        indptr: np.ndarray,
        indices: np.ndarray,
        data: np.ndarray,
        lengths: np.ndarray,
        row_indptr: np.ndarray,
        row_terms: np.ndarray,
        offset: int = 0,
    ) -> None:
        self.indptr = indptr
        self.indices = indices
        self.data = data
        self.lengths = lengths
        self.row_indptr = row_indptr
        self.row_terms = row_terms
        self.offset = offset

    @property
    def size(self) -> int:
        """Number of rows."""
        return int(len(self.lengths))

    @property
    def width(self) -> int:
        """Number of vocabulary columns the part knows."""
        return int(len(self.indptr)) - 1

    def span(self, column: int, stop: int) -> tuple[int, int]:
        """Positions in ``indices`` of the column's postings among the part's first ``stop`` rows."""
        if column >= self.width or stop <= 0:
            return 0, 0
        start, end = int(self.indptr[column]), int(self.indptr[column + 1])
        return start, start + int(np.searchsorted(self.indices[start:end], stop))

    def save(self, folder: Path) -> None:
        """Write the arrays into ``folder`` atomically (a concurrent writer may win)."""
        from foresci.core.io import atomic_folder

        with atomic_folder(folder) as staging:
            for name in ARRAYS:
                array = np.ascontiguousarray(getattr(self, name))
                np.save(staging / f"{name}.npy", array, allow_pickle=False)

    @classmethod
    def load(cls, folder: Path, offset: int = 0) -> PostingsPart | None:
        """A part saved by :meth:`save` (arrays memory-mapped), or None when ``folder`` has none."""
        if not all((folder / f"{name}.npy").is_file() for name in ARRAYS):
            return None
        arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in ARRAYS}
        return cls(**arrays, offset=offset)

    @classmethod
    def from_counts(cls, counts: object, offset: int = 0) -> PostingsPart:
        """The part of a CSR term-count matrix (rows = the segment's rows)."""
        import scipy.sparse as sp

        rows = sp.csr_matrix(counts)
        csc = rows.tocsc()
        csc.sort_indices()
        lengths = np.asarray(rows.sum(axis=1)).ravel().astype(np.float64)
        return cls(csc.indptr, csc.indices, csc.data, lengths, rows.indptr, rows.indices, offset)


class BM25Postings:
    """BM25 over the rows of one or more :class:`PostingsPart` (in row order) and one vocabulary."""

    def __init__(self, vocabulary: Mapping[str, int], parts: Sequence[PostingsPart]) -> None:
        self.vocabulary = vocabulary
        self.parts = list(parts)
        self.lengths = (
            np.concatenate([part.lengths for part in self.parts]) if self.parts else np.zeros(0, np.float64)
        )
        self._cumulative_lengths = np.concatenate([[0.0], np.cumsum(self.lengths)])
        self._idf_cache: dict[tuple[int, float], np.ndarray] = {}

    @classmethod
    def single(
        cls,
        vocabulary: Mapping[str, int],
        indptr: np.ndarray,
        indices: np.ndarray,
        data: np.ndarray,
        lengths: np.ndarray,
        row_indptr: np.ndarray,
        row_terms: np.ndarray,
    ) -> BM25Postings:
        """Postings of one part holding every row."""
        return cls(vocabulary, [PostingsPart(indptr, indices, data, lengths, row_indptr, row_terms)])

    @property
    def size(self) -> int:
        """Number of documents."""
        return int(len(self.lengths))

    def document_frequency(self, prefix: int) -> np.ndarray:
        """Number of the first ``prefix`` documents containing each term."""
        frequency = np.zeros(len(self.vocabulary), dtype=np.int64)
        for part in self.parts:
            visible = min(part.size, prefix - part.offset)
            if visible <= 0:
                break
            end = int(part.row_indptr[visible])
            counted = np.bincount(part.row_terms[:end], minlength=len(self.vocabulary))
            frequency += counted[: len(self.vocabulary)]
        return frequency

    def idf(self, prefix: int, epsilon: float = 0.25) -> np.ndarray:
        """IDF of every term over the first ``prefix`` documents (rank-bm25's BM25Okapi formula)."""
        key = (prefix, epsilon)
        cached = self._idf_cache.get(key)
        if cached is not None:
            return cached
        document_frequency = self.document_frequency(prefix)
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
        """BM25 score of every one of the first ``prefix`` documents for ``query``.

        A term's document frequency over the prefix is the length of its visible postings, so only the
        query's terms are read: the IDF of every term (a pass over all postings) is computed only when
        a query term is in more than half of the documents, whose IDF is floored at a share of the
        mean IDF. Same scores as from :meth:`idf`, bit for bit.
        """
        result = np.zeros(prefix, dtype=np.float64)
        if prefix == 0:
            return result
        average_length = self._cumulative_lengths[prefix] / prefix
        postings = []
        for token in tokenize(query):
            column = self.vocabulary.get(token)
            if column is None:
                continue
            spans = []
            for part in self.parts:
                if part.offset >= prefix:
                    break
                start, stop = part.span(column, prefix - part.offset)
                if stop > start:
                    spans.append((part, start, stop))
            if spans:
                postings.append((column, spans))
        if not postings:
            return result
        frequencies = np.asarray(
            [sum(stop - start for _, start, stop in spans) for _, spans in postings], dtype=np.int64
        )
        idf = np.log((prefix - frequencies + 0.5) / (frequencies + 0.5))
        if np.any(idf < 0):
            idf = self.idf(prefix)[[column for column, _ in postings]]
        for (_, spans), weight in zip(postings, idf.tolist(), strict=True):
            for part, start, stop in spans:
                rows = part.indices[start:stop] + part.offset
                frequency = part.data[start:stop].astype(np.float64)
                norm = k1 * (1 - b + b * self.lengths[rows] / average_length)
                result[rows] += weight * frequency * (k1 + 1) / (frequency + norm)
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
        """Write a one-part index's arrays and the vocabulary into ``folder`` atomically."""
        from foresci.core.io import atomic_folder

        if len(self.parts) != 1:
            raise ValueError("only one-part postings are saved whole; save each part instead")
        with atomic_folder(folder) as staging:
            for name in ARRAYS:
                array = np.ascontiguousarray(getattr(self.parts[0], name))
                np.save(staging / f"{name}.npy", array, allow_pickle=False)
            terms = [""] * len(self.vocabulary)
            for term, column in self.vocabulary.items():
                terms[column] = term
            (staging / "vocabulary.json").write_text(json.dumps(terms), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> BM25Postings | None:
        """One-part postings saved by :meth:`save` (arrays memory-mapped), or None when ``folder`` has none
        (or its arrays)."""
        if not (folder / "vocabulary.json").is_file():
            return None
        part = PostingsPart.load(folder)
        if part is None:
            return None
        terms = json.loads((folder / "vocabulary.json").read_text(encoding="utf-8"))
        return cls({term: column for column, term in enumerate(terms)}, [part])
