"""Dense search over the id prefix ``[0, prefix)``: exact (FAISS flat) or IVF for large KBs.

Rows are in announcement order, so a cutoff is an id prefix. The exact path scans the prefix of
the vector matrix in place. Above ``runtime.approximate_above`` visible papers, a stored IVF index
(8-bit scalar-quantised lists) is searched through an ``IDSelectorRange``/``IDSelectorBitmap`` of the
visible rows, so a row after the cutoff can never come back; its candidates are re-scored exactly
against the float32 vectors, and the number of probed lists grows as the visible share shrinks,
so recall stays steady across cutoffs.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

IVF_FILE = "dense_ivf.faiss"
RERANK_FACTOR = 4


def exact_search(
    vectors: np.ndarray, query: np.ndarray, depth: int, rows: np.ndarray | None = None
) -> list[int]:
    """Rows of ``vectors`` (or of its subset ``rows``) with the largest inner product, best first."""
    import faiss

    candidates = vectors if rows is None else vectors[rows]
    if len(candidates) == 0 or depth <= 0:
        return []
    _, found = faiss.knn(
        np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32),
        np.ascontiguousarray(candidates, dtype=np.float32),
        min(depth, len(candidates)),
        metric=faiss.METRIC_INNER_PRODUCT,
    )
    hits = [int(index) for index in found[0] if index >= 0]
    return hits if rows is None else [int(rows[index]) for index in hits]


def ivf_lists(size: int) -> int:
    """Number of IVF lists for ``size`` vectors (about 1,000 vectors a list, 64 .. 4096)."""
    return int(min(4096, max(64, size // 1000)))


def build_ivf(vectors: np.ndarray, seed: int = 0) -> Any:
    """A trained IVF index with 8-bit scalar-quantised lists over ``vectors`` (ids = rows)."""
    import faiss

    size, dimension = vectors.shape
    lists = ivf_lists(size)
    quantizer = faiss.IndexFlatIP(dimension)
    index = faiss.IndexIVFScalarQuantizer(
        quantizer, dimension, lists, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
    )
    index.cp.niter = 10
    index.cp.seed = seed
    sample_size = min(size, lists * 48)
    sample = np.random.default_rng(seed).choice(size, size=sample_size, replace=False)
    index.train(np.ascontiguousarray(vectors[np.sort(sample)], dtype=np.float32))
    for start in range(0, size, 100_000):
        chunk = np.ascontiguousarray(vectors[start : start + 100_000], dtype=np.float32)
        index.add_with_ids(chunk, np.arange(start, start + len(chunk), dtype=np.int64))
    return index


def write_ivf(folder: Path, index: Any) -> Path:
    """Store an IVF index in ``folder`` (FAISS's own format)."""
    import faiss

    path = folder / IVF_FILE
    faiss.write_index(index, str(path))
    return path


def read_ivf(folder: Path) -> Any | None:
    """The IVF index stored in ``folder``, or None."""
    import faiss

    path = folder / IVF_FILE
    return faiss.read_index(str(path)) if path.is_file() else None


class DenseIndex:
    """Cutoff-bounded inner-product search over row-ordered, normalised vectors."""

    def __init__(
        self,
        vectors: np.ndarray,
        ivf: Any | None = None,
        mode: str = "auto",
        approximate_above: int = 100_000,
        nprobe: int = 16,
    ) -> None:
        self.vectors = vectors
        self.ivf = ivf
        self.mode = mode
        self.approximate_above = approximate_above
        self.nprobe = nprobe

    @property
    def size(self) -> int:
        """Number of vectors."""
        return int(self.vectors.shape[0])

    def approximate(self, visible: int) -> bool:
        """True when a search over ``visible`` rows uses the IVF index."""
        if self.ivf is None or self.mode == "flat":
            return False
        return self.mode == "ivf" or visible > self.approximate_above

    def search(self, query: np.ndarray, prefix: int, depth: int, mask: np.ndarray | None = None) -> list[int]:
        """Best ``depth`` rows among ``[0, prefix)`` (and ``mask``), by inner product with ``query``."""
        prefix = min(prefix, self.size)
        if prefix <= 0 or depth <= 0:
            return []
        rows = None if mask is None else np.flatnonzero(mask[:prefix])
        visible = prefix if rows is None else len(rows)
        if visible == 0:
            return []
        if self.approximate(visible):
            found = self._ivf_search(query, prefix, rows, depth)
        elif rows is None:
            found = exact_search(self.vectors[:prefix], query, depth)
        else:
            found = exact_search(self.vectors, query, depth, rows)
        return [row for row in found if 0 <= row < prefix]

    def _ivf_search(self, query: np.ndarray, prefix: int, rows: np.ndarray | None, depth: int) -> list[int]:
        import faiss

        ivf: Any = self.ivf
        parameters = faiss.SearchParametersIVF()
        visible = prefix if rows is None else len(rows)
        if rows is None:
            selector: Any = faiss.IDSelectorRange(0, prefix)
        else:
            allowed = np.zeros(self.size, dtype=bool)
            allowed[rows] = True
            bitmap = np.packbits(allowed, bitorder="little")
            selector = faiss.IDSelectorBitmap(self.size, faiss.swig_ptr(bitmap))
        parameters.sel = selector
        parameters.nprobe = int(min(ivf.nlist, math.ceil(self.nprobe * self.size / visible)))
        wanted = min(visible, depth * RERANK_FACTOR)
        _, found = ivf.search(
            np.ascontiguousarray(query.reshape(1, -1), dtype=np.float32), wanted, params=parameters
        )
        candidates = np.asarray([row for row in found[0] if 0 <= row < prefix], dtype=np.int64)
        if len(candidates) == 0:
            return []
        scores = self.vectors[np.sort(candidates)] @ query.astype(np.float32)
        ordered = np.sort(candidates)[np.argsort(-scores, kind="stable")]
        return [int(row) for row in ordered[:depth]]
